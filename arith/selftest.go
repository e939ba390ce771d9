package arith

import (
	"fmt"
	"math/big"
	"math/rand/v2"
)

// SelfTest runs known-answer checks of every operation and width on the
// engine's device: fixed-seed inputs and edge values, compared with math/big.
func (e *Engine) SelfTest() error { return e.core.SelfTest(e.selfTest) }

// selfTest is SelfTest's test.
func (e *Engine) selfTest() error {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, bits := range Widths() {
		mod := new(big.Int).Lsh(big.NewInt(1), uint(bits))
		allOnes := new(big.Int).Sub(mod, big.NewInt(1))
		a := []*big.Int{big.NewInt(0), allOnes, allOnes, big.NewInt(1)}
		b := []*big.Int{big.NewInt(0), big.NewInt(1), allOnes, allOnes}
		for range 60 {
			x, y := make([]byte, bits/8), make([]byte, bits/8)
			for i := range x {
				x[i], y[i] = byte(rng.Uint32()), byte(rng.Uint32())
			}
			a = append(a, new(big.Int).SetBytes(x))
			b = append(b, new(big.Int).SetBytes(y))
		}
		sum, carry, err := e.Add(bits, a, b)
		if err != nil {
			return fmt.Errorf("add %d: %w", bits, err)
		}
		diff, borrow, err := e.Sub(bits, a, b)
		if err != nil {
			return fmt.Errorf("sub %d: %w", bits, err)
		}
		prod, err := e.Mul(bits, a, b)
		if err != nil {
			return fmt.Errorf("mul %d: %w", bits, err)
		}
		var w big.Int
		for i := range a {
			w.Add(a[i], b[i])
			if c := uint32(w.Rsh(&w, uint(bits)).Uint64()); c != carry[i] || w.Add(a[i], b[i]).Mod(&w, mod).Cmp(sum[i]) != 0 {
				return fmt.Errorf("add %d: element %d wrong", bits, i)
			}
			w.Sub(a[i], b[i])
			bw := uint32(0)
			if w.Sign() < 0 {
				bw = 1
			}
			if bw != borrow[i] || w.Mod(&w, mod).Cmp(diff[i]) != 0 {
				return fmt.Errorf("sub %d: element %d wrong", bits, i)
			}
			if w.Mul(a[i], b[i]).Cmp(prod[i]) != 0 {
				return fmt.Errorf("mul %d: element %d wrong", bits, i)
			}
		}
	}
	return nil
}

// SelfTestModExp checks ModExp at every modulus width against math/big on
// fixed-seed values: full-width exponents, edge bases (0, 1, m − 1, m),
// moduli of full and shorter width.
func (e *Engine) SelfTestModExp() error { return e.core.SelfTest(e.selfTestModExp) }

// selfTestModExp is SelfTestModExp's test.
func (e *Engine) selfTestModExp() error {
	rng := rand.New(rand.NewPCG(3, 4))
	rnd := func(bits int) *big.Int {
		b := make([]byte, (bits+7)/8)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return new(big.Int).SetBytes(b)
	}
	for _, n := range ModLimbs() {
		bits := 32 * n
		var bases, exps, mods []*big.Int
		for i := range 16 {
			m := rnd(bits)
			if i%2 == 0 {
				m.SetBit(m, bits-1, 1) // full width
			}
			m.SetBit(m, 0, 1)
			x := rnd(bits)
			switch i {
			case 0:
				x.SetInt64(0)
			case 1:
				x.SetInt64(1)
			case 2:
				x.Sub(m, big.NewInt(1))
			case 3:
				x.Set(m)
			}
			bases, exps, mods = append(bases, x), append(exps, rnd(bits)), append(mods, m)
		}
		got, err := e.ModExp(bases, exps, mods)
		if err != nil {
			return fmt.Errorf("modexp %d: %w", bits, err)
		}
		for i := range got {
			if want := new(big.Int).Exp(bases[i], exps[i], mods[i]); want.Cmp(got[i]) != 0 {
				return fmt.Errorf("modexp %d: element %d wrong", bits, i)
			}
		}
	}
	return nil
}
