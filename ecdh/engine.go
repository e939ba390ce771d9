package ecdh

import (
	"bytes"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// WorkGroup is the work-group size of the ladder and comb kernels.
const WorkGroup = 128

// Engine computes batches of X25519 and X448 on one device. It is
// safe for concurrent use, and concurrent batches overlap: while the
// device computes one, the host prepares or finishes others (a Server with
// batch.Options.Pipeline ≥ 2 does this). When the device fails during a
// batch, the batch is recomputed on the CPU and the failure is reported
// through OnFallback: results are never wrong and never missing because of
// a device fault.
//
// An Engine keeps the host buffers of up to three finished batches per
// curve and operation, and the device buffers of recent batches (a
// device.Pool), for the next ones, zeroed where they held secrets;
// ReleaseBuffers frees them.
type Engine struct {
	dev   *device.Device
	progs [2]*device.Program
	cpu   CPU

	tables [2]*device.Buffer // the comb tables (kernels.CombTable) for progs

	slots  slotPool       // host buffers of finished batches
	pool   *device.Pool   // device buffers
	stages *device.Stages // upload, kernel and read-back queues

	cpuBelow   atomic.Int64 // SetCPUBelow
	checkEvery atomic.Int64 // SetResultCheck
	kernelNs   atomic.Int64 // device time of every kernel run so far

	mu        sync.Mutex
	fallbacks batch.Fallbacks
	binv      int                                             // SetBatchInversion: group size, 0 = per element, BatchInversionAuto
	failHook  func() error                                    // tests: simulate a device failure
	stub      func(c Curve, binv int, scal, us, res []uint32) // tests: the device step on the host
}

// bufferIdle is how long an Engine keeps the device buffers of its last
// batches for the next ones.
const bufferIdle = 10 * time.Second

// NewEngine builds the X25519 and X448 kernels for dev (nil:
// device.Default()) and uploads the tables of the public-key kernels.
func NewEngine(dev *device.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	e := &Engine{dev: dev, binv: BatchInversionAuto, pool: dev.NewPool(bufferIdle), slots: slotPool{dev: dev}}
	var err error
	if e.stages, err = dev.NewStages(); err != nil {
		return nil, fmt.Errorf("ecdh: making the queues of %s: %w", dev.Name, err)
	}
	for _, c := range Curves {
		p, err := dev.Program(kernels.Program(kernelFile(c), ProgramDefines(dev, c)))
		if err != nil {
			return nil, fmt.Errorf("ecdh: building %s kernels for %s: %w", c, dev.Name, err)
		}
		e.progs[c] = p
		words, err := kernels.CombTable(curveName(c))
		if err != nil {
			return nil, err
		}
		if e.tables[c], err = dev.Upload(device.Uint32Bytes(words)); err != nil {
			return nil, fmt.Errorf("ecdh: uploading the %s public-key table to %s: %w", c, dev.Name, err)
		}
	}
	return e, nil
}

// programDefines are the -D options of each curve's program (tests and
// benchmarks of kernel forms set them; none: ProgramDefines' defaults).
var programDefines map[Curve]map[string]string

// ProgramDefines are the -D options c's program is built with on dev: on
// GPUs with fast double precision (device.Info.FastFP64) the X25519
// ladder runs on doubles (LADDER_FP64, kernels/fe25519_fp64.h: 5 digits of
// 51 bits, a digit product in three fp64 instructions), elsewhere, and
// for X448, on 32-bit limbs.
func ProgramDefines(dev *device.Device, c Curve) map[string]string {
	if d, ok := programDefines[c]; ok {
		return d
	}
	if c == X25519 && dev.FastFP64 {
		return map[string]string{"LADDER_FP64": "1"}
	}
	return nil
}

func kernelFile(c Curve) string {
	if c == X448 {
		return "x448.cl"
	}
	return "x25519.cl"
}

// Device is the engine's device.
func (e *Engine) Device() *device.Device { return e.dev }

// DeviceTime is the device time of every kernel the engine has run so far
// (batches on the CPU add nothing): benchmarks divide work by it.
func (e *Engine) DeviceTime() time.Duration { return time.Duration(e.kernelNs.Load()) }

// OnFallback sets the function told about each device failure that sent a
// batch to the CPU (default: log.Print).
func (e *Engine) OnFallback(f func(error)) { e.fallbacks.OnFallback(f) }

// Fallbacks is the number of batches recomputed on the CPU so far.
func (e *Engine) Fallbacks() int { return e.fallbacks.Count() }

func (e *Engine) fellBack(err error) {
	e.fallbacks.Report(fmt.Errorf("ecdh: device %s failed, batch recomputed on the CPU: %w", e.dev.Name, err))
}

// SetCPUBelow sends batches of fewer than n elements to the CPU backend
// (CPU: circl on all cores, constant-time) instead of the device; 0, the
// default, sends every batch to the device. A device batch has a floor of
// latency (uploads, a kernel launch, the ladder's length, read-back) that
// a few elements on the CPU cores beat: set n to where the two cross on
// your machine (gpucrypto bench --batch 1,16,64,256 shows both). Such
// batches are not fallbacks: OnFallback is not told.
func (e *Engine) SetCPUBelow(n int) { e.cpuBelow.Store(int64(max(n, 0))) }

// CPUBelow is the setting of SetCPUBelow.
func (e *Engine) CPUBelow() int { return int(e.cpuBelow.Load()) }

// BatchInversionAuto, given to SetBatchInversion, restores the default
// rule for the batch inversion group size (see SetBatchInversion).
const BatchInversionAuto = -1

// The default rule of SetBatchInversion: groups of autoBinvGroup elements
// from autoBinvMin elements per batch (autoBinvMinX448 for X448 shared
// secrets), per-element inversion below.
const (
	autoBinvGroup   = 16
	autoBinvMin     = 131072
	autoBinvMinX448 = 262144
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
// from 262144 elements, per element below. The rule comes from an NVIDIA
// H100 (kernel ops/s, per-element inversion vs k = 16):
//
//	                    batch 131072       batch 524288
//	X25519 shared       24.5M vs 26.2M     27.0M vs 30.1M
//	X25519 public keys  69.5M vs 87.6M     70.8M vs 98M
//	X448 shared         4.60M vs 4.35M     4.64M vs 4.95M
//	X448 public keys    10.5M vs 13.9M     11.5M vs 15.8M
//
// Small batches fill the device with too few groups for the second kernel
// to pay for its launch. BatchInversionGroup says what a batch will use.
//
// The setting applies to SharedSecrets and PublicKeys. It may be changed
// while batches run: each batch uses the value it found when it reached
// the device.
func (e *Engine) SetBatchInversion(k int) {
	e.mu.Lock()
	e.binv = max(k, BatchInversionAuto)
	e.mu.Unlock()
}

// BatchInversionGroup is the batch inversion group size (0: per-element
// inversion) that a batch of n shared secrets (shared) or comb public keys
// on c uses with the current SetBatchInversion setting.
func (e *Engine) BatchInversionGroup(c Curve, shared bool, n int) int {
	e.mu.Lock()
	k := e.binv
	e.mu.Unlock()
	return binvGroup(k, c, shared, n)
}

// binvGroup resolves the setting k (SetBatchInversion) for a batch.
func binvGroup(k int, c Curve, shared bool, n int) int {
	if k >= 0 {
		return k
	}
	least := autoBinvMin
	if c == X448 && shared {
		least = autoBinvMinX448
	}
	if n >= least {
		return autoBinvGroup
	}
	return 0
}

// ReleaseBuffers frees the host and device buffers that e keeps from
// finished batches (they are zero where they held secrets). Batches that
// run meanwhile are not affected; later ones allocate again.
func (e *Engine) ReleaseBuffers() {
	e.slots.drain()
	e.pool.Drain()
}

// PublicKeys implements Backend: the public key of each private key.
func (e *Engine) PublicKeys(c Curve, privs [][]byte) ([][]byte, error) {
	if err := checkBatch(c, privs, nil, false); err != nil {
		return nil, err
	}
	return e.allocating(c, privs, nil)
}

// SharedSecrets implements Backend: X(privs[i], peers[i]) for each i.
func (e *Engine) SharedSecrets(c Curve, privs, peers [][]byte) ([][]byte, error) {
	if err := checkBatch(c, privs, peers, true); err != nil {
		return nil, err
	}
	return e.allocating(c, privs, peers)
}

// PublicKeysInto is PublicKeys writing the public key of privs[i] into
// out[i], a string of c.Size() bytes that the caller owns: a caller that
// reuses its strings from call to call allocates nothing per element, and
// large calls leave no garbage behind them. An element that fails has its
// error in the returned *batch.Error and out[i] set to zeros; an out[i]
// of the wrong length fails its element (ErrKeyLength).
func (e *Engine) PublicKeysInto(c Curve, privs, out [][]byte) error {
	if err := checkBatch(c, privs, nil, false); err != nil {
		return err
	}
	if len(out) != len(privs) {
		return fmt.Errorf("ecdh: %d private keys but %d outputs", len(privs), len(out))
	}
	return e.compute(c, privs, nil, out)
}

// SharedSecretsInto is SharedSecrets writing X(privs[i], peers[i]) into
// out[i], as PublicKeysInto does.
func (e *Engine) SharedSecretsInto(c Curve, privs, peers, out [][]byte) error {
	if err := checkBatch(c, privs, peers, true); err != nil {
		return err
	}
	if len(out) != len(privs) {
		return fmt.Errorf("ecdh: %d private keys but %d outputs", len(privs), len(out))
	}
	return e.compute(c, privs, peers, out)
}

// allocating is compute into new strings (resultStrings), the failed
// elements' set to nil.
func (e *Engine) allocating(c Curve, privs, peers [][]byte) ([][]byte, error) {
	out := resultStrings(c, len(privs))
	err := e.compute(c, privs, peers, out)
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

// resultStrings returns n strings of c.Size() bytes, one allocation per
// core.
func resultStrings(c Curve, n int) [][]byte {
	size := c.Size()
	out := make([][]byte, n)
	batch.Parallel(n, hostChunk, func(lo, hi int) {
		slab := make([]byte, (hi-lo)*size)
		for i := lo; i < hi; i++ {
			out[i] = slab[(i-lo)*size : (i-lo+1)*size : (i-lo+1)*size]
		}
	})
	return out
}

// compute checks and decodes every element, runs the batch on the device
// (or the CPU if the device fails), applies the all-zero check and writes
// the results into out (c.Size() bytes each, zeros for a failed element);
// public keys (peers == nil) are computed by the comb kernel. Elements
// that fail the checks go to the device as a dummy key, so the device
// batch keeps the caller's layout.
//
// A batch of more than pipelineChunk elements runs as chunks of about
// equal size, pipelineDepth at once (see pipelineChunk).
func (e *Engine) compute(c Curve, privs, peers, out [][]byte) error {
	n := len(privs)
	if n == 0 {
		return nil
	}
	if int64(n) < e.cpuBelow.Load() {
		return e.onCPU(c, privs, peers, nil, out)
	}
	if n <= pipelineChunk {
		return e.computeChunk(c, privs, peers, out)
	}
	var mu sync.Mutex
	var errs []error // made at the first failed element: most calls have none
	err := batch.Chunks(n, batch.EvenChunk(n, pipelineChunk), pipelineDepth, func(lo, hi int) error {
		var chunkPeers [][]byte
		if peers != nil {
			chunkPeers = peers[lo:hi]
		}
		err := e.computeChunk(c, privs[lo:hi], chunkPeers, out[lo:hi])
		if per, ok := err.(*batch.Error); ok {
			mu.Lock()
			if errs == nil {
				errs = make([]error, n)
			}
			copy(errs[lo:hi], per.Errs)
			mu.Unlock()
		} else if err != nil {
			return err
		}
		return nil
	})
	if err != nil || errs == nil {
		return err
	}
	return batch.Collect(errs)
}

// A batch larger than pipelineChunk elements runs as chunks of about equal
// size, at most pipelineChunk each, pipelineDepth at once: while the
// device computes one chunk, the host decodes the next and encodes the
// previous one, so one large call keeps the device as busy as pipelined
// callers. 262,144 is a size where the kernels are near their best on an
// H100 (X25519 shared secrets 29.4M/s with batch inversion, X448 from
// there on too: see SetBatchInversion and docs/BENCHMARKS.md).
var pipelineChunk = 1 << 18 // a variable for the tests

const pipelineDepth = 2

// SetResultCheck makes the engine recompute about one device result in
// every on the CPU (crypto/ecdh, circl) and compare (0, the default: no
// check). A device that returns a wrong result (bad memory, a driver or
// compiler fault) is then caught: the whole batch is recomputed on the CPU
// and the fault reported through OnFallback, as a failed device batch is.
// The check costs 1/every of what the CPU would spend on the whole work:
// with an H100 at 28M X25519 shared secrets per second, every = 10,000
// keeps about 2.5% of a 16-core host busy (ecdh.CPU does about 110K/s
// there). The first result of each batch is always checked when the check
// is on.
func (e *Engine) SetResultCheck(every int) { e.checkEvery.Store(int64(max(every, 0))) }

// checkResults recomputes a sample of the results out (SetResultCheck) on
// the CPU and returns an error naming the first that differs.
func (e *Engine) checkResults(c Curve, privs, peers, out [][]byte, errs []error) error {
	every := e.checkEvery.Load()
	if every <= 0 {
		return nil
	}
	var idx []int
	for i := range out {
		if (errs == nil || errs[i] == nil) && (len(idx) == 0 || mrand.Int64N(every) == 0) {
			idx = append(idx, i)
		}
	}
	var bad atomic.Int64
	bad.Store(-1)
	batch.Parallel(len(idx), 1, func(lo, hi int) {
		for _, i := range idx[lo:hi] {
			var want [][]byte
			var err error
			if peers == nil {
				want, err = e.cpu.PublicKeys(c, privs[i:i+1])
			} else {
				want, err = e.cpu.SharedSecrets(c, privs[i:i+1], peers[i:i+1])
			}
			if err != nil || !bytes.Equal(want[0], out[i]) {
				bad.Store(int64(i))
			}
		}
	})
	if i := bad.Load(); i >= 0 {
		return fmt.Errorf("ecdh: %s: the device's result of element %d differs from the CPU's (result check)", c, i)
	}
	return nil
}

// computeChunk is compute for a batch of at most pipelineChunk elements
// (or any size: it does not cut).
func (e *Engine) computeChunk(c Curve, privs, peers, out [][]byte) error {
	n := len(privs)
	shared := peers != nil
	s := e.slots.get(c, shared, n)
	defer e.slots.put(s)
	w := c.limbs() * n
	var us []uint32
	if shared {
		us = s.us[:w]
	}
	s.dirty = w
	errs := prepare(c, privs, peers, out, s.scal[:w], us)
	if errs.bad == n {
		return batch.Collect(errs.errs)
	}
	dur, err := e.run(c, s, n)
	if err != nil {
		e.fellBack(err)
		return e.onCPU(c, privs, peers, errs.errs, out)
	}
	e.kernelNs.Add(int64(dur))
	finish(c, s.res[:w], shared, errs, out)
	if err := e.checkResults(c, privs, peers, out, errs.errs); err != nil {
		e.fellBack(err)
		return e.onCPU(c, privs, peers, nil, out) // all of it: the device's low-order verdicts too
	}
	return batch.Collect(errs.errs)
}

// onCPU computes the elements without an error in errs (nil: none has
// one) on the CPU into out, after a device failure or for a batch below
// SetCPUBelow.
func (e *Engine) onCPU(c Curve, privs, peers [][]byte, errs []error, out [][]byte) error {
	n := len(privs)
	if errs == nil {
		errs = make([]error, n)
		for i := range n {
			errs[i] = checkLen(c, "output", out[i])
		}
	}
	var idx []int
	var sub, subPeers [][]byte
	for i := range n {
		if errs[i] == nil {
			idx = append(idx, i)
			sub = append(sub, privs[i])
			if peers != nil {
				subPeers = append(subPeers, peers[i])
			}
		}
	}
	var vals [][]byte
	var cerr error
	if peers == nil {
		vals, cerr = e.cpu.PublicKeys(c, sub)
	} else {
		vals, cerr = e.cpu.SharedSecrets(c, sub, subPeers)
	}
	per, _ := cerr.(*batch.Error)
	for col, i := range idx {
		if per != nil && per.Errs[col] != nil {
			errs[i] = per.Errs[col]
			clear(out[i])
			continue
		}
		copy(out[i], vals[col])
		clear(vals[col])
	}
	return batch.Collect(errs)
}

// run computes the n elements of slot s on the device: the ladder over the
// limb-major scalars and u-coordinates, or the comb kernel when s has no
// u-coordinates. The results land in s.res; the kernels' device time is
// returned. With batch inversion the first kernel writes (X, Z) to an
// intermediate buffer and the batched-inversion kernel finishes them.
//
// The commands of the batch are enqueued together and without waiting
// (uploads, kernels, read-back, zeroing), so the only wait is for the
// results; the host scalars are cleared while the kernels run. Device
// buffers that held scalars, secret-derived intermediate values or shared
// secrets are zeroed by commands queued behind their last use (the
// lease's), and the batch returns only once they have completed.
func (e *Engine) run(c Curve, s *slot, n int) (time.Duration, error) {
	e.mu.Lock()
	hook, stub, binv := e.failHook, e.stub, binvGroup(e.binv, c, s.shared, n)
	e.mu.Unlock()
	if hook != nil {
		if err := hook(); err != nil {
			return 0, err
		}
	}
	if stub != nil {
		// the stub sees what the device's kernels see: limb-major rows,
		// decoded (kernels/ecdh_codec.h, here on the host)
		w := c.limbs() * n
		sm, um := masks(c)
		scal, res := make([]uint32, w), make([]uint32, w)
		decodeRows(c, s.scal[:w], sm, scal, n)
		var us []uint32
		if s.shared {
			us = make([]uint32, w)
			decodeRows(c, s.us[:w], um, us, n)
		}
		s.clearScalars()
		stub(c, binv, scal, us, res)
		clear(scal)
		encodeRows(c, res, s.res[:w], n)
		clear(res)
		return 0, nil
	}
	name := curveName(c)
	if !s.shared {
		name += "_base_comb"
	}
	if binv > 0 {
		name += "_xz"
	}
	k, err := e.progs[c].Kernel(name)
	if err != nil {
		return 0, err
	}
	return e.stages.Run(e.pool, func(cmds *device.Commands) error {
		cmds.Uploaded = s.clearScalars // while the kernels run
		return e.enqueue(cmds, s, n, k, binv)
	})
}

// enqueue enqueues the batch in s (n elements) on the engine's stages
// (device.Stages: the uploads overlap the kernels of the batch before,
// the read-back those of the next): the keys' byte strings up, the
// decoding kernel (clamping scalars, masking u: kernels/ecdh_codec.h), the
// kernel k (with the comb table when s has no u-coordinates), the
// inversion kernel when binv > 0, the encoding kernel, and the results'
// strings back. Stages.Run zeroes the device buffers behind it.
func (e *Engine) enqueue(cmds *device.Commands, s *slot, n int, k *device.Kernel, binv int) error {
	c := s.c
	words := c.limbs() * n
	bytes := 4 * words
	name := curveName(c)
	codec, err := e.progs[c].Kernels(name+"_decode", name+"_encode")
	if err != nil {
		return err
	}
	decode, encode := codec[0], codec[1]
	sm, um := masks(c)
	// Scalars (raw and decoded), shared secrets, the projective results
	// and the inversion's prefix products are secret; u-coordinates and
	// public keys are not, but are zeroed all the same, so that idle device
	// buffers are all zero (a check anyone can make). Every upload comes
	// before the first kernel, which waits for them.
	dkeys, err := cmds.Upload(s.scal[:words], true)
	if err != nil {
		return err
	}
	var dpeers *device.Buffer
	if s.shared {
		if dpeers, err = cmds.Upload(s.us[:words], true); err != nil {
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
	args := []any{dout, dk} // the first kernel writes dout, or dxz with batch inversion
	if s.shared {
		du, err := cmds.Buffer(bytes, true)
		if err != nil {
			return err
		}
		if err := cmds.Launch(decode, n, WorkGroup, du, dpeers, um.and0, um.andTop, um.orTop, uint32(n)); err != nil {
			return err
		}
		args = append(args, du)
	} else {
		args = append(args, e.tables[c])
	}
	var dxz *device.Buffer
	if binv > 0 {
		if dxz, err = cmds.Buffer(2*bytes, true); err != nil {
			return err
		}
		args[0] = dxz
	}
	if err := cmds.Launch(k, n, WorkGroup, append(args, uint32(n))...); err != nil {
		return err
	}
	if binv > 0 {
		if err := e.invertBatch(cmds, c, dout, dxz, n, binv); err != nil {
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
	return cmds.Read(denc, device.Uint32Bytes(s.res[:words]))
}

// invertBatch enqueues the batched-inversion kernel of c: dout = X/Z for
// the m elements of dxz (X limb-major, then Z), in groups of at most k.
func (e *Engine) invertBatch(cmds *device.Commands, c Curve, dout, dxz *device.Buffer, m, k int) error {
	kern, err := e.progs[c].Kernel(curveName(c) + "_invert_batch")
	if err != nil {
		return err
	}
	groups := (m-1)/k + 1 // ceil(m / k), m ≥ 1
	return cmds.Launch(kern, groups, WorkGroup, dout, dxz, uint32(m), uint32(groups))
}

func curveName(c Curve) string {
	if c == X448 {
		return "x448"
	}
	return "x25519"
}

// Auto returns an Engine on the default device, or the CPU backend when no
// device can be used; note then says why (it is nil when a device was found).
func Auto() (b Backend, note error) {
	e, err := NewEngine(nil)
	if err != nil {
		return CPU{}, fmt.Errorf("ecdh: using the CPU: %w", err)
	}
	return e, nil
}
