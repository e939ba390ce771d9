package ecdh

import (
	"fmt"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/cl"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// WorkGroup is the work-group size of the ladder and comb kernels.
const WorkGroup = 128

// Keygen selects the device kernel that computes public keys. PublicKeys
// always uses KeygenComb; TimedPublicKeys runs any of them, so that
// benchmarks can compare them on one device.
type Keygen int

const (
	// KeygenComb is the fixed-base comb (kernels/comb.h) with its table in
	// a global buffer: about a third of the ladder's field operations.
	KeygenComb Keygen = iota
	// KeygenCombConstant is the same comb with the table in constant
	// memory (a second program, built on first use).
	KeygenCombConstant
	// KeygenLadder is the Montgomery ladder from the base point, the
	// kernel that shared secrets use.
	KeygenLadder
)

func (k Keygen) String() string {
	switch k {
	case KeygenComb:
		return "comb"
	case KeygenCombConstant:
		return "comb-constant-table"
	case KeygenLadder:
		return "ladder"
	}
	return fmt.Sprintf("Keygen(%d)", int(k))
}

// Engine computes batches of X25519 and X448 on one OpenCL device. It is
// safe for concurrent use. When the device fails during a batch, the batch
// is recomputed on the CPU and the failure is reported through OnFallback:
// results are never wrong and never missing because of a device fault.
type Engine struct {
	dev   *cl.Device
	progs [2]*cl.Program
	cpu   CPU

	tables  [2]*cl.Buffer  // the comb tables (kernels.CombTable) for progs
	constMu sync.Mutex     // builds of the KeygenCombConstant programs
	consts  [2]*cl.Program // built with -DCOMB_TABLE_CONSTANT, on first use

	mu        sync.Mutex
	fallbacks batch.Fallbacks
	binv      int          // SetBatchInversion: group size, 0 = per element
	failHook  func() error // tests: simulate a device failure
}

// NewEngine builds the X25519 and X448 kernels for dev (nil: cl.Default())
// and uploads the tables of the public-key kernels.
func NewEngine(dev *cl.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = cl.Default(); err != nil {
			return nil, err
		}
	}
	e := &Engine{dev: dev}
	for _, c := range Curves {
		src, err := kernels.Source(kernelFile(c))
		if err != nil {
			return nil, err
		}
		p, err := dev.Program(src, cl.BuildOptions{})
		if err != nil {
			return nil, fmt.Errorf("ecdh: building %s kernels for %s: %w", c, dev.Name, err)
		}
		e.progs[c] = p
		words, err := kernels.CombTable(curveName(c))
		if err != nil {
			return nil, err
		}
		if e.tables[c], err = dev.Upload(cl.Uint32Bytes(words)); err != nil {
			return nil, fmt.Errorf("ecdh: uploading the %s public-key table to %s: %w", c, dev.Name, err)
		}
	}
	return e, nil
}

func kernelFile(c Curve) string {
	if c == X448 {
		return "x448.cl"
	}
	return "x25519.cl"
}

// Device is the engine's device.
func (e *Engine) Device() *cl.Device { return e.dev }

// OnFallback sets the function told about each device failure that sent a
// batch to the CPU (default: log.Print).
func (e *Engine) OnFallback(f func(error)) { e.fallbacks.OnFallback(f) }

// Fallbacks is the number of batches recomputed on the CPU so far.
func (e *Engine) Fallbacks() int { return e.fallbacks.Count() }

func (e *Engine) fellBack(err error) {
	e.fallbacks.Report(fmt.Errorf("ecdh: device %s failed, batch recomputed on the CPU: %w", e.dev.Name, err))
}

// SetBatchInversion chooses how the kernels turn each projective result
// (X : Z) into u = X/Z. With k ≤ 0 (the default) every work-item inverts
// its own Z by Fermat (254 squarings and 11 multiplications for X25519,
// 453 and 13 for X448). With k ≥ 1 the ladder and comb kernels stop at
// (X, Z) and a second kernel inverts the batch in groups of at most k
// elements with one Fermat inversion per group (Montgomery's simultaneous
// inversion, kernels/batch_invert.h): about 4 multiplications plus 1/k of
// an inversion per element, for one more kernel launch and a device buffer
// of 2·Size bytes per element (zeroed after use). k = 1 splits the work
// the same way without sharing anything, which isolates the cost of the
// split. The results are identical either way, low-order peers included
// (each still fails alone with ErrLowOrder). The setting applies to
// SharedSecrets, PublicKeys, Timed and TimedPublicKeys with KeygenComb or
// KeygenCombConstant; KeygenLadder always inverts per element. It may be
// changed while batches run: each batch uses the value it found when it
// reached the device.
func (e *Engine) SetBatchInversion(k int) {
	e.mu.Lock()
	e.binv = max(k, 0)
	e.mu.Unlock()
}

// PublicKeys implements Backend: the public key of each private key.
func (e *Engine) PublicKeys(c Curve, privs [][]byte) ([][]byte, error) {
	out, _, err := e.Timed(c, privs, nil)
	return out, err
}

// TimedPublicKeys is PublicKeys computed by the kernel k that also returns
// the kernel's device time (zero after a CPU fallback; with batch
// inversion, of both kernels together), for benchmarks.
func (e *Engine) TimedPublicKeys(c Curve, privs [][]byte, k Keygen) ([][]byte, time.Duration, error) {
	if err := checkBatch(c, privs, nil, false); err != nil {
		return nil, 0, err
	}
	if k < KeygenComb || k > KeygenLadder {
		return nil, 0, fmt.Errorf("ecdh: unknown public-key kernel %v", k)
	}
	return e.compute(c, privs, nil, k)
}

// SharedSecrets implements Backend: X(privs[i], peers[i]) for each i.
func (e *Engine) SharedSecrets(c Curve, privs, peers [][]byte) ([][]byte, error) {
	if err := checkBatch(c, privs, peers, true); err != nil {
		return nil, err
	}
	out, _, err := e.Timed(c, privs, peers)
	return out, err
}

// Timed is SharedSecrets (or PublicKeys when peers is nil) that also
// returns the device time of the kernel (zero after a CPU fallback), for
// benchmarks; with batch inversion, of both kernels together.
func (e *Engine) Timed(c Curve, privs, peers [][]byte) ([][]byte, time.Duration, error) {
	if err := checkBatch(c, privs, peers, peers != nil); err != nil {
		return nil, 0, err
	}
	return e.compute(c, privs, peers, KeygenComb)
}

// compute validates every element, runs the valid ones on the device (or
// the CPU if the device fails) and applies the all-zero check; public keys
// (peers == nil) are computed by the kernel kg.
func (e *Engine) compute(c Curve, privs, peers [][]byte, kg Keygen) ([][]byte, time.Duration, error) {
	n := len(privs)
	out := make([][]byte, n)
	errs := make([]error, n)
	var idx []int // elements that go to the device
	for i := range privs {
		if err := checkLen(c, "private", privs[i]); err != nil {
			errs[i] = err
		} else if peers != nil {
			if err := checkLen(c, "public", peers[i]); err != nil {
				errs[i] = err
			}
		}
		if errs[i] == nil {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return out, 0, batch.Collect(errs)
	}
	L := c.limbs()
	m := len(idx)
	scal := make([]uint32, L*m)
	defer clear(scal)
	var us []uint32
	if peers != nil {
		us = make([]uint32, L*m)
	}
	batch.Parallel(m, 2048, func(lo, hi int) {
		tmp := make([]uint32, L)
		defer clear(tmp)
		for col := lo; col < hi; col++ {
			i := idx[col]
			decode(c, privs[i], tmp, true)
			for j := range L {
				scal[j*m+col] = tmp[j]
			}
			if peers != nil {
				decode(c, peers[i], tmp, false)
				for j := range L {
					us[j*m+col] = tmp[j]
				}
			}
		}
	})
	res, dur, err := e.run(c, scal, us, m, kg)
	if err != nil {
		e.fellBack(err)
		sub := make([][]byte, m)
		var subPeers [][]byte
		for col, i := range idx {
			sub[col] = privs[i]
			if peers != nil {
				subPeers = append(subPeers, peers[i])
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
			out[i] = vals[col]
			if per != nil {
				errs[i] = per.Errs[col]
			}
		}
		return out, 0, batch.Collect(errs)
	}
	size := c.Size()
	all := make([]byte, m*size) // one allocation for every result
	batch.Parallel(m, 2048, func(lo, hi int) {
		tmp := make([]uint32, L)
		for col := lo; col < hi; col++ {
			i := idx[col]
			v := all[col*size : (col+1)*size : (col+1)*size]
			for j := range L {
				tmp[j] = res[j*m+col]
			}
			limbsLE(tmp, v)
			if peers != nil && isZero(v) {
				errs[i] = ErrLowOrder
				continue
			}
			out[i] = v
		}
	})
	return out, dur, batch.Collect(errs)
}

// run launches the ladder over m limb-major scalars and u-coordinates, or
// the public-key kernel kg when us is nil, and returns the limb-major
// results and the kernels' device time. With batch inversion (and a comb
// or the variable-u ladder) the kernel writes (X, Z) to an intermediate
// buffer and the batched-inversion kernel finishes them. Device buffers
// that held scalars or secret-derived intermediate values are zeroed
// before they are released.
func (e *Engine) run(c Curve, scal, us []uint32, m int, kg Keygen) (_ []uint32, _ time.Duration, err error) {
	e.mu.Lock()
	hook, binv := e.failHook, e.binv
	e.mu.Unlock()
	if hook != nil {
		if err := hook(); err != nil {
			return nil, 0, err
		}
	}
	prog, name := e.progs[c], curveName(c)
	var table *cl.Buffer // KeygenComb: the argument after the scalars
	switch {
	case us != nil:
	case kg == KeygenLadder:
		name += "_base"
		binv = 0
	case kg == KeygenCombConstant:
		if prog, err = e.constantComb(c); err != nil {
			return nil, 0, err
		}
		name += "_base_comb"
	default:
		name += "_base_comb"
		table = e.tables[c]
	}
	if binv > 0 {
		name += "_xz"
	}
	k, err := prog.Kernel(name)
	if err != nil {
		return nil, 0, err
	}
	words := c.limbs() * m
	bufs := e.dev.Buffers()
	defer bufs.Release()
	dk, err := bufs.Upload(cl.Uint32Bytes(scal))
	if err != nil {
		return nil, 0, err
	}
	bufs.Secret(dk)
	dout, err := bufs.New(4 * words)
	if err != nil {
		return nil, 0, err
	}
	dst := dout // where the first kernel writes
	if binv > 0 {
		// the projective results and the inversion's prefix products in
		// dout are secret-derived
		dxz, err := bufs.New(2 * 4 * words)
		if err != nil {
			return nil, 0, err
		}
		bufs.Secret(dxz)
		bufs.Secret(dout)
		dst = dxz
	}
	args := []any{dst, dk}
	if table != nil {
		args = append(args, table)
	}
	if us != nil {
		du, err := bufs.Upload(cl.Uint32Bytes(us))
		if err != nil {
			return nil, 0, err
		}
		args = append(args, du)
	}
	ev, err := k.Launch(m, WorkGroup, append(args, uint32(m))...)
	if err != nil {
		return nil, 0, err
	}
	defer ev.Release()
	var ev2 *cl.Event
	if binv > 0 {
		if ev2, err = e.invertBatch(c, dout, dst, m, binv); err != nil {
			return nil, 0, err
		}
		defer ev2.Release()
	}
	res := make([]uint32, words)
	if err := dout.Read(0, cl.Uint32Bytes(res)); err != nil {
		return nil, 0, err
	}
	dur, err := ev.Duration()
	if err != nil {
		return nil, 0, err
	}
	if ev2 != nil {
		d2, err := ev2.Duration()
		if err != nil {
			return nil, 0, err
		}
		dur += d2
	}
	return res, dur, nil
}

// invertBatch launches the batched-inversion kernel of c: dout = X/Z for
// the m elements of dxz (X limb-major, then Z), in groups of at most k.
func (e *Engine) invertBatch(c Curve, dout, dxz *cl.Buffer, m, k int) (*cl.Event, error) {
	kern, err := e.progs[c].Kernel(curveName(c) + "_invert_batch")
	if err != nil {
		return nil, err
	}
	groups := (m-1)/k + 1 // ceil(m / k), m ≥ 1
	return kern.Launch(groups, WorkGroup, dout, dxz, uint32(m), uint32(groups))
}

func curveName(c Curve) string {
	if c == X448 {
		return "x448"
	}
	return "x25519"
}

// constantComb returns the program built with COMB_TABLE_CONSTANT for c
// (its comb kernel reads the table from constant memory), building it on
// first use.
func (e *Engine) constantComb(c Curve) (*cl.Program, error) {
	e.constMu.Lock()
	defer e.constMu.Unlock()
	if e.consts[c] != nil {
		return e.consts[c], nil
	}
	src, err := kernels.Source(kernelFile(c))
	if err != nil {
		return nil, err
	}
	p, err := e.dev.Program(src, cl.BuildOptions{Defines: map[string]string{"COMB_TABLE_CONSTANT": ""}})
	if err != nil {
		return nil, fmt.Errorf("ecdh: building %s kernels (constant comb table) for %s: %w", c, e.dev.Name, err)
	}
	e.consts[c] = p
	return p, nil
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
