package arith

import (
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"filippo.io/bigmod"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
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
	j := &modexpJob{e: e, job: job, res: &ModExpResult{Out: make([]uint32, W*job.Count)}}
	j.deviceModuli = sync.OnceValue(func() moduliRows { return newModuliRows(job.Mods, W) })
	j.cpuModuli = sync.OnceValues(func() ([]*bigmod.Modulus, []*big.Int) { return newCPUModuli(job.Mods, W) })
	plan := engine.Plan{Op: "modexp", Size: 32 * m.N, N: job.Count, Depth: 1}
	if dev := e.core.Device(); dev != nil {
		plan.Chunk = m.ChunkElems(job.Count, 1, TableLimit(dev))
	}
	if err := e.core.Run(plan, j); err != nil {
		return nil, err
	}
	j.res.Kernel = time.Duration(j.kernel.Load())
	return j.res, nil
}

// modexpJob is one call of RunModExp.
type modexpJob struct {
	e      *Engine
	job    *ModExpJob
	res    *ModExpResult
	kernel atomic.Int64 // device time, ns
	// the moduli as the device batches and the CPU take them, made once
	// for the call by the first that needs them
	deviceModuli func() moduliRows
	cpuModuli    func() ([]*bigmod.Modulus, []*big.Int)
}

// moduliRows are moduli as the kernel takes them: M, One and R2
// limb-major (row i holds limb i of every modulus), and N0.
type moduliRows struct{ mods, ones, r2s, n0s []uint32 }

func newModuliRows(cs []*Constants, W int) moduliRows {
	K := len(cs)
	r := moduliRows{make([]uint32, W*K), make([]uint32, W*K), make([]uint32, W*K), make([]uint32, K)}
	for k, c := range cs {
		for i := range W {
			r.mods[i*K+k], r.ones[i*K+k], r.r2s[i*K+k] = c.M[i], c.One[i], c.R2[i]
		}
		r.n0s[k] = c.N0
	}
	return r
}

// newCPUModuli returns moduli for filippo.io/bigmod and for math/big.
func newCPUModuli(cs []*Constants, W int) ([]*bigmod.Modulus, []*big.Int) {
	moduli := make([]*bigmod.Modulus, len(cs))
	bigModuli := make([]*big.Int, len(cs))
	for k, c := range cs {
		// the moduli are public and odd (NewConstants checked)
		mod, err := bigmod.NewModulus(LimbsToBytes(c.M, 4*W))
		if err != nil {
			panic("arith: a modulus that NewConstants accepted: " + err.Error())
		}
		moduli[k], bigModuli[k] = mod, FromLimbs(c.M)
	}
	return moduli, bigModuli
}

// Device implements engine.Job: the elements [lo, hi) through the modexp
// kernel of the job's form. The exponents, the table of powers and the
// results may be secret (RSA halves): their device buffers are zeroed
// after the batch.
func (j *modexpJob) Device(ch *engine.Chunk) error {
	job, m := j.job, j.job.Mont
	W, K, count := m.W, len(job.Mods), job.Count
	lo, hi := ch.Lo, ch.Hi
	n := hi - lo
	kern, err := m.ModExpKernel(ch.Device())
	if err != nil {
		return err
	}
	mr := j.deviceModuli()
	base := rows(job.Base, W, count, lo, hi)
	exp := job.Exp
	if !job.ExpPerModulus {
		exp = rows(job.Exp, job.EWords, count, lo, hi)
		if n != count {
			defer clear(exp)
		}
	}
	out := outRows(j.res.Out, W, count, lo, hi)
	if n != count {
		defer clear(out) // a copy of secret results
	}
	err = ch.Run(func(cmds *device.Commands) error {
		a := ModExpArgs{EWords: job.EWords, ExpPerModulus: job.ExpPerModulus, K: K, Count: n}
		var err error
		for _, up := range []struct {
			buf    **device.Buffer
			words  []uint32
			secret bool
		}{{&a.Base, base, false}, {&a.Exp, exp, true}, {&a.Mods, mr.mods, false}, {&a.Ones, mr.ones, false},
			{&a.R2s, mr.r2s, false}, {&a.N0s, mr.n0s, false}, {&a.Index, job.Index[lo:hi], false}} {
			if *up.buf, err = cmds.Upload(up.words, up.secret); err != nil {
				return err
			}
		}
		if a.Table, err = cmds.Buffer(4*n*m.TableWords(), true); err != nil {
			return err
		}
		if a.Out, err = cmds.Buffer(4*W*n, true); err != nil {
			return err
		}
		if err := m.EnqueueModExp(cmds, kern, a); err != nil {
			return err
		}
		return cmds.Read(a.Out, device.Uint32Bytes(out))
	})
	j.kernel.Add(int64(ch.DeviceTime()))
	if err != nil {
		return err
	}
	putRows(j.res.Out, out, W, count, lo, hi)
	return nil
}

// CPU implements engine.Job: the elements [lo, hi) in constant time with
// filippo.io/bigmod (the time depends on the sizes, not on the values).
func (j *modexpJob) CPU(lo, hi int) {
	job, m := j.job, j.job.Mont
	W, count := m.W, job.Count
	moduli, bigModuli := j.cpuModuli()
	batch.Parallel(hi-lo, 1, func(s, t int) {
		limbs := make([]uint32, max(W, job.EWords))
		defer clear(limbs)
		for i := lo + s; i < lo+t; i++ {
			mod := moduli[job.Index[i]]
			for k := range W {
				limbs[k] = job.Base[k*count+i]
			}
			// the base may exceed the modulus: reduced by math/big (bases
			// are not secret; exponents are)
			base := FromLimbs(limbs[:W])
			base.Mod(base, bigModuli[job.Index[i]])
			x, err := bigmod.NewNat().SetBytes(base.FillBytes(make([]byte, mod.Size())), mod)
			if err != nil {
				panic("arith: a reduced base above its modulus: " + err.Error())
			}
			col, stride := i, count
			if job.ExpPerModulus {
				col, stride = int(job.Index[i]), len(job.Mods)
			}
			for k := range job.EWords {
				limbs[k] = job.Exp[k*stride+col]
			}
			e := LimbsToBytes(limbs[:job.EWords], 4*job.EWords)
			y := x.Exp(x, e, mod).Bytes(mod)
			clear(e)
			r, _ := BytesToLimbs(y, W)
			clear(y)
			for k := range W {
				j.res.Out[k*count+i] = r[k]
			}
			clear(r)
		}
	})
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
		m, err := cfg.ResolveFor(e.core.Device(), n, len(idx))
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
