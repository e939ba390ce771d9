package arith_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// fp64Device returns the test device, skipping when it has no fp64.
func fp64Device(t *testing.T) *device.Device {
	d := devicetest.Device(t)
	if !d.FP64 {
		t.Skipf("%s has no double precision", d.Name)
	}
	return d
}

// TestModExpFP64AgainstMathBig runs the fp64 variant at every width it has
// on the integer variants' cases, and the general product for squarings
// at 512 bits.
func TestModExpFP64AgainstMathBig(t *testing.T) {
	d := fp64Device(t)
	eng, err := arith.NewEngine(d)
	require.NoError(t, err)
	eng.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	type run struct {
		bits int
		cfg  arith.MontConfig
	}
	var runs []run
	for _, n := range arith.FP64Limbs() {
		runs = append(runs, run{32 * n, arith.MontConfig{Variant: arith.FP64}})
	}
	runs = append(runs, run{512, arith.MontConfig{Variant: arith.FP64, Sqr: -1}})
	// the multi-thread form: every width, several numbers of lanes (8 at
	// 512 bits resolves to 4)
	for _, n := range arith.ModLimbs() {
		for _, t := range []int{2, 4, 8} {
			runs = append(runs, run{32 * n, arith.MontConfig{Variant: arith.FP64, Threads: t}})
		}
	}
	short := devicetest.Short(d)
	for _, r := range runs {
		m, err := r.cfg.ResolveFor(d, r.bits/32, 0) // as the engine resolves it (52-bit digits with PTX)
		require.NoError(t, err)
		count := 300 // at 2048 bits: quick on PoCL for one work-item per number
		if short && r.cfg.Threads > 1 && r.bits > 1024 {
			count = 48 // lanes exchange through local memory there, at barriers
		}
		t.Run(fmt.Sprintf("%d/%s", r.bits, m), func(t *testing.T) {
			checkModExp(t, eng, r.cfg, modexpCases(r.bits, count))
		})
	}
}

// TestModExpFP64PerModulus runs a job whose exponents belong to the moduli
// (the RSA CRT layout) through RunModExp.
func TestModExpFP64PerModulus(t *testing.T) {
	d := fp64Device(t)
	eng, err := arith.NewEngine(d)
	require.NoError(t, err)
	eng.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	m, err := arith.MontConfig{Variant: arith.FP64}.Resolve(32)
	require.NoError(t, err)
	mods := []*big.Int{randOdd(1024), randOdd(1000)}
	exps := []*big.Int{randBelow(mods[0]), randBelow(mods[1])}
	const count = 10
	job := &arith.ModExpJob{Mont: m, Count: count, EWords: 32, ExpPerModulus: true,
		Base: make([]uint32, m.W*count), Exp: make([]uint32, 32*len(mods)), Index: make([]uint32, count)}
	row := make([]uint32, 32)
	for k, mod := range mods {
		c, err := arith.NewConstants(mod, m.W)
		require.NoError(t, err)
		job.Mods = append(job.Mods, c)
		require.NoError(t, arith.PutLimbs(row, exps[k]))
		for j := range 32 {
			job.Exp[j*len(mods)+k] = row[j]
		}
	}
	bases := make([]*big.Int, count)
	for i := range bases {
		job.Index[i] = uint32(i % len(mods))
		bases[i] = randBelow(mods[i%len(mods)])
		require.NoError(t, arith.PutLimbs(row, bases[i]))
		for j := range 32 {
			job.Base[j*count+i] = row[j]
		}
	}
	res, err := eng.RunModExp(job)
	require.NoError(t, err)
	for i := range bases {
		for j := range 32 {
			row[j] = res.Out[j*count+i]
		}
		k := i % len(mods)
		require.Zero(t, new(big.Int).Exp(bases[i], exps[k], mods[k]).Cmp(arith.FromLimbs(row)), "element %d", i)
	}
}

// fp64Digits is the reference digit form: digit i is bits [51i, 51i+51).
func fp64Digits(x *big.Int, d int) []uint64 {
	out := make([]uint64, d)
	mask := new(big.Int).SetUint64(1<<51 - 1)
	for i := range out {
		out[i] = new(big.Int).And(new(big.Int).Rsh(x, uint(51*i)), mask).Uint64()
	}
	return out
}

// TestFP64Conversions checks the kernel's conversions between n words and
// 51-bit digits in doubles at every width: the doubles' bit patterns
// against the reference digits, and the words back. Values: zero, all
// ones, every single bit, ones around every digit boundary, random.
func TestFP64Conversions(t *testing.T) {
	d := fp64Device(t)
	for _, n := range arith.FP64Limbs() {
		t.Run(fmt.Sprint(32*n), func(t *testing.T) {
			m, err := arith.MontConfig{Variant: arith.FP64}.Resolve(n)
			require.NoError(t, err)
			p, err := m.Program(d, m.KernelFile(), nil)
			require.NoError(t, err)
			k, err := p.Kernel("fp64_convert")
			require.NoError(t, err)
			one := big.NewInt(1)
			top := new(big.Int).Lsh(one, uint(32*n))
			vals := []*big.Int{new(big.Int), new(big.Int).Sub(top, one)}
			for b := 0; b < 32*n; b++ {
				vals = append(vals, new(big.Int).Lsh(one, uint(b)))
			}
			for b := 51; b < 32*n; b += 51 { // 2^b − 1 and 2^b + 2^(b−1) − 1
				v := new(big.Int).Sub(new(big.Int).Lsh(one, uint(b)), one)
				vals = append(vals, v, new(big.Int).Add(v, new(big.Int).Lsh(one, uint(b-1))))
			}
			for range 64 {
				vals = append(vals, randBelow(top))
			}
			count, dg := len(vals), m.Digits
			in := make([]uint32, n*count)
			row := make([]uint32, n)
			for i, v := range vals {
				require.NoError(t, arith.PutLimbs(row, v))
				for j := range n {
					in[j*count+i] = row[j]
				}
			}
			din, err := d.Upload(device.Uint32Bytes(in))
			require.NoError(t, err)
			defer din.Release()
			ddig, err := d.NewBuffer(8 * dg * count)
			require.NoError(t, err)
			defer ddig.Release()
			dback, err := d.NewBuffer(4 * n * count)
			require.NoError(t, err)
			defer dback.Release()
			ev, err := k.Launch(count, 64, ddig, dback, din, uint32(count))
			require.NoError(t, err)
			require.NoError(t, ev.Wait())
			ev.Release()
			raw := make([]byte, 8*dg*count)
			require.NoError(t, ddig.Read(0, raw))
			back := make([]uint32, n*count)
			require.NoError(t, dback.Read(0, device.Uint32Bytes(back)))
			for i, v := range vals {
				want := fp64Digits(v, dg)
				for j := range dg {
					got := binary.LittleEndian.Uint64(raw[8*(j*count+i):])
					require.Equal(t, math.Float64bits(float64(want[j])), got, "value %x digit %d", v, j)
				}
				for j := range n {
					row[j] = back[j*count+i]
				}
				require.Zero(t, v.Cmp(arith.FromLimbs(row)), "value %x came back as %x", v, arith.FromLimbs(row))
			}
		})
	}
}

// fp64Split is FP64_SPLIT of kernels/fp64.h in Go (math.FMA rounds once,
// to nearest, like the device's fma): it returns the bit patterns of the
// high and low halves.
func fp64Split(a, b float64) (hi, lo uint64) {
	const c1 = 0x1p103
	const k = 0x1p103 + 0x3p51
	h := math.FMA(a, b, c1)
	return math.Float64bits(h), math.Float64bits(math.FMA(a, b, k-h))
}

// TestFP64SplitExact checks the exactness argument of fp64.h on the
// extremes: for a < 2^52 (digits and doubled digits) and b < 2^51, the bit
// patterns are BH + H and BL + L with a·b = H·2^51 + L exactly, |L| ≤ 2^50,
// including the ties of the rounding (a·b ≡ 2^50 mod 2^51) both ways.
func TestFP64SplitExact(t *testing.T) {
	const bl, bh = uint64(0x433)<<52 | 1<<51, uint64(0x466) << 52
	rng := rand.New(rand.NewPCG(1, 2))
	maxA, maxB := uint64(1)<<52-2, uint64(1)<<51-1
	pairs := [][2]uint64{{0, 0}, {0, maxB}, {maxA, 0}, {maxA, maxB}, {maxB, maxB}, {1, 1 << 50}, {3, 1 << 50},
		{5, 1 << 50}, {1<<51 - 1, 1 << 50}, {maxA, 1 << 50}, {1 << 51, maxB}, {1<<52 - 4, maxB}}
	for range 20000 {
		pairs = append(pairs, [2]uint64{rng.Uint64N(maxA + 1), rng.Uint64N(maxB + 1)},
			[2]uint64{maxA - rng.Uint64N(1<<20), maxB - rng.Uint64N(1<<20)},
			[2]uint64{2*rng.Uint64N(1<<51) + 1, 1 << 50}) // ties: a·b ≡ 2^50 mod 2^51
	}
	for _, p := range pairs {
		a, b := p[0], p[1]
		hb, lb := fp64Split(float64(a), float64(b))
		H, L := int64(hb-bh), int64(lb-bl)
		require.True(t, H >= 0 && H < 1<<52, "a=%d b=%d: H=%d", a, b, H)
		require.True(t, L >= -(1<<50) && L <= 1<<50, "a=%d b=%d: L=%d", a, b, L)
		// H·2^51 + L == a·b as 128-bit integers
		phi, plo := bits.Mul64(a, b)
		shi, slo := bits.Mul64(uint64(H), 1<<51)
		var c uint64
		if L >= 0 {
			slo, c = bits.Add64(slo, uint64(L), 0)
			shi += c
		} else {
			slo, c = bits.Sub64(slo, uint64(-L), 0)
			shi -= c
		}
		require.Equal(t, [2]uint64{phi, plo}, [2]uint64{shi, slo}, "a=%d b=%d", a, b)
	}
}

func TestFP64Resolve(t *testing.T) {
	m, err := arith.MontConfig{Variant: arith.FP64}.Resolve(32)
	require.NoError(t, err)
	require.Equal(t, arith.Mont{N: 32, W: 32, Variant: arith.FP64, FinalSub: true, Sqr: true, Window: 4, Digits: 21, DigitBits: 51, Lanes: 1}, m)
	require.Equal(t, "fp64-21x51+sqr-w4", m.String())
	m, err = arith.MontConfig{Variant: arith.FP64, Rows: 1}.Resolve(32)
	require.NoError(t, err)
	require.Equal(t, "fp64-21x51+sqr-w4-unrolled", m.String())
	require.Contains(t, m.Defines(), "FP64_UNROLL")
	require.Equal(t, "modexp_fp64.cl", m.KernelFile())
	cios, err := arith.MontConfig{Variant: arith.CIOS, Rows: 1}.Resolve(32)
	require.NoError(t, err)
	require.Contains(t, cios.Defines(), "MONT_UNROLL_32")
	require.NotContains(t, arith.Mont{N: 32, W: 32, Variant: arith.CIOS, FinalSub: true}.Defines(), "MONT_UNROLL_32")
	require.Contains(t, m.Defines(), "FP64_WANT_32")
	m, err = arith.MontConfig{Variant: arith.FP64, Sqr: -1, Rows: -1, Form: arith.FinalSub}.Resolve(64)
	require.NoError(t, err)
	require.Equal(t, "fp64-41x51-w5", m.String())
	m, err = arith.MontConfig{Variant: arith.FP64}.Resolve(64) // no dedicated squaring at 2048 bits
	require.NoError(t, err)
	require.False(t, m.Sqr)
	_, err = arith.MontConfig{Variant: arith.FP64}.Resolve(48)
	require.ErrorContains(t, err, "fp64 variant exists for [512 1024 2048]-bit moduli")
	_, err = arith.MontConfig{Variant: arith.FP64, Form: arith.NoFinalSub}.Resolve(32)
	require.ErrorContains(t, err, "no \"nfs\" form")
	require.Equal(t, arith.CIOS, arith.DefaultMont(32).Variant)
	// a device without double precision: a clear error, before any build
	m, err = arith.MontConfig{Variant: arith.FP64}.Resolve(32)
	require.NoError(t, err)
	nofp := &device.Device{Info: device.Info{Name: "no-fp64 device"}}
	require.ErrorContains(t, m.Buildable(nofp), "needs a device with double precision")
	_, err = m.Program(nofp, m.KernelFile(), nil)
	require.ErrorContains(t, err, "fp64 Montgomery variant needs a device with double precision; no-fp64 device has none")
}

// On a GPU with fast double precision, a batch that fills it gets the
// FP64 variant with lanes by width; small batches keep the integer
// multi-thread forms, explicit settings win, and other GPUs are unchanged.
func TestFastFP64Resolve(t *testing.T) {
	fast := &device.Device{Info: device.Info{Class: device.VendorNVIDIA, Type: device.TypeGPU, ComputeUnits: 132, FP64: true, FastFP64: true}}
	slow := &device.Device{Info: device.Info{Class: device.VendorNVIDIA, Type: device.TypeGPU, ComputeUnits: 132, FP64: true}}
	ptx := &device.Device{Info: fast.Info}
	ptx.CarryChains = true
	for _, c := range []struct {
		cfg   arith.MontConfig
		dev   *device.Device
		n     int
		count int
		want  string
	}{
		{arith.MontConfig{}, fast, 32, 1 << 20, "fp64-22x51-w4-t2"},
		{arith.MontConfig{}, fast, 32, 0, "fp64-22x51-w4-t2"},
		{arith.MontConfig{}, fast, 64, 1 << 20, "fp64-44x51-w4-t4"},
		{arith.MontConfig{}, fast, 128, 1 << 20, "fp64-88x51-w4-t8"},
		{arith.MontConfig{}, fast, 16, 1 << 20, "fp64-11x51+sqr-w4"},
		{arith.MontConfig{}, fast, 48, 1 << 20, "fp64-32x51-w4-t4"},
		{arith.MontConfig{}, fast, 96, 1 << 20, "fp64-64x51-w4-t4"},
		{arith.MontConfig{Window: 6}, fast, 96, 1 << 20, "fp64-64x51-w6-t4"},
		{arith.MontConfig{}, fast, 32, 2, "cios-fs-w4-t16"},
		{arith.MontConfig{Variant: arith.CIOS}, fast, 32, 1 << 20, "cios-fs+sqr-w4"},
		{arith.MontConfig{}, slow, 32, 1 << 20, "cios-fs+sqr-w4"},
		// with the PTX path: 52-bit digits in the multi-thread form
		{arith.MontConfig{}, ptx, 32, 1 << 20, "fp64-20x52-w4-t2"},
		{arith.MontConfig{}, ptx, 64, 1 << 20, "fp64-40x52-w4-t4"},
		{arith.MontConfig{}, ptx, 128, 1 << 20, "fp64-80x52-w4-t8"},
		{arith.MontConfig{}, ptx, 16, 1 << 20, "fp64-11x51+sqr-w4"},
		{arith.MontConfig{Variant: arith.FP64, Threads: 8}, ptx, 16, 0, "fp64-12x52-w4-t4"},
	} {
		m, err := c.cfg.ResolveFor(c.dev, c.n, c.count)
		require.NoError(t, err)
		require.Equal(t, c.want, m.String(), "%+v, %d limbs, %d numbers, fast %v", c.cfg, c.n, c.count, c.dev.FastFP64)
	}
}
