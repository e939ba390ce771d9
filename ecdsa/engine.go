package ecdsa

import (
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// WorkGroup is the work-group size of the kernels.
const WorkGroup = 128

// Engine signs and verifies batches of ECDSA signatures and computes ECDH
// shared secrets and public keys, over P-256, on one device (NewEngine) or
// on all CPU cores with crypto/ecdsa and crypto/ecdh (CPUEngine). It is
// safe for concurrent use, and concurrent batches overlap.
//
// A device Engine computes each call where it is faster (SetRoute), as
// measured while it runs; a batch whose device fails is recomputed on the
// CPU and the failure reported through OnFallback. Verification handles
// public values only (keys, signatures, hashes) and is variable-time.
//
// Signatures with RFC 6979's deterministic nonces (the Server's Signer
// with a nil reader) pass a fault check on the device before they leave
// it (ecdsa_p256_sign_check, kernels/ecdsa.cl: R computed a second time
// by other means, and s checked against k, d and the hash), since a
// wrong R beside a right signature with the same nonce gives the private
// key; where it fails, the element is signed on the CPU with crypto/ecdsa
// instead and counted in Stats().Faults. Hedged nonces are fresh for
// every signature, and their signatures are not checked.
//
// Its controls are batch.Engine's; SetResultCheck is off in a new Engine.
type Engine struct {
	engine.Controls // batch.Engine's controls
	core            *engine.Core
	prog            *device.Program // ecdsa.cl; nil on the CPU engine
	ecdh            *device.Program // p256_ecdh.cl; nil on the CPU engine
	comb            *device.Buffer  // the comb's table (kernels.P256CombTable; verification reads its first row, 1·G … 8·G)
	check           *device.Buffer  // the fault check's table (kernels.P256CheckTable)
	// faultCheck: deterministic signatures pass the fault check
	// (ecdsa_p256_sign_check) before they leave the device; false only in
	// the benchmarks that measure its cost (skipFaultCheck)
	faultCheck bool
	// inject: prog has the tests' fault injection (faultInjection), and
	// signing passes each element's word of faults (nil: zeros)
	inject bool
	faults func(i int) uint32
}

// Test knobs, which only the package's tests set; NewEngine reads them.
var (
	// faultInjection builds ecdsa.cl with ECDSA_FAULT_INJECTION
	// (kernels/ecdsa.cl): ecdsa_p256_sign_point corrupts the nonce of
	// its base multiplication by each element's word of Engine.faults.
	faultInjection bool
	// skipFaultCheck leaves the fault check of deterministic signatures
	// out, for the benchmarks that measure its cost.
	skipFaultCheck bool
)

// NewEngine builds the kernels for dev (nil: device.Default(), the device
// Auto chooses; where Auto would take the CPU engine, the error of
// Default, which says why), ECDSA's program and ECDH's, uploads the base
// point's tables and checks the device with SelfTest (known answers: a
// few elements, not counted in Stats): an engine whose device gets them wrong
// is an error, never returned.
func NewEngine(dev *device.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	var defines map[string]string
	if faultInjection {
		defines = map[string]string{"ECDSA_FAULT_INJECTION": ""}
	}
	// the two programs build at once (device.Program builds distinct
	// programs in parallel where the driver's compiler allows)
	var ecdhProg *device.Program
	var ecdhErr error
	ecdhBuilt := make(chan struct{})
	go func() {
		defer close(ecdhBuilt)
		ecdhProg, ecdhErr = dev.Program(kernels.Program("p256_ecdh.cl", nil))
	}()
	prog, err := dev.Program(kernels.Program("ecdsa.cl", defines))
	<-ecdhBuilt
	if err != nil {
		return nil, fmt.Errorf("ecdsa: building the kernels for %s: %w", dev.Name, err)
	}
	if ecdhErr != nil {
		return nil, fmt.Errorf("ecdsa: building the ECDH kernels for %s: %w", dev.Name, ecdhErr)
	}
	comb, err := dev.Upload(device.Uint32Bytes(kernels.P256CombTable()))
	if err != nil {
		return nil, fmt.Errorf("ecdsa: uploading the comb's table to %s: %w", dev.Name, err)
	}
	check, err := dev.Upload(device.Uint32Bytes(kernels.P256CheckTable()))
	if err != nil {
		comb.Release()
		return nil, fmt.Errorf("ecdsa: uploading the fault check's table to %s: %w", dev.Name, err)
	}
	core := engine.New("ecdsa", dev)
	e := &Engine{Controls: engine.ControlsOf(core), core: core, prog: prog, ecdh: ecdhProg, comb: comb, check: check,
		faultCheck: !skipFaultCheck, inject: faultInjection}
	e.core.OnClose(comb.Release)
	e.core.OnClose(check.Release)
	if err := SelfTest(e); err != nil {
		e.Close()
		return nil, fmt.Errorf("ecdsa: the kernels on %s fail the known answers and are not used: %w", dev.Name, err)
	}
	return e, nil
}

// CPUEngine returns an Engine that computes on all CPU cores with
// crypto/ecdsa and crypto/ecdh. It is the CPU path of every device Engine
// too.
func CPUEngine() *Engine {
	core := engine.New("ecdsa", nil)
	return &Engine{Controls: engine.ControlsOf(core), core: core}
}

// Auto returns an Engine on the default device (device.Choose: a GPU,
// or GPUCRYPTO_DEVICE's choice), or CPUEngine() where there is none or its
// kernels do not build; the Choice says which and why.
func Auto() (*Engine, device.Choice) { return engine.Auto(NewEngine, CPUEngine) }

// A call of more than pipelineChunk elements runs on the device as
// batches of about equal size, some of them at once.
var pipelineChunk = 1 << 17 // a variable for the tests

// The batches in flight of a call: pipelineDepth for ECDH's shared
// secrets, whose host work per batch is well below its kernels';
// hostBoundDepth for signing, verification and public keys, whose host
// work per batch (random nonces, parsing and packing, the results made
// into Go values) is about their kernels': one batch more in flight keeps
// the device busy while two are packed or unpacked.
const (
	pipelineDepth  = 2
	hostBoundDepth = pipelineDepth + 1
)

// planFor is the plan of a call of op on n elements, depth batches in
// flight, packed in turn (every job here packs on all cores).
func planFor(op string, n, depth int) engine.Plan {
	return engine.Plan{Op: op, N: n, Chunk: pipelineChunk, Depth: depth, PackInTurn: true}
}

// hostChunk is the smallest range of elements a core takes in the
// host's passes.
const hostChunk = 1024

// groupThreads is the number of work-items that the kernels working per
// group of elements (ecdsa_p256_sign_finish, ecdsa_p256_verify_scalars,
// ecdh_p256_finish)
// keep at least, where the batch allows: enough to fill an H100 at their
// occupancy (smaller GPUs are full sooner).
const groupThreads = 1 << 16

// groupMax is the largest group of elements that share their inversions:
// beyond 16 the inversions' share of the work is below the products' that
// the groups add.
const groupMax = 16

// inversionGroups is the number of groups (work-items of the kernels that
// share inversions) of a batch of n elements: groups of up to groupMax
// elements, as few as keep groupThreads work-items, one element each for
// small batches.
func inversionGroups(n int) int {
	size := min(max(n/groupThreads, 1), groupMax)
	return (n + size - 1) / size
}

var _ batch.Engine = (*Engine)(nil)
