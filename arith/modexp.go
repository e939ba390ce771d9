package arith

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// ModExpJob is one launch-ready batch of exponentiations of one modulus
// width: limb-major operands, a table of moduli and each element's modulus.
type ModExpJob struct {
	Mont   Mont
	Count  int
	Base   []uint32 // Mont.W × Count, limb-major; each base below 2^(32·Mont.N)
	Exp    []uint32 // EWords × Count (or × len(Mods) with ExpPerModulus), limb-major
	EWords int      // exponent words; the running time depends on it alone
	// ExpPerModulus: the exponents belong to the moduli, not the elements
	// (each RSA CRT half has its own modulus and exponent).
	ExpPerModulus bool
	Mods          []*Constants // at width Mont.W
	Index         []uint32     // Count entries: the modulus of each element
}

// ModExpResult is the output of RunModExp.
type ModExpResult struct {
	Out    []uint32      // Mont.W × Count, limb-major, canonical (below the modulus)
	Kernel time.Duration // device time of the kernel launches
}

// RunModExp runs a prepared job on the device. The exponent and scratch
// buffers are zeroed on the device before release (exponents may be
// secret).
func (e *Engine) RunModExp(job *ModExpJob) (*ModExpResult, error) {
	m := job.Mont
	W, K := m.W, len(job.Mods)
	switch {
	case job.Count <= 0:
		return nil, errors.New("arith: modexp: empty batch")
	case K == 0:
		return nil, errors.New("arith: modexp: no modulus")
	case job.EWords <= 0:
		return nil, errors.New("arith: modexp: exponent width must be at least one word")
	case len(job.Base) != W*job.Count || len(job.Index) != job.Count,
		job.ExpPerModulus && len(job.Exp) != job.EWords*K,
		!job.ExpPerModulus && len(job.Exp) != job.EWords*job.Count:
		return nil, errors.New("arith: modexp: job storage does not match its shape")
	}
	for _, c := range job.Mods {
		if len(c.M) != W || len(c.R2) != W {
			return nil, fmt.Errorf("arith: modexp: constants of width %d in a job of width %d", len(c.M), W)
		}
	}
	for _, k := range job.Index {
		if int(k) >= K {
			return nil, fmt.Errorf("arith: modexp: modulus index %d out of range (%d moduli)", k, K)
		}
	}
	prog, err := m.Program(e.dev, m.KernelFile(), nil)
	if err != nil {
		return nil, err
	}
	kern, err := prog.Kernel("modexp")
	if err != nil {
		return nil, err
	}
	mods, ones, r2s := make([]uint32, W*K), make([]uint32, W*K), make([]uint32, W*K)
	n0s := make([]uint32, K)
	for k, c := range job.Mods {
		for j := range W {
			mods[j*K+k], ones[j*K+k], r2s[j*K+k] = c.M[j], c.One[j], c.R2[j]
		}
		n0s[k] = c.N0
	}
	lease := e.pool.Lease(nil)
	defer lease.Release()
	var modBufs [4]*device.Buffer // mods, ones, r2s, n0s
	for i, words := range [][]uint32{mods, ones, r2s, n0s} {
		if modBufs[i], err = lease.Upload(words, false); err != nil {
			return nil, err
		}
	}
	var dexpAll *device.Buffer
	if job.ExpPerModulus { // shared by every chunk; may be secret
		if dexpAll, err = lease.Upload(job.Exp, true); err != nil {
			return nil, err
		}
	}
	res := &ModExpResult{Out: make([]uint32, W*job.Count)}
	chunk := m.ChunkElems(job.Count, 1, TableLimit(e.dev))
	for lo := 0; lo < job.Count; lo += chunk {
		n := min(chunk, job.Count-lo)
		d, err := e.modexpChunk(kern, job, lo, n, modBufs, dexpAll, res.Out)
		if err != nil {
			return nil, err
		}
		res.Kernel += d
	}
	return res, nil
}

// modexpChunk runs elements [lo, lo+n) of job.
func (e *Engine) modexpChunk(kern *device.Kernel, job *ModExpJob, lo, n int, mb [4]*device.Buffer, dexp *device.Buffer, out []uint32) (time.Duration, error) {
	W, count := job.Mont.W, job.Count
	slice := func(src []uint32, words int) []uint32 { // rows of [lo, lo+n)
		if n == count {
			return src
		}
		dst := make([]uint32, words*n)
		for j := range words {
			copy(dst[j*n:(j+1)*n], src[j*count+lo:j*count+lo+n])
		}
		return dst
	}
	base, idx := slice(job.Base, W), job.Index[lo:lo+n]
	// exponents, the table of powers and the results are secret-derived
	// (RSA halves): all three are zeroed before release
	lease := e.pool.Lease(nil)
	defer lease.Release()
	dbase, err := lease.Upload(base, false)
	if err != nil {
		return 0, err
	}
	eper := uint32(0)
	if dexp == nil {
		exp := slice(job.Exp, job.EWords)
		if n != count {
			defer clear(exp)
		}
		eper = 1
		if dexp, err = lease.Upload(exp, true); err != nil {
			return 0, err
		}
	}
	dtab, err := lease.Buffer(4*n*job.Mont.TableWords(), true)
	if err != nil {
		return 0, err
	}
	didx, err := lease.Upload(idx, false)
	if err != nil {
		return 0, err
	}
	dout, err := lease.Buffer(4*W*n, true)
	if err != nil {
		return 0, err
	}
	global, local, extra := job.Mont.ModExpLaunch(n)
	ev, err := kern.Launch(global, local, append([]any{dout, dbase, dexp, uint32(job.EWords), eper,
		mb[0], mb[1], mb[2], mb[3], didx, uint32(len(job.Mods)), dtab, uint32(n)}, extra...)...)
	if err != nil {
		return 0, err
	}
	defer ev.Release()
	res := out
	if n != count {
		res = make([]uint32, W*n)
	}
	if err := dout.Read(0, device.Uint32Bytes(res)); err != nil {
		return 0, err
	}
	if n != count {
		for j := range W {
			copy(out[j*count+lo:j*count+lo+n], res[j*n:(j+1)*n])
		}
	}
	return ev.Duration()
}

// MaxExpBits is the widest exponent ModExp takes.
const MaxExpBits = 4096

// ModExp returns bases[i]^exps[i] mod mods[i] for each i, computed on the
// device with the default Montgomery configuration. Elements with a nil,
// zero, negative, even or wider-than-4096-bit modulus, a nil or negative
// base or exponent, or an exponent wider than MaxExpBits fail alone (their
// result is nil; the *batch.Error says why). Bases at or above the modulus
// are reduced. Secret exponents: the running time depends only on the
// widest exponent of the batch and the modulus sizes.
func (e *Engine) ModExp(bases, exps, mods []*big.Int) ([]*big.Int, error) {
	return e.ModExpConfig(MontConfig{}, bases, exps, mods)
}

// ModExpShared is ModExp with one modulus for every element.
func (e *Engine) ModExpShared(bases, exps []*big.Int, mod *big.Int) ([]*big.Int, error) {
	mods := make([]*big.Int, len(bases))
	for i := range mods {
		mods[i] = mod
	}
	return e.ModExp(bases, exps, mods)
}

// ModExpConfig is ModExp with an explicit kernel configuration.
func (e *Engine) ModExpConfig(cfg MontConfig, bases, exps, mods []*big.Int) ([]*big.Int, error) {
	if len(bases) != len(exps) || len(bases) != len(mods) {
		return nil, fmt.Errorf("arith: modexp: %d bases, %d exponents and %d moduli", len(bases), len(exps), len(mods))
	}
	out := make([]*big.Int, len(bases))
	errs := make([]error, len(bases))
	groups := map[int][]int{} // modulus width → elements
	for i := range bases {
		n, err := checkModExp(bases[i], exps[i], mods[i])
		if err != nil {
			errs[i] = err
			continue
		}
		groups[n] = append(groups[n], i)
	}
	for n, idx := range groups {
		m, err := cfg.ResolveFor(e.dev, n, len(idx))
		if err != nil {
			return nil, err
		}
		job, err := newModExpJob(m, idx, bases, exps, mods)
		if err != nil {
			return nil, err
		}
		res, err := e.RunModExp(job)
		clear(job.Exp)
		if err != nil {
			return nil, err
		}
		row := make([]uint32, m.W)
		for col, i := range idx {
			for j := range m.W {
				row[j] = res.Out[j*job.Count+col]
			}
			out[i] = FromLimbs(row)
		}
	}
	return out, batch.Collect(errs)
}

// checkModExp validates one element and returns its modulus width.
func checkModExp(base, exp, mod *big.Int) (int, error) {
	switch {
	case mod == nil || mod.Sign() <= 0:
		return 0, ErrZeroModulus
	case mod.Bit(0) == 0:
		return 0, ErrEvenModulus
	case base == nil || base.Sign() < 0:
		return 0, errors.New("arith: modexp: base is nil or negative")
	case exp == nil || exp.Sign() < 0:
		return 0, errors.New("arith: modexp: exponent is nil or negative")
	}
	n, err := ModClass(mod.BitLen())
	if err != nil {
		return 0, err
	}
	if exp.BitLen() > MaxExpBits {
		return 0, fmt.Errorf("arith: modexp: a %d-bit exponent is wider than %d bits", exp.BitLen(), MaxExpBits)
	}
	return n, nil
}

// newModExpJob lays out elements idx (all of width m.N) for the device.
func newModExpJob(m Mont, idx []int, bases, exps, mods []*big.Int) (*ModExpJob, error) {
	count := len(idx)
	ebits := 1
	for _, i := range idx {
		ebits = max(ebits, exps[i].BitLen())
	}
	job := &ModExpJob{Mont: m, Count: count, EWords: (ebits + 31) / 32}
	job.Base = make([]uint32, m.W*count)
	job.Exp = make([]uint32, job.EWords*count)
	job.Index = make([]uint32, count)
	seen := map[string]uint32{}
	row := make([]uint32, max(m.W, job.EWords))
	defer clear(row)
	for col, i := range idx {
		key := string(mods[i].Bytes())
		k, ok := seen[key]
		if !ok {
			c, err := NewConstants(mods[i], m.W)
			if err != nil {
				return nil, err
			}
			k = uint32(len(job.Mods))
			seen[key] = k
			job.Mods = append(job.Mods, c)
		}
		job.Index[col] = k
		b := bases[i]
		if b.BitLen() > 32*m.N {
			b = new(big.Int).Mod(b, mods[i])
		}
		if err := PutLimbs(row[:m.W], b); err != nil {
			return nil, err
		}
		for j := range m.W {
			job.Base[j*count+col] = row[j]
		}
		if err := PutLimbs(row[:job.EWords], exps[i]); err != nil {
			return nil, err
		}
		for j := range job.EWords {
			job.Exp[j*count+col] = row[j]
		}
	}
	return job, nil
}
