package arith_test

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// modexpCase is one exponentiation with its expected value.
type modexpCase struct{ base, exp, mod *big.Int }

func randBelow(max *big.Int) *big.Int {
	x, err := rand.Int(rand.Reader, max)
	if err != nil {
		panic(err)
	}
	return x
}

// randOdd returns a random odd modulus of exactly bits bits.
func randOdd(bits int) *big.Int {
	m := randBelow(new(big.Int).Lsh(big.NewInt(1), uint(bits)))
	m.SetBit(m, bits-1, 1)
	return m.SetBit(m, 0, 1)
}

// modexpCases gives count cases at a modulus width of bits: edge moduli
// (1, 3, 2^bits − 1, 2^(bits−1) + 1, short moduli), edge bases (0, 1,
// m − 1, m, above m, 2^bits − 1) and exponents (0, 1, 2, all ones, full
// width), then random values.
func modexpCases(bits, count int) []modexpCase {
	one := big.NewInt(1)
	pow := func(k int) *big.Int { return new(big.Int).Lsh(one, uint(k)) }
	allOnes := new(big.Int).Sub(pow(bits), one)
	mods := []*big.Int{
		allOnes, new(big.Int).Add(pow(bits-1), one), randOdd(bits), randOdd(bits - 31),
		big.NewInt(3), one, new(big.Int).Sub(pow(bits), big.NewInt(3)),
	}
	var out []modexpCase
	for i := 0; len(out) < count; i++ {
		m := mods[i%len(mods)]
		if i >= 4*len(mods) {
			m = randOdd(bits - i%3)
		}
		bases := []*big.Int{big.NewInt(0), one, new(big.Int).Sub(m, one), m, new(big.Int).Add(m, big.NewInt(5)), allOnes, randBelow(m)}
		exps := []*big.Int{big.NewInt(0), one, big.NewInt(2), allOnes, randBelow(pow(bits)), big.NewInt(65537), randBelow(pow(64))}
		b := bases[i%len(bases)]
		e := exps[(i/len(bases))%len(exps)]
		if i >= 2*len(bases)*len(exps) {
			b, e = randBelow(pow(bits)), randBelow(pow(bits))
		}
		if b.BitLen() > bits { // m + 5 past the width
			b = randBelow(pow(bits))
		}
		out = append(out, modexpCase{b, e, m})
	}
	return out
}

func checkModExp(t *testing.T, eng *arith.Engine, cfg arith.MontConfig, cases []modexpCase) {
	t.Helper()
	bases, exps, mods := make([]*big.Int, len(cases)), make([]*big.Int, len(cases)), make([]*big.Int, len(cases))
	for i, c := range cases {
		bases[i], exps[i], mods[i] = c.base, c.exp, c.mod
	}
	got, err := eng.ModExpConfig(cfg, bases, exps, mods)
	require.NoError(t, err)
	for i, c := range cases {
		want := new(big.Int).Exp(c.base, c.exp, c.mod)
		require.Zero(t, want.Cmp(got[i]), "element %d: %x^%x mod %x: got %x want %x", i, c.base, c.exp, c.mod, got[i], want)
	}
}

// TestModExpAgainstMathBig runs every modulus width with the default
// configuration, and every Montgomery variant and form at 512 and 1024
// bits (the widths where all of them exist).
func TestModExpAgainstMathBig(t *testing.T) {
	d := devicetest.Device(t)
	eng, err := arith.NewEngine(d)
	require.NoError(t, err)
	eng.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	short := devicetest.Short(d)
	for _, n := range arith.ModLimbs() {
		bits := 32 * n
		count := 300
		if short && bits > 1024 {
			count = 24
		}
		t.Run(fmt.Sprintf("%d/default", bits), func(t *testing.T) {
			checkModExp(t, eng, arith.MontConfig{}, modexpCases(bits, count))
		})
	}
	for _, bits := range []int{512, 1024} {
		for _, v := range arith.Variants {
			for _, fs := range []bool{false, true} {
				for _, sqr := range []int{1, -1} {
					cfg := arith.MontConfig{Variant: v, Form: form(fs), Sqr: sqr}
					if short && bits == 1024 && (sqr < 0 || v == arith.FIPS) {
						continue
					}
					if m, err := cfg.Resolve(bits / 32); err == nil && m.Buildable(d) != nil {
						continue // refused on this device (see Mont.Buildable)
					}
					t.Run(fmt.Sprintf("%d/%s-fs=%v-sqr=%v", bits, v, fs, sqr > 0), func(t *testing.T) {
						checkModExp(t, eng, cfg, modexpCases(bits, 150))
					})
				}
			}
		}
	}
}

func TestModExpPerElementErrors(t *testing.T) {
	eng, err := arith.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	eng.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	m := randOdd(512)
	bases := []*big.Int{big.NewInt(7), big.NewInt(7), nil, big.NewInt(-1), big.NewInt(7), big.NewInt(7), big.NewInt(7), big.NewInt(7)}
	exps := []*big.Int{big.NewInt(5), big.NewInt(5), big.NewInt(5), big.NewInt(5), nil, big.NewInt(-2), new(big.Int).Lsh(big.NewInt(1), 5000), big.NewInt(5)}
	mods := []*big.Int{m, big.NewInt(10), m, m, m, m, m, new(big.Int).Lsh(big.NewInt(1), 5000)}
	out, err := eng.ModExp(bases, exps, mods)
	var be *batch.Error
	require.True(t, errors.As(err, &be), "per-element errors: %v", err)
	require.Len(t, be.Errs, len(bases))
	require.NoError(t, be.Errs[0])
	require.Zero(t, new(big.Int).Exp(big.NewInt(7), big.NewInt(5), m).Cmp(out[0]))
	require.ErrorIs(t, be.Errs[1], arith.ErrEvenModulus)
	for i := 2; i < len(bases); i++ {
		require.Error(t, be.Errs[i], "element %d", i)
		require.Nil(t, out[i])
	}
	_, err = eng.ModExp(bases[:2], exps, mods)
	require.ErrorContains(t, err, "2 bases")
	_, err = eng.ModExpShared([]*big.Int{big.NewInt(2)}, []*big.Int{big.NewInt(3)}, big.NewInt(0))
	require.ErrorIs(t, err, arith.ErrZeroModulus)
	_, err = eng.ModExpConfig(arith.MontConfig{Variant: "nope"}, bases[:1], exps[:1], mods[:1])
	require.ErrorContains(t, err, "unknown Montgomery variant")
}

func TestMontConstants(t *testing.T) {
	for _, bits := range []int{3, 64, 512, 2048} {
		m := randOdd(bits)
		w := (bits + 31) / 32
		c, err := arith.NewConstants(m, w)
		require.NoError(t, err)
		// n0·m ≡ −1 mod 2^32
		require.Equal(t, uint32(0xffffffff), c.N0*uint32(m.Bits()[0]))
		r2 := new(big.Int).Lsh(big.NewInt(1), uint(64*w))
		require.Zero(t, r2.Mod(r2, m).Cmp(arith.FromLimbs(c.R2)))
	}
	_, err := arith.NewConstants(big.NewInt(8), 1)
	require.ErrorIs(t, err, arith.ErrEvenModulus)
}

func form(fs bool) arith.Form {
	if fs {
		return arith.FinalSub
	}
	return arith.NoFinalSub
}
