package generate

import (
	"math/big"
	"sync"
)

// p256 is NIST P-256's field prime and base point (FIPS 186-5), for the
// comb table of kernels/p256_comb.h below.
var p256 = func() (c struct{ p, gx, gy *big.Int }) {
	hex := func(s string) *big.Int { v, _ := new(big.Int).SetString(s, 16); return v }
	c.p = hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
	c.gx = hex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")
	c.gy = hex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")
	return
}()

// p256Add is the affine sum of two points of P-256 (a = −3) that are not
// each other's negatives: enough for the small multiples of G.
func p256Add(x1, y1, x2, y2 *big.Int) (*big.Int, *big.Int) {
	p := p256.p
	var l *big.Int
	if x1.Cmp(x2) == 0 {
		num := new(big.Int).Mul(x1, x1)
		num.Mul(num, big.NewInt(3)).Sub(num, big.NewInt(3))
		l = num.Mul(num, new(big.Int).ModInverse(new(big.Int).Lsh(y1, 1), p))
	} else {
		num := new(big.Int).Sub(y2, y1)
		den := new(big.Int).Sub(x2, x1)
		l = num.Mul(num, new(big.Int).ModInverse(den.Mod(den, p), p))
	}
	l.Mod(l, p)
	x := new(big.Int).Mul(l, l)
	x.Sub(x, x1).Sub(x, x2).Mod(x, p)
	y := new(big.Int).Sub(x1, x)
	y.Mul(y, l).Sub(y, y1).Mod(y, p)
	return x, y
}

// p256CombWords is the table of kernels/p256_comb.h: row i (i = 0..64)
// holds n·16^i·G for n = 1..8, affine, each coordinate in Montgomery form
// (8 words), x then y.
var p256CombWords = sync.OnceValue(func() []uint32 { return p256CombWordsOf(p256.gx, p256.gy) })

// p256CheckWords is the same table for the base point FaultCheckMultiple·G.
var p256CheckWords = sync.OnceValue(func() []uint32 {
	x, y := p256.gx, p256.gy
	for range FaultCheckMultiple - 1 {
		x, y = p256Add(x, y, p256.gx, p256.gy) // G + G first: p256Add doubles it
	}
	return p256CombWordsOf(x, y)
})

// p256CombWordsOf is the table of p256CombWords for the base point
// (gx, gy) in place of G.
func p256CombWordsOf(gx, gy *big.Int) []uint32 {
	var out []uint32
	mont := func(v *big.Int) {
		m := new(big.Int).Lsh(v, 256)
		m.Mod(m, p256.p)
		for w := range 8 {
			out = append(out, uint32(new(big.Int).Rsh(m, uint(32*w)).Uint64()))
		}
	}
	rx, ry := gx, gy // 16^i·(gx, gy)
	for range 65 {
		x, y := rx, ry
		for n := 1; n <= 8; n++ {
			mont(x)
			mont(y)
			x, y = p256Add(x, y, rx, ry)
		}
		for range 4 {
			rx, ry = p256Add(rx, ry, rx, ry)
		}
	}
	return out
}

// P256CombTableWords returns the table of kernels/p256_comb.h (documented
// above). The caller must not modify it.
func P256CombTableWords() []uint32 { return p256CombWords() }

// P256CheckTableWords returns the table of P256CombTableWords for the
// base point FaultCheckMultiple·G in place of G: row i, entry n is
// n·16^i·c·G. The caller must not modify it.
func P256CheckTableWords() []uint32 { return p256CheckWords() }
