package rsa

import (
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/cl"
)

// deviceBackend computes the RSA primitives on an OpenCL device.
//
// Private operations: both CRT halves x^dp mod p and x^dq mod q run as one
// batch of the modexp kernel (two work-items per element, fixed windows,
// table entries read by masked scans: no branch and no memory index depends
// on the key), then rsa_combine does Garner's recombination and checks
// m^e mod n == x on the device; a failed check returns no value (ErrFault).
// The host also recomputes a sample of results with math/big; a device
// whose checked result disagrees fails the whole call (the Engine then
// recomputes on the CPU). Device buffers that held key material or
// results are zeroed before release.
type deviceBackend struct {
	dev *cl.Device
	ar  *arith.Engine
	cfg arith.MontConfig

	// fault (tests): the element of the next private batch whose mp is
	// corrupted before recombination; -1 for none.
	fault atomic.Int64

	kernelNs atomic.Int64 // device time of every kernel run so far

	mu    sync.Mutex
	progs map[string]*cl.Program
}

// hostCheckEvery is the sampling period of the host's own check of device
// results (the first element of every batch is always checked).
const hostCheckEvery = 256

// rsaWorkGroup is the work-group size of the rsa.cl kernels.
const rsaWorkGroup = 64

// newDeviceBackend returns the OpenCL backend for dev.
func newDeviceBackend(dev *cl.Device) (backend, error) {
	ar, err := arith.NewEngine(dev)
	if err != nil {
		return nil, err
	}
	b := &deviceBackend{dev: dev, ar: ar, progs: map[string]*cl.Program{}}
	b.fault.Store(-1)
	return b, nil
}

func (b *deviceBackend) String() string { return "device " + b.dev.Name }

// DeviceTime is the device time of every kernel the engine has run so far
// (zero on a CPU engine): benchmarks divide work by it.
func (e *Engine) DeviceTime() time.Duration {
	if d, ok := e.be.(*deviceBackend); ok {
		return time.Duration(d.kernelNs.Load())
	}
	return 0
}

// widths resolves the Montgomery forms of a CRT half of half limbs (the
// configured variant) and of the modulus of limbs limbs (CIOS, rows kept as
// a loop: only the public exponent runs at that width).
func (b *deviceBackend) widths(half, limbs int) (mh, mf arith.Mont, err error) {
	if half > 0 {
		if mh, err = b.cfg.Resolve(half); err != nil {
			return
		}
	}
	fc := b.cfg
	fc.Variant, fc.Rows = arith.CIOS, -1
	if half > 0 { // MONT_FINAL_SUB is one setting for the whole program
		fc.Form = arith.NoFinalSub
		if mh.FinalSub {
			fc.Form = arith.FinalSub
		}
	}
	mf, err = fc.Resolve(limbs)
	if half == 0 {
		mh = mf
	}
	return
}

// program returns rsa.cl built for the half form mh and full width mf.
func (b *deviceBackend) program(mh, mf arith.Mont, private bool) (*cl.Program, error) {
	key := fmt.Sprintf("%s/%d/%s/%d/%v", mh, mh.W, mf, mf.W, private)
	b.mu.Lock()
	defer b.mu.Unlock()
	if p, ok := b.progs[key]; ok {
		return p, nil
	}
	mc, extra := rsaBuild(mh, mf, private)
	p, err := mc.Program(b.dev, "rsa.cl", extra)
	if err != nil {
		return nil, err
	}
	b.progs[key] = p
	return p, nil
}

// rsaBuild is how rsa.cl is built for halves of form mh and a modulus of
// form mf: the Montgomery form of the program and the extra -D options.
// rsa_combine makes three products at the half width: CIOS with the rows
// kept as a loop is small code, whatever form the exponentiations use (the
// same width and reduction form, so the halves fit).
func rsaBuild(mh, mf arith.Mont, private bool) (arith.Mont, map[string]string) {
	extra := map[string]string{"RSA_FW": fmt.Sprint(mf.W), fmt.Sprintf("MONT_WANT_%d", mf.W): ""}
	if private {
		extra["RSA_PRIVATE"] = ""
	}
	mc := mh
	mc.Variant, mc.Sqr, mc.Unroll = arith.CIOS, false, false
	return mc, extra
}

// KernelBuild is the build of rsa.cl for the private operations of
// keyBits-bit keys with the default configuration: its -D options (for
// tools such as gpucrypto kernelinfo) and a description.
func KernelBuild(keyBits int) (defines map[string]string, desc string, err error) {
	half, ok := sizeClass((keyBits + 1) / 2)
	full, ok2 := sizeClass(keyBits)
	if !ok || !ok2 {
		return nil, "", fmt.Errorf("rsa: no kernels for %d-bit keys", keyBits)
	}
	mh, mf, err := (&deviceBackend{}).widths(half, full)
	if err != nil {
		return nil, "", err
	}
	mc, extra := rsaBuild(mh, mf, true)
	defs := mc.Defines()
	for k, v := range extra {
		defs[k] = v
	}
	return defs, fmt.Sprintf("RSA-%d (halves %s, modulus %s)", keyBits, mc, mf), nil
}

// devKey is the device form of one private key at given widths.
type devKey struct {
	p, q, n    *arith.Constants // p, q at the half width; n at the full width
	dp, dq     []uint32         // half.N words
	qinv       []uint32         // half.W words
	e          uint32
	prepareErr error
}

func (b *deviceBackend) privKeyFor(k *privKey, mh, mf arith.Mont) (*devKey, error) {
	ck := fmt.Sprintf("%p/%s/%d/%d", b, mh, mh.W, mf.W)
	if v, ok := k.cache.Load(ck); ok {
		d := v.(*devKey)
		return d, d.prepareErr
	}
	d := &devKey{e: uint32(k.pub.e)}
	d.prepareErr = func() (err error) {
		if d.p, err = arith.NewConstants(k.p, mh.W); err != nil {
			return err
		}
		if d.q, err = arith.NewConstants(k.q, mh.W); err != nil {
			return err
		}
		if d.n, err = arith.NewConstants(k.pub.n, mf.W); err != nil {
			return err
		}
		if d.dp, err = arith.ToLimbs(k.dp, mh.N); err != nil {
			return err
		}
		if d.dq, err = arith.ToLimbs(k.dq, mh.N); err != nil {
			return err
		}
		d.qinv, err = arith.ToLimbs(k.qinv, mh.W)
		return err
	}()
	if d.prepareErr != nil {
		d.prepareErr = fmt.Errorf("%w: %v", ErrInvalidKey, d.prepareErr)
	}
	v, _ := k.cache.LoadOrStore(ck, d)
	d = v.(*devKey)
	return d, d.prepareErr
}

func (b *deviceBackend) private(keys []*privKey, in []*big.Int) ([]*big.Int, error) {
	if len(keys) != len(in) {
		return nil, fmt.Errorf("rsa: %d keys for %d inputs", len(keys), len(in))
	}
	out := make([]*big.Int, len(in))
	errs := make([]error, len(in))
	groups := map[[2]int][]int{}
	for i, k := range keys {
		if k == nil {
			errs[i] = errors.New("rsa: nil key")
			continue
		}
		if err := checkInput(k.pub, in[i]); err != nil {
			errs[i] = err
			continue
		}
		g := [2]int{k.half, k.pub.limbs}
		groups[g] = append(groups[g], i)
	}
	for g, idx := range groups {
		if err := b.privateGroup(g[0], g[1], idx, keys, in, out, errs); err != nil {
			return nil, err
		}
	}
	return out, batch.Collect(errs)
}

// privateGroup computes the elements idx, whose keys share the half and
// full widths.
func (b *deviceBackend) privateGroup(half, limbs int, idx []int, keys []*privKey, in, out []*big.Int, errs []error) error {
	mh, mf, err := b.widths(half, limbs)
	if err != nil {
		return err
	}
	// unique keys of the group, in order of first use
	kpos := map[*privKey]uint32{}
	var dks []*devKey
	var live []int
	for _, i := range idx {
		if _, ok := kpos[keys[i]]; ok {
			live = append(live, i)
			continue
		}
		dk, err := b.privKeyFor(keys[i], mh, mf)
		if err != nil {
			errs[i] = err
			continue
		}
		kpos[keys[i]] = uint32(len(dks))
		dks = append(dks, dk)
		live = append(live, i)
	}
	m, K := len(live), len(dks)
	if m == 0 {
		return nil
	}
	// halves: x mod p for elements [0, m), x mod q for [m, 2m)
	job := &arith.ModExpJob{Mont: mh, Count: 2 * m, EWords: mh.N, ExpPerModulus: true,
		Base: make([]uint32, mh.W*2*m), Exp: make([]uint32, mh.N*2*K), Index: make([]uint32, 2*m)}
	defer clear(job.Exp)
	defer clear(job.Base)
	for k, dk := range dks {
		job.Mods = append(job.Mods, dk.p)
		for j := range mh.N {
			job.Exp[j*2*K+k], job.Exp[j*2*K+K+k] = dk.dp[j], dk.dq[j]
		}
	}
	for _, dk := range dks {
		job.Mods = append(job.Mods, dk.q)
	}
	for col, i := range live {
		k := kpos[keys[i]]
		job.Index[col], job.Index[m+col] = k, uint32(K)+k
	}
	var convErr atomic.Value
	batch.Parallel(m, 256, func(lo, hi int) { // x mod p and x mod q, on all cores
		row := make([]uint32, mh.W)
		defer clear(row)
		var r big.Int
		defer r.SetInt64(0)
		for col := lo; col < hi; col++ {
			i := live[col]
			for h, prime := range []*big.Int{keys[i].p, keys[i].q} {
				r.Mod(in[i], prime)
				if err := arith.PutLimbs(row, &r); err != nil {
					convErr.Store(err)
					return
				}
				for j := range mh.W {
					job.Base[j*2*m+h*m+col] = row[j]
				}
			}
		}
	})
	if err, _ := convErr.Load().(error); err != nil {
		return err
	}
	res, err := b.ar.RunModExp(job)
	if err != nil {
		return err
	}
	defer clear(res.Out)
	b.kernelNs.Add(int64(res.Kernel))

	// recombination and check on the device
	prog, err := b.program(mh, mf, true)
	if err != nil {
		return err
	}
	kern, err := prog.Kernel("rsa_combine")
	if err != nil {
		return err
	}
	table := keyTable(dks, mh.W, mf.W)
	defer clear(table)
	xs := make([]uint32, mf.W*m)
	kidx := make([]uint32, m)
	for col, i := range live {
		kidx[col] = kpos[keys[i]]
	}
	if err := putColumns(xs, mf.W, m, func(col int) *big.Int { return in[live[col]] }); err != nil {
		return err
	}
	fault := uint32(0xffffffff)
	if f := b.fault.Swap(-1); f >= 0 && int(f) < m {
		fault = uint32(f)
	}
	vals, ok, err := b.combine(kern, res.Out, xs, table, kidx, K, m, mf.W, fault)
	if err != nil {
		return err
	}
	defer clear(vals)
	batch.Parallel(m, 256, func(lo, hi int) {
		mrow := make([]uint32, mf.W)
		defer clear(mrow)
		for col := lo; col < hi; col++ {
			i := live[col]
			if ok[col] != 1 {
				errs[i] = ErrFault
				continue
			}
			for j := range mf.W {
				mrow[j] = vals[j*m+col]
			}
			out[i] = arith.FromLimbs(mrow)
		}
	})
	// the host's own sample check: a device whose checked results are
	// wrong is broken, and the whole call fails (the Engine falls back).
	var sample []int
	for col, i := range live {
		if out[i] != nil && (col == 0 || mrand.IntN(hostCheckEvery) == 0) {
			sample = append(sample, i)
		}
	}
	var bad atomic.Int64
	bad.Store(-1)
	batch.Parallel(len(sample), 1, func(lo, hi int) {
		for _, i := range sample[lo:hi] {
			if !checkPrivate(keys[i].pub, out[i], in[i]) {
				bad.Store(int64(i))
			}
		}
	})
	if i := bad.Load(); i >= 0 {
		return fmt.Errorf("rsa: %s returned a result that passed its own check but fails the host's (element %d)", b, i)
	}
	return nil
}

// putColumns writes the values v(col) for col < m as the limb-major
// columns of dst (w words each), on all cores.
func putColumns(dst []uint32, w, m int, v func(col int) *big.Int) error {
	var failed atomic.Value
	batch.Parallel(m, 256, func(lo, hi int) {
		row := make([]uint32, w)
		for col := lo; col < hi; col++ {
			if err := arith.PutLimbs(row, v(col)); err != nil {
				failed.Store(err)
				return
			}
			for j := range w {
				dst[j*m+col] = row[j]
			}
		}
	})
	err, _ := failed.Load().(error)
	return err
}

// keyTable lays out the key material for rsa.cl (see its header): H-word
// fields p, q, qinv, r2p; F-word fields n, r2n; words n0p, n0n, e; each
// limb-major with stride K. H = 0 leaves out the private fields.
func keyTable(dks []*devKey, H, F int) []uint32 {
	K := len(dks)
	t := make([]uint32, K*(4*H+2*F+3))
	put := func(off int, words []uint32, k int) {
		for j, w := range words {
			t[off+j*K+k] = w
		}
	}
	for k, d := range dks {
		if H > 0 {
			put(0, d.p.M, k)
			put(H*K, d.q.M, k)
			put(2*H*K, d.qinv, k)
			put(3*H*K, d.p.R2, k)
			t[4*H*K+2*F*K+k] = d.p.N0
		}
		put(4*H*K, d.n.M, k)
		put(4*H*K+F*K, d.n.R2, k)
		t[4*H*K+2*F*K+K+k] = d.n.N0
		t[4*H*K+2*F*K+2*K+k] = d.e
	}
	return t
}

// combine uploads the halves and runs rsa_combine; it returns the results
// (F words per element, limb-major) and the check flags.
func (b *deviceBackend) combine(kern *cl.Kernel, halves, xs, table, kidx []uint32, K, m, F int, fault uint32) ([]uint32, []uint32, error) {
	bufs := b.dev.Buffers() // halves, key material and results are secret
	defer bufs.Release()
	var ins [4]*cl.Buffer
	for j, words := range [][]uint32{halves, xs, table, kidx} {
		var err error
		if ins[j], err = bufs.Upload(cl.Uint32Bytes(words)); err != nil {
			return nil, nil, err
		}
		bufs.Secret(ins[j])
	}
	dout, err := bufs.New(4 * F * m)
	if err != nil {
		return nil, nil, err
	}
	dok, err := bufs.New(4 * m)
	if err != nil {
		return nil, nil, err
	}
	bufs.Secret(dout)
	bufs.Secret(dok)
	ev, err := kern.Launch(m, rsaWorkGroup, dout, dok, ins[0], ins[1], ins[2], ins[3], uint32(K), uint32(m), fault)
	if err != nil {
		return nil, nil, err
	}
	defer ev.Release()
	vals := make([]uint32, F*m)
	ok := make([]uint32, m)
	if err := dout.Read(0, cl.Uint32Bytes(vals)); err != nil {
		return nil, nil, err
	}
	if err := dok.Read(0, cl.Uint32Bytes(ok)); err != nil {
		return nil, nil, err
	}
	d, err := ev.Duration()
	b.kernelNs.Add(int64(d))
	return vals, ok, err
}

func (b *deviceBackend) public(keys []*pubKey, in []*big.Int) ([]*big.Int, error) {
	if len(keys) != len(in) {
		return nil, fmt.Errorf("rsa: %d keys for %d inputs", len(keys), len(in))
	}
	out := make([]*big.Int, len(in))
	errs := make([]error, len(in))
	groups := map[int][]int{}
	for i, k := range keys {
		if err := checkInput(k, in[i]); err != nil {
			errs[i] = err
			continue
		}
		groups[k.limbs] = append(groups[k.limbs], i)
	}
	for limbs, idx := range groups {
		if err := b.publicGroup(limbs, idx, keys, in, out, errs); err != nil {
			return nil, err
		}
	}
	return out, batch.Collect(errs)
}

func (b *deviceBackend) publicGroup(limbs int, idx []int, keys []*pubKey, in, out []*big.Int, errs []error) error {
	_, mf, err := b.widths(0, limbs)
	if err != nil {
		return err
	}
	F := mf.W
	kpos := map[*pubKey]uint32{}
	var dks []*devKey
	var live []int
	for _, i := range idx {
		k := keys[i]
		if _, ok := kpos[k]; !ok {
			ck := fmt.Sprintf("%p/pub/%d", b, F)
			v, ok := k.cache.Load(ck)
			if !ok {
				c, err := arith.NewConstants(k.n, F)
				if err != nil {
					errs[i] = fmt.Errorf("%w: %v", ErrInvalidKey, err)
					continue
				}
				v, _ = k.cache.LoadOrStore(ck, &devKey{n: c, e: uint32(k.e)})
			}
			kpos[k] = uint32(len(dks))
			dks = append(dks, v.(*devKey))
		}
		live = append(live, i)
	}
	m := len(live)
	if m == 0 {
		return nil
	}
	prog, err := b.program(mf, mf, false)
	if err != nil {
		return err
	}
	kern, err := prog.Kernel("rsa_public")
	if err != nil {
		return err
	}
	xs := make([]uint32, F*m)
	kidx := make([]uint32, m)
	for col, i := range live {
		kidx[col] = kpos[keys[i]]
	}
	if err := putColumns(xs, F, m, func(col int) *big.Int { return in[live[col]] }); err != nil {
		return err
	}
	bufs := b.dev.Buffers()
	defer bufs.Release()
	var ins [3]*cl.Buffer
	for j, words := range [][]uint32{xs, keyTable(dks, 0, F), kidx} {
		if ins[j], err = bufs.Upload(cl.Uint32Bytes(words)); err != nil {
			return err
		}
	}
	dout, err := bufs.New(4 * F * m)
	if err != nil {
		return err
	}
	ev, err := kern.Launch(m, rsaWorkGroup, dout, ins[0], ins[1], ins[2], uint32(len(dks)), uint32(m))
	if err != nil {
		return err
	}
	defer ev.Release()
	if err := dout.Read(0, cl.Uint32Bytes(xs)); err != nil {
		return err
	}
	d, err := ev.Duration()
	if err != nil {
		return err
	}
	b.kernelNs.Add(int64(d))
	batch.Parallel(m, 256, func(lo, hi int) {
		row := make([]uint32, F)
		for col := lo; col < hi; col++ {
			for j := range F {
				row[j] = xs[j*m+col]
			}
			out[live[col]] = arith.FromLimbs(row)
		}
	})
	return nil
}
