package ed25519

import (
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// WorkGroup is the work-group size of the kernels.
const WorkGroup = 128

// Engine signs and verifies batches of Ed25519 signatures on one device
// (NewEngine) or on all CPU cores with crypto/ed25519 (CPUEngine). It is
// safe for concurrent use, and concurrent batches overlap: while the
// device computes one, the host packs or unpacks others.
//
// A device Engine computes each call where it is faster (SetRoute): on
// the device, or on the CPU cores with crypto/ed25519, as measured for
// the operation and batch size while the engine runs. When the device
// fails during a batch, the batch is recomputed on the CPU and the
// failure reported through OnFallback: results are never wrong and never
// missing because of a device fault.
//
// Signing is constant-time in the seeds, the secret scalars and the
// nonces (kernels/ed25519.cl says how), and the buffers that held seeds
// are zeroed after use. Each signature the device makes passes its fault
// check (R computed twice, kernels/ed25519_check.h) or is made on the CPU
// instead (Stats().Faults counts those). Verification handles public
// values only (keys, signatures, messages) and is variable-time.
//
// Its controls are batch.Engine's; SetResultCheck is off in a new Engine.
type Engine struct {
	engine.Controls // batch.Engine's controls
	core            *engine.Core
	prog            *device.Program // nil on the CPU engine
	table           *device.Buffer  // the base point's comb table (kernels.CombTable)
	check           *device.Buffer  // the fault check's (kernels.CombCheckTable)
	// inject: prog has the tests' fault injection (ED25519_FAULT_INJECTION,
	// kernels/ed25519.cl), and signing passes each element's word of
	// faults (nil: zeros)
	inject bool
	faults func(i int) uint32
}

// NewEngine builds the Ed25519 kernels for dev (nil: device.Default(), the
// device Auto chooses; where Auto would take the CPU engine, the error of
// Default, which says why), uploads the base point's tables and checks the
// device with SelfTest (RFC 8032's known answers: a few elements, not
// counted in Stats): an engine whose device gets them wrong is an error, never
// returned.
func NewEngine(dev *device.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	defines := ProgramDefines(dev)
	prog, err := dev.Program(kernels.Program("ed25519.cl", defines))
	if err != nil {
		return nil, fmt.Errorf("ed25519: building the kernels for %s: %w", dev.Name, err)
	}
	words, err := kernels.CombTable("x25519") // the same curve and base point
	if err != nil {
		return nil, fmt.Errorf("ed25519: %w", err)
	}
	checkWords, err := kernels.CombCheckTable("x25519")
	if err != nil {
		return nil, fmt.Errorf("ed25519: %w", err)
	}
	table, err := dev.Upload(device.Uint32Bytes(words))
	if err != nil {
		return nil, fmt.Errorf("ed25519: uploading the base point's table to %s: %w", dev.Name, err)
	}
	check, err := dev.Upload(device.Uint32Bytes(checkWords))
	if err != nil {
		table.Release()
		return nil, fmt.Errorf("ed25519: uploading the fault check's table to %s: %w", dev.Name, err)
	}
	_, inject := defines["ED25519_FAULT_INJECTION"]
	core := engine.New("ed25519", dev)
	e := &Engine{Controls: engine.ControlsOf(core), core: core, prog: prog, table: table, check: check, inject: inject}
	e.core.OnClose(table.Release)
	e.core.OnClose(check.Release)
	// Known answers on the device before anyone gets the engine: kernels
	// that a backend's compiler or driver gets wrong are refused here (Auto
	// then takes the CPU engine), not discovered in results.
	if err := SelfTest(e); err != nil {
		e.Close()
		return nil, fmt.Errorf("ed25519: the kernels on %s fail RFC 8032's known answers and are not used: %w", dev.Name, err)
	}
	return e, nil
}

// programDefines, when not nil, are the -D options of the engines'
// program (tests of kernel forms set them; empty: the 32-bit limbs form;
// nil: ProgramDefines' defaults).
var programDefines map[string]string

// ProgramDefines are the -D options the program is built with on dev: on
// GPUs with fast double precision (device.Info.FastFP64) the point
// additions and doublings run on doubles (ED25519_FP64,
// kernels/fe25519_fp64.h, as the X25519 ladder does), elsewhere on 32-bit
// limbs.
func ProgramDefines(dev *device.Device) map[string]string {
	if programDefines != nil {
		return programDefines
	}
	if dev.FastFP64 {
		return map[string]string{"ED25519_FP64": "1"}
	}
	return nil
}

// CPUEngine returns an Engine that computes on all CPU cores with
// crypto/ed25519. It is the CPU path of every device Engine too.
func CPUEngine() *Engine {
	core := engine.New("ed25519", nil)
	return &Engine{Controls: engine.ControlsOf(core), core: core}
}

// Auto returns an Engine on the default device (device.Choose: a GPU,
// or GPUCRYPTO_DEVICE's choice), or CPUEngine() where there is none or its
// kernels do not build; the Choice says which and why.
func Auto() (*Engine, device.Choice) { return engine.Auto(NewEngine, CPUEngine) }

// A call of more than pipelineChunk elements runs on the device as
// batches of about equal size, each with at most batchMessageBytes of
// messages: pipelineDepth of them at once for verification,
// hostBoundDepth for signing and key generation, each packed in turn
// (engine.Plan.PackInTurn: every pack here runs on all cores).
var (
	pipelineChunk     = 1 << 17 // variables for the tests
	batchMessageBytes = 64 << 20
)

const pipelineDepth = 2

// hostBoundDepth is the number of batches in flight for signing and key
// generation, whose host work per batch (packing keys and messages, the
// results written out) is about their kernels': one more than
// verification's keeps the device busy while two are packed or unpacked.
const hostBoundDepth = pipelineDepth + 1

// hostChunk is the smallest range of elements a core takes in the
// host's passes.
const hostChunk = 1024

// readHalfMin is the half of the smallest signing batch whose signatures
// come back in two halves, the first unpacked while the second travels
// (the last batch of a call waits for its read-back and unpacking
// alone); a smaller batch's one copy costs less than a second one.
var readHalfMin = 8192

var _ batch.Engine = (*Engine)(nil)
