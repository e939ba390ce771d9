package ecdh

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// WorkGroup is the work-group size of the ladder and comb kernels.
const WorkGroup = 128

// Engine computes batches of X25519 and X448 on one device (NewEngine) or
// on all CPU cores (CPUEngine). It is safe for concurrent use, and
// concurrent batches overlap: while the device computes one, the host
// prepares or finishes others.
//
// A device Engine computes each call where it is faster (SetRoute): on
// the device, or on the CPU cores with the CPU engine's code, as measured
// for the call's curve, operation and batch size while the engine runs.
// So a small batch, which a device's latency makes slow, runs on the CPU,
// and no call is slower than the CPU engine would be. When the device
// fails during a batch, the batch is recomputed on the CPU and the
// failure reported through OnFallback (and the logger of SetLogger):
// results are never wrong and never missing because of a device fault.
//
// An Engine keeps the host and device buffers of recent batches for the
// next ones, zeroed where they held secrets; ReleaseBuffers frees them,
// Close frees everything.
//
// Its controls are batch.Engine's; SetResultCheck is off in a new Engine
// (its check costs 1/every of what the CPU would spend on the work).
type Engine struct {
	engine.Controls // batch.Engine's controls
	core            *engine.Core
	curves          map[*montgomery]*curveProgram // nil on the CPU engine
	binv            atomic.Int64                  // SetBatchInversion: group size, 0 = per element, BatchInversionAuto
}

// curveKernels are one curve's program on the engine's device and the
// table of its public-key (comb) kernel.
type curveKernels struct {
	prog  *device.Program
	table *device.Buffer
}

// curveProgram is a curve's kernels on the engine's device, built on
// first use (get) and freed by release, after which get fails.
type curveProgram struct {
	mu     sync.Mutex
	build  func() (curveKernels, error)
	built  bool
	closed bool
	k      curveKernels
	err    error // the build's, kept: a failed build is not retried on every batch
}

// get returns the curve's kernels, building them first if need be.
func (c *curveProgram) get() (*curveKernels, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("ecdh: the engine is closed")
	}
	if !c.built {
		c.k, c.err = c.build()
		c.built = true
	}
	if c.err != nil {
		return nil, c.err
	}
	return &c.k, nil
}

// release frees the curve's table on the device, if it was built.
func (c *curveProgram) release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.k.table == nil {
		return nil
	}
	err := c.k.table.Release()
	c.k.table = nil
	return err
}

// NewEngine returns an Engine on dev (nil: device.Default(), the device
// Auto chooses; where Auto would take the CPU engine, the error of
// Default, which says why). It builds X25519's kernels and uploads the
// table of its public-key kernel; X448's are built on the first X448
// call (the call waits for them; a build that fails makes every X448
// batch fall back to the CPU, reported through OnFallback).
func NewEngine(dev *device.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	core := engine.New("ecdh", dev)
	e := &Engine{Controls: engine.ControlsOf(core), core: core, curves: map[*montgomery]*curveProgram{}}
	e.binv.Store(BatchInversionAuto)
	e.core.OnClose(e.releaseTables)
	for _, c := range Curves() {
		m := c.params()
		cp := &curveProgram{build: func() (curveKernels, error) { return buildCurve(dev, c) }}
		e.curves[m] = cp
		if m.buildWithEngine {
			if _, err := cp.get(); err != nil {
				e.releaseTables()
				return nil, err
			}
		}
	}
	return e, nil
}

// buildCurve builds c's program on dev and uploads its comb table.
func buildCurve(dev *device.Device, c Curve) (curveKernels, error) {
	m := c.params()
	p, err := dev.Program(kernels.Program(m.prefix+".cl", ProgramDefines(dev, c)))
	if err != nil {
		return curveKernels{}, fmt.Errorf("ecdh: building %s kernels for %s: %w", c, dev.Name, err)
	}
	words, err := kernels.CombTable(m.prefix)
	var table *device.Buffer
	if err == nil {
		table, err = dev.Upload(device.Uint32Bytes(words))
	}
	if err != nil {
		return curveKernels{}, fmt.Errorf("ecdh: uploading the %s public-key table to %s: %w", c, dev.Name, err)
	}
	return curveKernels{prog: p, table: table}, nil
}

// CPUEngine returns an Engine that computes on all CPU cores, with
// github.com/cloudflare/circl (constant-time, with assembly on amd64). It
// is the CPU path of every device Engine too.
//
// (Not crypto/ecdh for X25519: it has no function on raw keys, and its
// NewPrivateKey derives the public key with a full scalar multiplication
// before ECDH does the one asked for, so a shared secret would cost two.)
func CPUEngine() *Engine {
	core := engine.New("ecdh", nil)
	e := &Engine{Controls: engine.ControlsOf(core), core: core}
	e.binv.Store(BatchInversionAuto)
	return e
}

// Auto returns an Engine on the default device (device.Choose: a GPU,
// or GPUCRYPTO_DEVICE's choice), or CPUEngine() where there is none or its
// kernels do not build; the Choice says which and why.
func Auto() (*Engine, device.Choice) { return engine.Auto(NewEngine, CPUEngine) }

// releaseTables frees the comb tables on the device.
func (e *Engine) releaseTables() error {
	var first error
	for _, c := range e.curves {
		if err := c.release(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// programDefines are the -D options of each curve's program (tests and
// benchmarks of kernel forms set them; none: ProgramDefines' defaults).
var programDefines map[Curve]map[string]string

// ProgramDefines are the -D options c's program is built with on dev: on
// GPUs with fast double precision (device.Info.FastFP64) the X25519
// ladder runs on doubles (LADDER_FP64, kernels/fe25519_fp64.h: 5 digits of
// 51 bits, a digit product in three fp64 instructions), elsewhere, and
// for X448, on 32-bit limbs, X448's product and squaring by the
// golden-ratio Karatsuba (FIELD_MUL_FORM=karatsuba).
func ProgramDefines(dev *device.Device, c Curve) map[string]string {
	if d, ok := programDefines[c]; ok {
		return d
	}
	if c.params().ladderFP64 && dev.FastFP64 {
		return map[string]string{"LADDER_FP64": "1"}
	}
	return maps.Clone(c.params().integerDefines)
}

// BatchInversionAuto, given to SetBatchInversion, restores the default
// rule for the batch inversion group size (see SetBatchInversion).
const BatchInversionAuto = -1

// The default rule of SetBatchInversion: groups of autoBinvGroup elements
// from autoBinvMin elements per batch (twice that for X448 shared
// secrets), per-element inversion below.
const (
	autoBinvGroup = 16
	autoBinvMin   = 131072
)

// SetBatchInversion chooses how the kernels turn each projective result
// (X : Z) into u = X/Z.
//
// With k = 0 every work-item inverts its own Z by Fermat (254 squarings
// and 11 multiplications for X25519, 453 and 13 for X448). With k ≥ 1 the
// ladder and comb kernels stop at (X, Z) and a second kernel inverts the
// batch in groups of at most k elements with one Fermat inversion per
// group (Montgomery's simultaneous inversion, kernels/batch_invert.h):
// about 4 multiplications plus 1/k of an inversion per element, for one
// more kernel launch and a device buffer of 2·Size bytes per element
// (zeroed after use). k = 1 splits the work the same way without sharing
// anything, which isolates the cost of the split. The results are
// identical either way, low-order peers included (each still fails alone
// with ErrLowOrder).
//
// With k = BatchInversionAuto (any k < 0; the default) the group size
// depends on the batch: 16 for X25519 shared secrets and for the public
// keys of both curves from 131072 elements, 16 for X448 shared secrets
// from 262144 elements, per element below: small batches fill the device
// with too few groups for the second kernel to pay for its launch.
// BatchInversionGroup says what a batch will use.
//
// The setting applies to SharedSecrets and PublicKeys on the device. It
// may be changed while batches run: each batch uses the value it found
// when it reached the device.
func (e *Engine) SetBatchInversion(k int) { e.binv.Store(int64(max(k, BatchInversionAuto))) }

// BatchInversionGroup is the batch inversion group size (0: per-element
// inversion) that a device batch of n shared secrets (shared) or comb
// public keys on c uses with the current SetBatchInversion setting.
func (e *Engine) BatchInversionGroup(c Curve, shared bool, n int) int {
	return binvGroup(int(e.binv.Load()), c.params(), shared, n)
}

// binvGroup resolves the setting k (SetBatchInversion) for a batch.
func binvGroup(k int, m *montgomery, shared bool, n int) int {
	if k >= 0 {
		return k
	}
	least := autoBinvMin
	if shared {
		least = m.binvSharedMin
	}
	if n >= least {
		return autoBinvGroup
	}
	return 0
}

// PublicKeys implements Backend: the public key of each private key.
func (e *Engine) PublicKeys(c Curve, privs [][]byte) ([][]byte, error) {
	m, err := checkBatch(c, privs, nil, false)
	if err != nil {
		return nil, err
	}
	return e.allocating(m, privs, nil)
}

// SharedSecrets implements Backend: X(privs[i], peers[i]) for each i.
func (e *Engine) SharedSecrets(c Curve, privs, peers [][]byte) ([][]byte, error) {
	m, err := checkBatch(c, privs, peers, true)
	if err != nil {
		return nil, err
	}
	return e.allocating(m, privs, peers)
}

// PublicKeysInto is PublicKeys writing the public key of privs[i] into
// out[i], a string of c.Size() bytes that the caller owns: a caller that
// reuses its strings from call to call allocates nothing per element, and
// large calls leave no garbage behind them. An element that fails has its
// error in the returned *batch.Error and out[i] set to zeros; an out[i]
// of the wrong length fails its element (ErrKeyLength).
func (e *Engine) PublicKeysInto(c Curve, privs, out [][]byte) error {
	m, err := checkBatch(c, privs, nil, false)
	if err != nil {
		return err
	}
	if len(out) != len(privs) {
		return fmt.Errorf("ecdh: %d private keys but %d outputs", len(privs), len(out))
	}
	return e.compute(m, privs, nil, out)
}

// SharedSecretsInto is SharedSecrets writing X(privs[i], peers[i]) into
// out[i], as PublicKeysInto does.
func (e *Engine) SharedSecretsInto(c Curve, privs, peers, out [][]byte) error {
	m, err := checkBatch(c, privs, peers, true)
	if err != nil {
		return err
	}
	if len(out) != len(privs) {
		return fmt.Errorf("ecdh: %d private keys but %d outputs", len(privs), len(out))
	}
	return e.compute(m, privs, peers, out)
}

// allocating is compute into new strings (resultStrings), the failed
// elements' set to nil.
func (e *Engine) allocating(m *montgomery, privs, peers [][]byte) ([][]byte, error) {
	out := resultStrings(m, len(privs))
	err := e.compute(m, privs, peers, out)
	if per, ok := err.(*batch.Error); ok {
		for i, err := range per.Errs {
			if err != nil {
				out[i] = nil
			}
		}
	} else if err != nil {
		return nil, err
	}
	return out, err
}

// resultStrings returns n strings of m.size bytes, one allocation per
// core.
func resultStrings(m *montgomery, n int) [][]byte {
	size := m.size
	out := make([][]byte, n)
	batch.Parallel(n, hostChunk, func(lo, hi int) {
		slab := make([]byte, (hi-lo)*size)
		for i := lo; i < hi; i++ {
			out[i] = slab[(i-lo)*size : (i-lo+1)*size : (i-lo+1)*size]
		}
	})
	return out
}

// A call larger than pipelineChunk elements runs on the device as chunks
// of about equal size, at most pipelineChunk each, pipelineDepth at once:
// while the device computes one chunk, the host packs the next and
// unpacks the previous one, so one large call keeps the device as busy as
// pipelined callers. 262,144 is chosen as a size where the kernels of
// both curves are near their full rate on a large GPU, with batch
// inversion (see SetBatchInversion).
var pipelineChunk = 1 << 18 // a variable for the tests

const pipelineDepth = 2

// compute runs one call through the engine's core (engine.Core.Run:
// device or CPU, in chunks on the device): results into out (c.Size()
// bytes each, zeros for a failed element); public keys when peers is nil.
func (e *Engine) compute(m *montgomery, privs, peers, out [][]byte) error {
	if c := e.curves[m]; c != nil {
		// a curve's first call builds its kernels here, outside the
		// call's timing (engine.Core.Run measures the device's time for
		// its route); a failed build fails the call's device batches,
		// which fall back to the CPU
		c.get()
	}
	n := len(privs)
	j := &ladderJob{e: e, c: m, shared: peers != nil, privs: privs, peers: peers, out: out, errs: elemErrs{n: n}}
	op := m.name + " public key"
	if j.shared {
		op = m.name + " shared secret"
	}
	if err := e.core.Run(engine.Plan{Op: op, N: n, Chunk: pipelineChunk, Depth: pipelineDepth}, j); err != nil {
		return err
	}
	return j.errs.result()
}

// ladderJob is one call of PublicKeys or SharedSecrets (an engine.Job).
type ladderJob struct {
	e                 *Engine
	c                 *montgomery
	shared            bool
	privs, peers, out [][]byte // peers: nil for public keys
	errs              elemErrs
}

// ladderBatch is a device batch's host rows: the keys' byte strings
// (limb words, element after element) and the results, in staging
// memory.
type ladderBatch struct {
	n             int
	binv          int // the batch inversion group
	scal, us, res []uint32
}

// Device implements engine.Job.
func (j *ladderJob) Device(ch *engine.Chunk) error {
	return j.onDevice(ch, j.e.enqueue)
}

// onDevice packs the batch ch into staging memory, runs it with run and
// unpacks the results (tests stand in for run: export_test.go).
func (j *ladderJob) onDevice(ch *engine.Chunk, run func(ch *engine.Chunk, m *montgomery, b *ladderBatch) error) error {
	n := ch.Hi - ch.Lo
	w := j.c.limbs() * n
	parts := 2
	if j.shared {
		parts = 3
	}
	words, err := ch.Words(parts * w)
	if err != nil {
		return err
	}
	b := &ladderBatch{n: n, binv: binvGroup(int(j.e.binv.Load()), j.c, j.shared, n), scal: words[:w:w], res: words[w : 2*w : 2*w]}
	if j.shared {
		b.us = words[2*w:]
	}
	if j.pack(ch.Lo, ch.Hi, b.scal, b.us) == n {
		return nil // nothing valid to compute
	}
	// the keys are zeroed while the kernels run, the results as unpack
	// reads them
	ch.ZeroAfterUpload(device.Uint32Bytes(b.scal))
	ch.ZeroAfterUpload(device.Uint32Bytes(b.us))
	if err := run(ch, j.c, b); err != nil {
		return err
	}
	j.unpack(ch.Lo, ch.Hi, b.res)
	ch.Zeroed(device.Uint32Bytes(b.res))
	return engine.Check(ch.Sample(), j.check)
}

// CPU implements engine.Job: the elements [lo, hi) with the CPU engine's
// code, on all cores.
func (j *ladderJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 1, func(a, b int) {
		for i := lo + a; i < lo+b; i++ {
			var peer []byte
			if j.shared {
				peer = j.peers[i]
			}
			err := j.c.compute(j.out[i], j.privs[i], peer, j.shared)
			if err != nil && len(j.out[i]) == j.c.size {
				clear(j.out[i])
			}
			j.errs.set(i, err) // nil clears what a failed device batch set
		}
	})
}

// check is the result check of element i: recomputed on the CPU, it
// gives the device's result, or fails as the device's did.
func (j *ladderJob) check(i int) bool {
	var peer []byte
	if j.shared {
		peer = j.peers[i]
	}
	var v [56]byte
	want := v[:j.c.size]
	defer clear(want)
	err := j.c.compute(want, j.privs[i], peer, j.shared)
	if (err != nil) != (j.errs.get(i) != nil) {
		return false
	}
	return err != nil || bytes.Equal(want, j.out[i])
}

// enqueue runs the batch b of curve m on the device (ch.Run: one set of
// device commands on the core's stages): the keys' byte strings up, the
// decoding kernel (clamping scalars, masking u: kernels/ecdh_codec.h),
// the ladder (or, for public keys, the comb kernel with its table), the
// inversion kernel when the batch inverts in groups, the encoding kernel,
// and the results' strings back. Device buffers that held scalars,
// secret-derived intermediate values or shared secrets are zeroed by
// commands queued behind their last use, and the batch returns only once
// they have completed.
func (e *Engine) enqueue(ch *engine.Chunk, m *montgomery, b *ladderBatch) error {
	k, err := e.curves[m].get()
	if err != nil {
		return err
	}
	name := m.prefix
	if b.us == nil {
		name += "_base_comb"
	}
	if b.binv > 0 {
		name += "_xz"
	}
	kerns, err := k.prog.Kernels(m.prefix+"_decode", name, m.prefix+"_encode")
	if err != nil {
		return err
	}
	decode, ladder, encode := kerns[0], kerns[1], kerns[2]
	n := b.n
	bytes := 4 * m.limbs() * n
	sm, um := m.scalarMask, m.uMask
	return ch.Run(func(cmds *device.Commands) error {
		// Scalars (raw and decoded), shared secrets, the projective
		// results and the inversion's prefix products are secret;
		// u-coordinates and public keys are not, but are zeroed all the
		// same, so that idle device buffers are all zero (a check anyone
		// can make). Every upload comes before the first kernel, which
		// waits for them.
		dkeys, err := cmds.Upload(b.scal, true)
		if err != nil {
			return err
		}
		var dpeers *device.Buffer
		if b.us != nil {
			if dpeers, err = cmds.Upload(b.us, true); err != nil {
				return err
			}
		}
		dk, err := cmds.Buffer(bytes, true)
		if err != nil {
			return err
		}
		if err := cmds.Launch(decode, n, WorkGroup, dk, dkeys, sm.and0, sm.andTop, sm.orTop, uint32(n)); err != nil {
			return err
		}
		dout, err := cmds.Buffer(bytes, true)
		if err != nil {
			return err
		}
		args := []any{dout, dk} // the ladder writes dout, or dxz with batch inversion
		if b.us != nil {
			du, err := cmds.Buffer(bytes, true)
			if err != nil {
				return err
			}
			if err := cmds.Launch(decode, n, WorkGroup, du, dpeers, um.and0, um.andTop, um.orTop, uint32(n)); err != nil {
				return err
			}
			args = append(args, du)
		} else {
			args = append(args, k.table)
		}
		var dxz *device.Buffer
		if b.binv > 0 {
			if dxz, err = cmds.Buffer(2*bytes, true); err != nil {
				return err
			}
			args[0] = dxz
		}
		if err := cmds.Launch(ladder, n, WorkGroup, append(args, uint32(n))...); err != nil {
			return err
		}
		if b.binv > 0 {
			if err := e.invertBatch(cmds, m, dout, dxz, n, b.binv); err != nil {
				return err
			}
		}
		denc, err := cmds.Buffer(bytes, true)
		if err != nil {
			return err
		}
		if err := cmds.Launch(encode, n, WorkGroup, denc, dout, uint32(n)); err != nil {
			return err
		}
		return cmds.Read(denc, device.Uint32Bytes(b.res))
	})
}

// invertBatch enqueues the batched-inversion kernel of m: dout = X/Z for
// the n elements of dxz (X limb-major, then Z), in groups of at most k.
func (e *Engine) invertBatch(cmds *device.Commands, m *montgomery, dout, dxz *device.Buffer, n, k int) error {
	curve, err := e.curves[m].get()
	if err != nil {
		return err
	}
	kern, err := curve.prog.Kernel(m.prefix + "_invert_batch")
	if err != nil {
		return err
	}
	groups := (n-1)/k + 1 // ceil(n / k), n ≥ 1
	return cmds.Launch(kern, groups, WorkGroup, dout, dxz, uint32(n), uint32(groups))
}

var _ batch.Engine = (*Engine)(nil)
