package rsa

import (
	"fmt"
	"maps"
	"math/bits"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// deviceKernels are the device side of an Engine: the RSA kernels, their
// configuration and the key tables kept on the device.
//
// Private operations run as three kernels on device memory: rsa_split
// reduces each input modulo both primes (so the host does no big-number
// arithmetic on the inputs and the CRT bases never exist on the host),
// the modexp kernel (arith's, through its one binding: Mont.EnqueueModExp)
// computes both CRT halves x^dp mod p and x^dq mod q as one batch (two
// work-items per element, fixed windows, table entries read by masked
// scans: no branch and no memory index depends on the key), then
// rsa_combine does Garner's recombination and checks m^e mod n == x (on
// GPUs the check runs next, in rsa_check, several work-items per element:
// checkForm); a failed check returns no value (ErrFault). The inputs go to
// the device as the bytes they are, laid out in limb columns (no big
// integers on the host), and only the checked results come back. The
// host also checks a sample of results with the constant-time CPU
// arithmetic (Engine.SetResultCheck). The key tables of recent batches
// stay on the device (residentKeys), zeroed when dropped; the other device
// memory and the staging memory are the engine Core's, kept between
// batches and zeroed after each (every region a batch used, halves and
// results included).
type deviceKernels struct {
	dev      *device.Device
	cfg      arith.MontConfig
	resident *residentKeys // the key tables of recent batches
}

// Test knobs, which only the package's tests set.
var (
	// faults turns fault injection on: rsa.cl is built with
	// RSA_FAULT_INJECTION, and its rsa_combine takes the element whose
	// mod-p half it corrupts, which each private job of a device engine
	// takes from here (Swap(-1): an index among its elements, -1 none).
	faults *atomic.Int64
	// checkPath overrides where the check runs (checkForm): "apart"
	// (where the width allows it, on CPU devices too) or "combine".
	checkPath string
	// tableLimit replaces the bound on the modexp tables of a batch.
	tableLimit uint64
)

// rsaWorkGroup is the work-group size of the rsa.cl kernels.
const rsaWorkGroup = 64

// widths resolves the Montgomery forms of a CRT half of half limbs (the
// configured variant; by size, a batch of count halves too small to fill a
// GPU gets more threads per number) and of the modulus of limbs limbs
// (CIOS, rows kept as a loop: only the public exponent runs at that width).
func (b *deviceKernels) widths(half, limbs, count int) (mh, mf arith.Mont, err error) {
	if half > 0 {
		if mh, err = b.cfg.ResolveFor(b.dev, half, count); err != nil {
			return
		}
	}
	fc := b.cfg
	fc.Variant, fc.Rows, fc.Threads = arith.CIOS, -1, 1
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

// program returns rsa.cl built for the half form mh and full width mf
// (the device keeps built programs: halves that differ only in how the
// modexp kernel runs them share one); inject (tests) builds it with
// RSA_FAULT_INJECTION (faults).
func (b *deviceKernels) program(mh, mf arith.Mont, private, inject bool) (*device.Program, error) {
	_, apart := b.checkForm(mf)
	mc, extra := rsaBuild(mh, mf, private, apart)
	if inject {
		extra["RSA_FAULT_INJECTION"] = ""
	}
	return mc.Program(b.dev, "rsa.cl", extra)
}

// checkForm is where the fault check m^e mod n == x of private results
// runs: apart from rsa_combine, in rsa_check (kernels/rsa_check.cl) with
// cm.Lanes work-items per element, on GPUs when the modulus form mf is
// the final-subtraction one (the key table's r2n is for the width the
// multi-thread product takes); else inside rsa_combine, one work-item per
// element (CPU devices, where lanes exchange through barriers, and the
// no-final-subtraction form). One work-item per element spills its
// registers at 4096 bits: the check was most of a lone RSA-4096
// operation's time.
func (b *deviceKernels) checkForm(mf arith.Mont) (cm arith.Mont, apart bool) {
	gpu := b.dev.Class != device.VendorCPU
	if checkPath != "" {
		gpu = checkPath == "apart"
	}
	if !gpu {
		return arith.Mont{}, false
	}
	return gpuCheckForm(mf)
}

// gpuCheckForm is checkForm on a GPU.
func gpuCheckForm(mf arith.Mont) (cm arith.Mont, apart bool) {
	if !mf.FinalSub || mf.W != mf.N {
		return arith.Mont{}, false
	}
	lanes := checkLanes(mf.W)
	if lanes < 2 {
		return arith.Mont{}, false
	}
	cm, err := arith.MontConfig{Variant: arith.CIOS, Form: arith.FinalSub, Threads: lanes, Window: 1}.Resolve(mf.W)
	if err != nil || cm.Lanes != lanes {
		return arith.Mont{}, false
	}
	return cm, true
}

// checkLanes is the number of rsa_check's work-items per element for an
// F-word modulus: the largest power of two that divides F and leaves each
// at least eight words, at most 32.
func checkLanes(F int) int {
	l := 1
	for 2*l <= 32 && 2*l*8 <= F && F%(2*l) == 0 {
		l *= 2
	}
	return l
}

// checkProgram returns rsa_check.cl built for the check form cm of a
// modulus with halves of hw words.
func (b *deviceKernels) checkProgram(cm arith.Mont, hw int) (*device.Program, error) {
	return cm.Program(b.dev, "rsa_check.cl", map[string]string{"RSA_HW": fmt.Sprint(hw)})
}

// checkSchedule is what rsa_check takes of the public exponents of a
// call's keys (kernels/rsa_check.cl): eAll, the exponent when all share
// one (else 0); eBits, the longest one's length; and the products between
// entering and leaving the Montgomery form, steps of them, bit j of sched
// set where product j multiplies (else it squares). With one exponent:
// per bit below the top a squaring, and a product where the bit is set;
// with several: per bit a squaring and a product (by x or by 1, as each
// element's bit picks).
type checkSchedule struct {
	eAll, eBits, steps uint32
	sched              uint64
}

func newCheckSchedule(forms []*deviceForm) checkSchedule {
	var c checkSchedule
	for i, f := range forms {
		if i == 0 || f.e == c.eAll {
			c.eAll = f.e
		} else {
			c.eAll = 0
			break
		}
	}
	for _, f := range forms {
		c.eBits = max(c.eBits, uint32(bits.Len32(f.e)))
	}
	add := func(multiply bool) {
		if multiply {
			c.sched |= 1 << c.steps
		}
		c.steps++
	}
	if c.eAll != 0 {
		for bit := int(c.eBits) - 2; bit >= 0; bit-- {
			add(false)
			if c.eAll>>bit&1 == 1 {
				add(true)
			}
		}
		return c
	}
	for range c.eBits {
		add(false)
		add(true)
	}
	return c
}

// args are the schedule's kernel arguments, in rsa_check's order.
func (c checkSchedule) args() []any {
	return []any{c.eAll, c.eBits, uint32(c.sched), uint32(c.sched >> 32), c.steps}
}

// rsaBuild is how rsa.cl is built for halves of form mh and a modulus of
// form mf: the Montgomery form of the program and the extra -D options.
// rsa_combine makes three products at the half width: CIOS with the rows
// kept as a loop is small code, whatever form the exponentiations use (the
// same width and reduction form, so the halves fit).
func rsaBuild(mh, mf arith.Mont, private, checkApart bool) (arith.Mont, map[string]string) {
	extra := map[string]string{"RSA_FW": fmt.Sprint(mf.W), fmt.Sprintf("MONT_WANT_%d", mf.W): ""}
	if private {
		extra["RSA_PRIVATE"] = ""
	}
	if private && checkApart {
		extra["RSA_CHECK_APART"] = ""
	}
	mc := mh
	mc.Variant, mc.Sqr, mc.Unroll, mc.Lanes = arith.CIOS, false, false, 1
	return mc, extra
}

// ProgramBuild is one program of the RSA kernels: its kernel file, -D
// options and kernels, and a description.
type ProgramBuild struct {
	File    string
	Defines map[string]string
	Kernels []string
	Desc    string
}

// KernelBuilds are the programs of rsa.cl and rsa_check.cl for the private
// operations of keyBits-bit keys with the default configuration on a GPU
// (where the check runs apart, in rsa_check), for tools such as gpucrypto
// kernelinfo.
func KernelBuilds(keyBits int) ([]ProgramBuild, error) {
	half, ok := sizeClass((keyBits + 1) / 2)
	full, ok2 := sizeClass(keyBits)
	if !ok || !ok2 {
		return nil, fmt.Errorf("rsa: no kernels for %d-bit keys", keyBits)
	}
	mh, mf, err := (&deviceKernels{}).widths(half, full, 0)
	if err != nil {
		return nil, err
	}
	cm, apart := gpuCheckForm(mf)
	mc, extra := rsaBuild(mh, mf, true, apart)
	defs := mc.Defines()
	maps.Copy(defs, extra)
	builds := []ProgramBuild{{"rsa.cl", defs, []string{"rsa_split", "rsa_combine", "rsa_public"}, fmt.Sprintf("RSA-%d (halves %s, modulus %s)", keyBits, mc, mf)}}
	if apart {
		defs := cm.Defines()
		defs["RSA_HW"] = fmt.Sprint(mh.W)
		builds = append(builds, ProgramBuild{"rsa_check.cl", defs, []string{"rsa_check"}, fmt.Sprintf("RSA-%d check (%s)", keyBits, cm)})
	}
	return builds, nil
}

// warm builds every program that batches of keyBits-bit keys may use on
// this device: rsa.cl for the halves and for the modulus, and the modexp
// kernel of each number of threads per number that a batch size can pick
// (arith.BatchThreads: the number falls as the batch grows, so batch sizes
// of every power of two meet each one).
func (b *deviceKernels) warm(keyBits int) error {
	if keyBits < MinKeyBits || keyBits > MaxKeyBits {
		return fmt.Errorf("rsa: warm: %d-bit keys: supported sizes are %d to %d bits", keyBits, MinKeyBits, MaxKeyBits)
	}
	half, _ := sizeClass((keyBits + 1) / 2)
	full, _ := sizeClass(keyBits)
	seen := map[string]bool{}
	for count := 2; count <= 1<<24; count *= 2 { // halves: two per element
		mh, mf, err := b.widths(half, full, count)
		if err != nil {
			return err
		}
		if seen[mh.String()] {
			continue
		}
		seen[mh.String()] = true
		if _, err := b.program(mh, mf, true, false); err != nil {
			return err
		}
		if _, err := mh.ModExpKernel(b.dev); err != nil {
			return err
		}
		if cm, apart := b.checkForm(mf); apart {
			if _, err := b.checkProgram(cm, mh.W); err != nil {
				return err
			}
		}
	}
	_, mf, err := b.widths(0, full, 0)
	if err != nil {
		return err
	}
	_, err = b.program(mf, mf, false, false)
	return err
}

// deviceForm is a key in the form of the device kernels, at given widths
// (its public part alone for a public key): Montgomery constants and
// limbs, laid out in tables by privateTables and keyTable.
type deviceForm struct {
	p, q, n    *arith.Constants // p, q at the half width; n at the full width
	dp, dq     []uint32         // half.N words
	qinv       []uint32         // half.W words
	e          uint32
	prepareErr error
}

// widthClass names the widths mh, mf of a private key's device form: its
// key in the key's cache and the resident set's class. The form depends
// on the widths only (not on how the halves are run), so a key is
// prepared once whatever threads per number its batches get.
func (b *deviceKernels) widthClass(mh, mf arith.Mont) string {
	return fmt.Sprintf("%p/%d/%d/%d/%d", b, mh.N, mh.W, mh.Digits, mf.W)
}

// deviceFormOf returns k's device form at the widths mh, mf (named
// width: widthClass), made once per key and width.
func (b *deviceKernels) deviceFormOf(k *privateKey, width string, mh, mf arith.Mont) (*deviceForm, error) {
	if v, ok := k.cache.Load(width); ok {
		d := v.(*deviceForm)
		return d, d.prepareErr
	}
	d := &deviceForm{e: uint32(k.pub.e)}
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
		d.clearPrivate() // never laid out: what was made of the key goes
	}
	v, loaded := k.cache.LoadOrStore(width, d)
	if loaded {
		d.clearPrivate() // another goroutine's form is the key's
	}
	d = v.(*deviceForm)
	return d, d.prepareErr
}

// clearPrivate zeroes the private fields of a device form that is not
// used: p's and q's constants, dp, dq and qinv.
func (d *deviceForm) clearPrivate() {
	for _, c := range []*arith.Constants{d.p, d.q} {
		if c != nil {
			clear(c.M)
			clear(c.One)
			clear(c.R2)
			c.N0 = 0
		}
	}
	clear(d.dp)
	clear(d.dq)
	clear(d.qinv)
}

// distinctKeys returns the distinct keys of the job elements [lo, hi)
// of els (keys[els.at(j)]), in order of first use, with their device
// forms (made by form, once per key). Batches often repeat one key:
// consecutive equal keys cost one comparison.
func distinctKeys[K comparable](keys []K, els elements, lo, hi int, form func(K) (*deviceForm, error)) ([]K, []*deviceForm, error) {
	seen := map[K]bool{}
	var distinct []K
	var forms []*deviceForm
	var last K
	for j := lo; j < hi; j++ {
		k := keys[els.at(j)]
		if (j > lo && k == last) || seen[k] {
			last = k
			continue
		}
		f, err := form(k)
		if err != nil {
			return nil, nil, err
		}
		seen[k] = true
		distinct, forms, last = append(distinct, k), append(forms, f), k
	}
	return distinct, forms, nil
}

// keyTables are the key tables of a job on the device: K keys
// (the stride of the tables), and buffers returns the tables, in the
// order the kernels take them, for a batch's commands.
type keyTables struct {
	K       int
	buffers func(c *device.Commands) ([]*device.Buffer, error)
	// check is rsa_check's schedule for the job's keys.
	check checkSchedule
}

// keyTables returns the device tables of the keys forms of a job, the
// position in them of each key (slots, by position in forms; nil: the
// same position), and the function that ends the job's use of them
// (failed: a batch failed). The tables come from the resident set of
// width class width, else each batch uploads them (and zeroes them
// afterwards). layout lays out the tables of a list of keys.
func (b *deviceKernels) keyTables(width string, forms []*deviceForm, layout func(forms []*deviceForm) [][]uint32) (keyTables, []uint32, func(failed bool)) {
	if set, slots := b.resident.acquire(width, forms, layout); set != nil {
		bufs := set.bufs
		return keyTables{K: set.K(), buffers: func(*device.Commands) ([]*device.Buffer, error) { return bufs, nil }},
			slots, func(failed bool) { b.resident.release(set, failed) }
	}
	host := layout(forms)
	upload := func(c *device.Commands) ([]*device.Buffer, error) {
		bufs := make([]*device.Buffer, len(host))
		for j, words := range host {
			var err error
			if bufs[j], err = c.Upload(words, true); err != nil { // zeroed after the batch
				return nil, err
			}
		}
		return bufs, nil
	}
	return keyTables{K: len(forms), buffers: upload}, nil, func(bool) {
		for _, t := range host {
			clear(t)
		}
	}
}

// privateTables lays out the key tables of a private batch of K keys, in
// the order enqueuePrivate takes them: rsa.cl's table (keyTable), then
// the modexp kernel's tables of the 2K primes (p of key k at k, q at K +
// k): moduli, Montgomery ones, R² and n0, and the exponents dp, dq. All of
// it is key material.
func privateTables(forms []*deviceForm, mh, mf arith.Mont) [][]uint32 {
	K, W, N := len(forms), mh.W, mh.N
	mods, ones, r2s := make([]uint32, W*2*K), make([]uint32, W*2*K), make([]uint32, W*2*K)
	n0s, exp := make([]uint32, 2*K), make([]uint32, N*2*K)
	batch.Parallel(K, 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			d := forms[k]
			for h, c := range [2]*arith.Constants{d.p, d.q} {
				col := h*K + k
				for j := range W {
					mods[j*2*K+col], ones[j*2*K+col], r2s[j*2*K+col] = c.M[j], c.One[j], c.R2[j]
				}
				n0s[col] = c.N0
			}
			for j := range N {
				exp[j*2*K+k], exp[j*2*K+K+k] = d.dp[j], d.dq[j]
			}
		}
	})
	return [][]uint32{keyTable(forms, W, mf.W), mods, ones, r2s, n0s, exp}
}

// runPrivate runs the device part of the private batch pb (ch.Run: one
// set of device commands on the engine's stages).
func (b *deviceKernels) runPrivate(ch *engine.Chunk, pb *privateBatch) error {
	return ch.Run(func(c *device.Commands) error { return b.enqueuePrivate(c, pb) })
}

// enqueuePrivate enqueues the device part of the private batch pb of m
// elements: upload its inputs xs (F words each, limb-major) and key
// positions kidx (and the key tables unless they are resident), run
// rsa_split (2m work-items), modexp (2m), rsa_combine (m) and, where the
// check runs apart (checkForm), rsa_check (m times its lanes), and read
// the results into vals (F words each) and the check flags into ok.
func (b *deviceKernels) enqueuePrivate(c *device.Commands, pb *privateBatch) error {
	j := pb.j
	mh, mf, kt := j.mh, j.mf, j.tables
	prog, err := b.program(mh, mf, true, j.inject)
	if err != nil {
		return err
	}
	rk, err := prog.Kernels("rsa_split", "rsa_combine")
	if err != nil {
		return err
	}
	mk, err := mh.ModExpKernel(b.dev)
	if err != nil {
		return err
	}
	var ck *device.Kernel
	cm, apart := b.checkForm(mf)
	if apart {
		cprog, err := b.checkProgram(cm, mh.W)
		if err != nil {
			return err
		}
		if ck, err = cprog.Kernel("rsa_check"); err != nil {
			return err
		}
	}
	m, K, W, F := len(pb.kidx), kt.K, mh.W, mf.W
	dx, dkidx, tabs, err := uploadInputs(c, pb.xs, pb.kidx, kt)
	if err != nil {
		return err
	}
	// the batch's own regions are zeroed after it too: CRT halves, results
	dkeys, dmods, dones, dr2s, dn0s, dexp := tabs[0], tabs[1], tabs[2], tabs[3], tabs[4], tabs[5]
	var out [6]*device.Buffer
	for j, bytes := range []int{4 * W * 2 * m, 4 * 2 * m, 4 * 2 * m * mh.TableWords(), 4 * W * 2 * m, 4 * F * m, 4 * m} {
		if out[j], err = c.Buffer(bytes, true); err != nil {
			return err
		}
	}
	dbase, dmidx, dtab, dhalves, dout, dok := out[0], out[1], out[2], out[3], out[4], out[5]
	if err := c.Launch(rk[0], 2*m, rsaWorkGroup, dbase, dmidx, dx, dmods, dones, dr2s, dn0s, dkidx, uint32(K), uint32(m)); err != nil {
		return err
	}
	if err := mh.EnqueueModExp(c, mk, arith.ModExpArgs{Out: dhalves, Base: dbase, Exp: dexp, EWords: mh.N, ExpPerModulus: true,
		Mods: dmods, Ones: dones, R2s: dr2s, N0s: dn0s, K: 2 * K, Index: dmidx, Table: dtab, Count: 2 * m}); err != nil {
		return err
	}
	args := []any{dout, dok, dhalves, dx, dkeys, dkidx, uint32(K), uint32(m)}
	if j.inject {
		args = append(args, pb.fault)
	}
	if err := c.Launch(rk[1], m, rsaWorkGroup, args...); err != nil {
		return err
	}
	if apart {
		cg, cl, cextra := cm.ModExpLaunch(m)
		args := append([]any{dout, dok, dx, dkeys, dkidx, uint32(K), uint32(m)}, kt.check.args()...)
		if err := c.Launch(ck, cg, cl, append(args, cextra...)...); err != nil {
			return err
		}
	}
	if err := c.Read(dout, device.Uint32Bytes(pb.vals)); err != nil {
		return err
	}
	return c.Read(dok, device.Uint32Bytes(pb.ok))
}

// uploadInputs enqueues the uploads of a batch's inputs xs and key
// positions kidx and returns their buffers and the key tables kt's. The
// input and position buffers are zeroed after the batch (inputs may be
// plaintexts when encrypting; the positions so that kept buffers are all
// zero between batches).
func uploadInputs(c *device.Commands, xs, kidx []uint32, kt keyTables) (dx, dkidx *device.Buffer, tables []*device.Buffer, err error) {
	if dx, err = c.Upload(xs, true); err != nil {
		return nil, nil, nil, err
	}
	if dkidx, err = c.Upload(kidx, true); err != nil {
		return nil, nil, nil, err
	}
	tables, err = kt.buffers(c)
	return dx, dkidx, tables, err
}

// keyTable lays out the key material for rsa.cl (see its header): H-word
// fields p, q, qinv, r2p; F-word fields n, r2n; words n0p, n0n, e; each
// limb-major with stride K. H = 0 leaves out the private fields.
func keyTable(forms []*deviceForm, H, F int) []uint32 {
	K := len(forms)
	t := make([]uint32, K*(4*H+2*F+3))
	put := func(off int, words []uint32, k int) {
		for j, w := range words {
			t[off+j*K+k] = w
		}
	}
	batch.Parallel(K, 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			d := forms[k]
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
	})
	return t
}

// enqueuePublic enqueues the device part of a public batch: xs (F words
// per element, limb-major) is replaced by xs[i]^e mod n.
func (b *deviceKernels) enqueuePublic(c *device.Commands, mf arith.Mont, kt keyTables, xs, kidx []uint32) error {
	prog, err := b.program(mf, mf, false, false)
	if err != nil {
		return err
	}
	kern, err := prog.Kernel("rsa_public")
	if err != nil {
		return err
	}
	m := len(kidx)
	dx, dkidx, tabs, err := uploadInputs(c, xs, kidx, kt)
	if err != nil {
		return err
	}
	dout, err := c.Buffer(4*mf.W*m, true)
	if err != nil {
		return err
	}
	if err := c.Launch(kern, m, rsaWorkGroup, dout, dx, tabs[0], dkidx, uint32(kt.K), uint32(m)); err != nil {
		return err
	}
	return c.Read(dout, device.Uint32Bytes(xs))
}
