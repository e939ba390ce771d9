package arith

import (
	"fmt"
	"math/big"
	"math/rand/v2"
)

// SelfTest runs known-answer checks of every operation and width on the
// engine's device: fixed-seed inputs and edge values, compared with math/big.
func (e *Engine) SelfTest() error {
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
