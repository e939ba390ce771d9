package rsa

import (
	"crypto/rand"
	"errors"
	"math/big"
	"sync"

	"filippo.io/bigmod"
)

// blinder holds one key's blinding pair (r^e mod n, r^-1 mod n) for a
// random r. Each use takes the current pair and replaces it by its square
// (still a valid pair, for r²), so consecutive operations are blinded by
// different values at the cost of two modular squarings instead of a new
// inversion. The pair is secret: it is kept and used with the
// constant-time arithmetic of consttime.go.
type blinder struct {
	mu   sync.Mutex
	re   *bigmod.Nat // r^e mod n
	rinv *bigmod.Nat // r^-1 mod n
}

// blind returns x·r^e mod n for the next pair and the r^-1 that unblinds
// its result (unblind). x is a big-endian string of the modulus's size,
// below n; so is the blinded value.
func (b *blinder) blind(pub *publicKey, x []byte) ([]byte, *bigmod.Nat, error) {
	c, err := pub.constantTime()
	if err != nil {
		return nil, nil, err
	}
	xn, err := nat(x, c.n)
	if err != nil {
		return nil, nil, err
	}
	b.mu.Lock()
	if b.re == nil {
		if b.re, b.rinv, err = newBlindingPair(pub, c.n); err != nil {
			b.mu.Unlock()
			return nil, nil, err
		}
	}
	re := bigmod.NewNat().Mod(b.re, c.n) // copies
	rinv := bigmod.NewNat().Mod(b.rinv, c.n)
	b.re.Mul(b.re, c.n)
	b.rinv.Mul(b.rinv, c.n)
	b.mu.Unlock()
	xn.Mul(re, c.n)
	return xn.Bytes(c.n), rinv, nil
}

// unblind replaces m, the result of the private operation on a blinded
// input (below n, a big-endian string of the modulus's size), by
// m·rinv mod n and checks it against the input x before blinding:
// ErrFault when that fails (a faulty pair, a faulty unblinding), never a
// value.
func unblind(pub *publicKey, m []byte, rinv *bigmod.Nat, x []byte) error {
	c, err := pub.constantTime()
	if err != nil {
		return err
	}
	mn, err := nat(m, c.n)
	if err != nil {
		return ErrFault
	}
	mn.Mul(rinv, c.n)
	b := mn.Bytes(c.n)
	copy(m, b)
	clear(b)
	if !checkPrivate(pub, m, x) {
		return ErrFault
	}
	return nil
}

// newBlindingPair draws r in [2, n) invertible mod n and returns
// (r^e mod n, r^-1 mod n). The inversion is math/big's (its time depends
// on r, which is fresh, used only through its powers, and never again).
// The big.Ints of r and r^-1 and their byte strings are zeroed once the
// pair is made, every candidate's included.
func newBlindingPair(pub *publicKey, n *bigmod.Modulus) (re, rinv *bigmod.Nat, err error) {
	for range 64 {
		r, err := rand.Int(rand.Reader, pub.n)
		if err != nil {
			return nil, nil, err
		}
		re, rinv, ok, err := blindingPairOf(pub, n, r)
		if ok || err != nil {
			return re, rinv, err
		}
	}
	return nil, nil, errors.New("rsa: no invertible blinding value found")
}

// blindingPairOf is newBlindingPair's pair for r, or ok false where r is
// not a blinding value (r ≤ 1, or not invertible mod n); r is zeroed.
func blindingPairOf(pub *publicKey, n *bigmod.Modulus, r *big.Int) (re, rinv *bigmod.Nat, ok bool, err error) {
	defer clear(r.Bits())
	if r.Cmp(bigOne) <= 0 {
		return nil, nil, false, nil
	}
	ri := new(big.Int).ModInverse(r, pub.n)
	if ri == nil {
		return nil, nil, false, nil // r shares a factor with n (never, for a real key)
	}
	defer clear(ri.Bits())
	rb, rib := r.FillBytes(make([]byte, n.Size())), ri.FillBytes(make([]byte, n.Size()))
	defer func() {
		clear(rb)
		clear(rib)
	}()
	rn, err := nat(rb, n)
	if err != nil {
		return nil, nil, false, err
	}
	if rinv, err = nat(rib, n); err != nil {
		return nil, nil, false, err
	}
	re = bigmod.NewNat().ExpShortVarTime(rn, uint(pub.e), n) // e is public
	return re, rinv, true, nil
}
