package ecdh

// Experimental: X25519 and X448 shared secrets computed by LANES = 2 or 4
// work-items per scalar multiplication (kernels/x25519_mt.cl, design in
// kernels/ladder_mt.h), so that the multi-thread split can be measured
// against the Engine's one-work-item ladder (BenchmarkMT), with the final
// inversion per element or shared by groups (the batched inversion kernel
// of x25519.cl / x448.cl). Nothing else uses it; it has no CPU fallback.

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/cl"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// mtWorkGroup is LANES_WG: the work-group size the multi-lane kernel is
// built for and launched with.
const mtWorkGroup = 128

// mtLaneCounts are the lane counts the multi-lane kernel exists for.
var mtLaneCounts = []int{2, 4}

// mtLadder is the multi-lane variable-base ladder of one curve and lane
// count, built for one device.
type mtLadder struct {
	dev    *cl.Device
	c      Curve
	lanes  int
	prog   *cl.Program
	kern   *cl.Kernel // x25519_mt / x448_mt
	kernXZ *cl.Kernel // the same without the inversion

	invOnce sync.Once
	inv     *cl.Kernel // the batched inversion kernel of x25519.cl / x448.cl
	invErr  error
}

// mtBuildOptions are the definitions x25519_mt.cl is built with.
func mtBuildOptions(c Curve, lanes int) cl.BuildOptions {
	defs := map[string]string{"LANES": strconv.Itoa(lanes), "LANES_WG": strconv.Itoa(mtWorkGroup)}
	if c == X448 {
		defs["XMT_X448"] = ""
	}
	return cl.BuildOptions{Defines: defs}
}

// newMTLadder builds the multi-lane kernel of c with the given lanes per
// scalar multiplication (2 or 4) for dev; extra flags (e.g.
// -cl-nv-verbose) are passed to the compiler.
func newMTLadder(dev *cl.Device, c Curve, lanes int, flags ...string) (*mtLadder, error) {
	if err := c.valid(); err != nil {
		return nil, err
	}
	if !slices.Contains(mtLaneCounts, lanes) {
		return nil, fmt.Errorf("ecdh: multi-lane ladder: %d lanes per operation, want 2 or 4", lanes)
	}
	if dev.MaxWorkGroup < mtWorkGroup {
		return nil, fmt.Errorf("ecdh: multi-lane ladder: %s allows work-groups of %d, the kernel needs %d", dev.Name, dev.MaxWorkGroup, mtWorkGroup)
	}
	src, err := kernels.Source("x25519_mt.cl")
	if err != nil {
		return nil, err
	}
	opts := mtBuildOptions(c, lanes)
	opts.Flags = flags
	p, err := dev.Program(src, opts)
	if err != nil {
		return nil, fmt.Errorf("ecdh: building the %d-lane %s ladder for %s: %w", lanes, c, dev.Name, err)
	}
	m := &mtLadder{dev: dev, c: c, lanes: lanes, prog: p}
	if m.kern, err = p.Kernel(curveName(c) + "_mt"); err != nil {
		return nil, err
	}
	if m.kernXZ, err = p.Kernel(curveName(c) + "_mt_xz"); err != nil {
		return nil, err
	}
	return m, nil
}

// invertKernel returns the batched-inversion kernel of the curve's
// one-work-item program (the Engine's program when an Engine on the same
// device built it already: the device keeps built programs).
func (m *mtLadder) invertKernel() (*cl.Kernel, error) {
	m.invOnce.Do(func() {
		src, err := kernels.Source(kernelFile(m.c))
		if err != nil {
			m.invErr = err
			return
		}
		p, err := m.dev.Program(src, cl.BuildOptions{})
		if err != nil {
			m.invErr = fmt.Errorf("ecdh: building %s kernels for %s: %w", m.c, m.dev.Name, err)
			return
		}
		m.inv, m.invErr = p.Kernel(curveName(m.c) + "_invert_batch")
	})
	return m.inv, m.invErr
}

// sharedSecrets is Engine.Timed for the multi-lane kernel: X(privs[i],
// peers[i]) for each i, per-element errors (ErrKeyLength, ErrLowOrder) in
// a *batch.Error, and the device time of the kernels. binv is the batch
// inversion group size as in Engine.SetBatchInversion (0: each element
// inverted by its own lanes; k ≥ 1: the ladder stops at (X : Z) and the
// batched inversion kernel inverts groups of at most k).
func (m *mtLadder) sharedSecrets(privs, peers [][]byte, binv int) ([][]byte, time.Duration, error) {
	c := m.c
	if err := checkBatch(c, privs, peers, true); err != nil {
		return nil, 0, err
	}
	// the Engine's host passes (host.go): a failed element runs as the
	// all-zero key and its result is discarded
	n, w := len(privs), c.limbs()*len(privs)
	scal, us := make([]uint32, w), make([]uint32, w)
	defer clear(scal)
	errs := prepare(c, privs, peers, scal, us)
	if errs.bad == n {
		return make([][]byte, n), 0, batch.Collect(errs.errs)
	}
	res, dur, err := m.run(scal, us, n, binv)
	if err != nil {
		return nil, 0, err
	}
	out := finish(c, res, n, true, errs)
	return out, dur, batch.Collect(errs.errs)
}

// run launches the kernel over n limb-major clamped scalars and masked
// u-coordinates: LANES work-items per element, the global size rounded up
// to whole work-groups; with binv ≥ 1 the kernel that stops at (X : Z) and
// then the batched inversion in groups of at most binv. It returns the
// limb-major results and the kernels' device time. Buffers that held
// scalars or secret-derived values are zeroed before release.
func (m *mtLadder) run(scal, us []uint32, n, binv int) ([]uint32, time.Duration, error) {
	if n <= 0 || len(scal) != m.c.limbs()*n || len(us) != len(scal) {
		return nil, 0, fmt.Errorf("ecdh: multi-lane ladder: %d scalar and %d u words for %d elements", len(scal), len(us), n)
	}
	var inv *cl.Kernel
	if binv > 0 {
		var err error
		if inv, err = m.invertKernel(); err != nil {
			return nil, 0, err
		}
	}
	bufs := m.dev.Buffers()
	defer bufs.Release()
	dk, err := bufs.Upload(cl.Uint32Bytes(scal))
	if err != nil {
		return nil, 0, err
	}
	bufs.Secret(dk)
	du, err := bufs.Upload(cl.Uint32Bytes(us))
	if err != nil {
		return nil, 0, err
	}
	dout, err := bufs.New(4 * len(scal))
	if err != nil {
		return nil, 0, err
	}
	bufs.Secret(dout)
	kern, dst := m.kern, dout
	if inv != nil {
		if dst, err = bufs.New(2 * 4 * len(scal)); err != nil {
			return nil, 0, err
		}
		bufs.Secret(dst)
		kern = m.kernXZ
	}
	global := (n*m.lanes + mtWorkGroup - 1) / mtWorkGroup * mtWorkGroup
	// the last argument is the lanes.h scratch: a word of local memory
	// per work-item (kernels/ladder_mt.h says why it is an argument)
	ev, err := kern.Launch(global, mtWorkGroup, dst, dk, du, uint32(n), cl.Local(4*mtWorkGroup))
	if err != nil {
		return nil, 0, err
	}
	defer ev.Release()
	evs := []*cl.Event{ev}
	if inv != nil {
		groups := (n-1)/binv + 1
		ev2, err := inv.Launch(groups, WorkGroup, dout, dst, uint32(n), uint32(groups))
		if err != nil {
			return nil, 0, err
		}
		defer ev2.Release()
		evs = append(evs, ev2)
	}
	res := make([]uint32, len(scal))
	if err := dout.Read(0, cl.Uint32Bytes(res)); err != nil {
		return nil, 0, err
	}
	var dur time.Duration
	for _, e := range evs {
		d, err := e.Duration()
		if err != nil {
			return nil, 0, err
		}
		dur += d
	}
	return res, dur, nil
}
