package rsa

import (
	"crypto/rand"
	"errors"
	"math/big"
	"sync"
)

// blinder holds one key's blinding pair (r^e mod n, r^-1 mod n) for a
// random r. Each use takes the current pair and replaces it by its square
// (still a valid pair, for r²), so consecutive operations are blinded by
// different values at the cost of two modular squarings instead of a new
// inversion.
type blinder struct {
	mu   sync.Mutex
	re   *big.Int // r^e mod n
	rinv *big.Int // r^-1 mod n
}

// next returns a fresh copy of the pair for one operation under pub.
func (b *blinder) next(pub *pubKey) (re, rinv *big.Int, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.re == nil {
		if b.re, b.rinv, err = newBlindingPair(pub); err != nil {
			return nil, nil, err
		}
	}
	re, rinv = new(big.Int).Set(b.re), new(big.Int).Set(b.rinv)
	b.re.Mul(b.re, b.re).Mod(b.re, pub.n)
	b.rinv.Mul(b.rinv, b.rinv).Mod(b.rinv, pub.n)
	return re, rinv, nil
}

func newBlindingPair(pub *pubKey) (re, rinv *big.Int, err error) {
	for range 64 {
		r, err := rand.Int(rand.Reader, pub.n)
		if err != nil {
			return nil, nil, err
		}
		if r.Cmp(bigOne) <= 0 {
			continue
		}
		rinv = new(big.Int).ModInverse(r, pub.n)
		if rinv == nil {
			continue // r shares a factor with n (never, for a real key)
		}
		re = new(big.Int).Exp(r, big.NewInt(int64(pub.e)), pub.n)
		return re, rinv, nil
	}
	return nil, nil, errors.New("rsa: no invertible blinding value found")
}
