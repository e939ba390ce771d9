package mlkem

import (
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// WorkGroup is the work-group size of the kernels.
const WorkGroup = 128

// Engine computes batches of ML-KEM-768 and ML-KEM-1024 key generations,
// encapsulations and decapsulations on one device (NewEngine) or on all
// CPU cores with crypto/mlkem (CPUEngine). It is safe for concurrent use,
// and concurrent batches overlap: while the device computes one, the host
// packs or unpacks others.
//
// A device Engine computes each call where it is faster (SetRoute): on
// the device, or on the CPU cores with crypto/mlkem, as measured for the
// operation and batch size while the engine runs. When the device fails
// during a batch, the batch is recomputed on the CPU and the failure
// reported through OnFallback: results are never wrong and never missing
// because of a device fault.
//
// The kernels are constant-time in the seeds, the secret vectors, the
// messages and the shared keys, and decapsulation in whether the
// ciphertext is valid (kernels/mlkem.cl says how); the host buffers that
// held seeds, messages and shared keys are zeroed after use.
//
// Its controls are batch.Engine's.
type Engine struct {
	engine.Controls // batch.Engine's controls
	core            *engine.Core
	prog            *device.Program // nil on the CPU engine
	table           *device.Buffer  // the NTT's factors (deviceTable)
	// matrix: the program samples each key's Â in a kernel of its own
	// (MLKEM_MATRIX), which encapsulation and decapsulation read
	matrix bool
}

// NewEngine builds the ML-KEM kernels for dev (nil: device.Default()),
// uploads their table and checks the device with SelfTest (known answers
// of both parameter sets: a few elements, counted apart from Stats): an
// engine whose device gets them wrong is an error, never returned.
func NewEngine(dev *device.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	defines := ProgramDefines(dev)
	prog, err := dev.Program(kernels.Program("mlkem.cl", defines))
	if err != nil {
		return nil, fmt.Errorf("mlkem: building the kernels for %s: %w", dev.Name, err)
	}
	table, err := dev.Upload(device.Uint32Bytes(deviceTable()))
	if err != nil {
		return nil, fmt.Errorf("mlkem: uploading the NTT's table to %s: %w", dev.Name, err)
	}
	_, matrix := defines["MLKEM_MATRIX"]
	core := engine.New("mlkem", dev)
	e := &Engine{Controls: engine.ControlsOf(core), core: core, prog: prog, table: table, matrix: matrix}
	e.core.OnClose(table.Release)
	// Known answers on the device before anyone gets the engine: kernels
	// that a backend's compiler or driver gets wrong are refused here (Auto
	// then takes the CPU engine), not discovered in results.
	if err := SelfTest(e); err != nil {
		e.Close()
		return nil, fmt.Errorf("mlkem: the kernels on %s fail their known answers and are not used: %w", dev.Name, err)
	}
	return e, nil
}

// programDefines, when not nil, are the -D options of the engines'
// program (tests of kernel forms set them; nil: ProgramDefines'
// defaults).
var programDefines map[string]string

// ProgramDefines are the -D options the program is built with on dev:
// MLKEM_MATRIX, the form that samples the matrix Â of each key of a
// batch's table in a kernel of its own, a work-item per entry, which key
// generation, encapsulation and decapsulation then read
// (kernels/mlkem.cl). It beats the other form, where each element samples
// its key's Â as it multiplies, in every operation measured on a GPU
// (BenchmarkOperations measures both; docs/BENCHMARKS.md has the
// figures): sampling apart keeps the rejection loop's divergence and its
// sponge out of the arithmetic's registers, and a key that consecutive
// elements share is sampled once.
func ProgramDefines(dev *device.Device) map[string]string {
	if programDefines != nil {
		return programDefines
	}
	return map[string]string{"MLKEM_MATRIX": "1"}
}

// CPUEngine returns an Engine that computes on all CPU cores with
// crypto/mlkem. It is the CPU path of every device Engine too.
func CPUEngine() *Engine {
	core := engine.New("mlkem", nil)
	return &Engine{Controls: engine.ControlsOf(core), core: core}
}

// Auto returns an Engine on the default device (device.Choose: a GPU,
// or GPUCRYPTO_DEVICE's choice), or CPUEngine() where there is none or its
// kernels do not build; the Choice says which and why.
func Auto() (*Engine, device.Choice) { return engine.Auto(NewEngine, CPUEngine) }

// sampleMatrices enqueues the kernel matrix (MLKEM_MATRIX's mlkemK_matrix)
// on keys, a device buffer of count keys of keyWords words each, whose ρ
// is at word rhoOffset or, with fromSeed, is derived from the seed d ‖ z
// that each key is; it returns the buffer of their matrices Â (k²·512
// bytes a key). Â is public, as ρ is.
func (e *Engine) sampleMatrices(cmds *device.Commands, matrix *device.Kernel, p *params, count int, keys *device.Buffer,
	keyWords, rhoOffset int, fromSeed bool) (*device.Buffer, error) {
	entries := count * p.k * p.k
	matrices, err := cmds.Buffer(512*entries, false)
	if err != nil {
		return nil, err
	}
	seeds := uint32(0)
	if fromSeed {
		seeds = 1
	}
	err = cmds.Launch(matrix, entries, WorkGroup, matrices, keys, uint32(keyWords), uint32(rhoOffset), seeds, e.table, uint32(entries))
	return matrices, err
}

// A call of more than pipelineChunk elements runs on the device as
// batches of about equal size, hostBoundDepth of them in flight at once,
// each packed in turn (engine.Plan.PackInTurn: every pack here runs on
// all cores).
var pipelineChunk = 1 << 17 // a variable for the tests

// hostBoundDepth is the number of batches of a call in flight: while the
// device computes one, the host packs the next and unpacks the last.
const hostBoundDepth = 3

// hostChunk is the smallest range of elements a core takes in the host's
// passes.
const hostChunk = 1024

var _ batch.Engine = (*Engine)(nil)
