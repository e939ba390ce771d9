package rsa

import (
	"fmt"
	"math/big"

	"filippo.io/bigmod"
)

// constantTimeKey is a private key in the form of the constant-time CPU
// arithmetic (filippo.io/bigmod): the moduli, the CRT exponents as
// fixed-length big-endian bytes, qinv modulo p and q modulo n.
type constantTimeKey struct {
	pub    *constantTimePublicKey
	p, q   *bigmod.Modulus
	dp, dq []byte
	qinv   *bigmod.Nat // < p
	qModN  *bigmod.Nat // q as an element mod n
	pInt   *big.Int    // p, for the test hook
}

// constantTimePublicKey is a public key in the form of the constant-time
// CPU arithmetic.
type constantTimePublicKey struct {
	n *bigmod.Modulus
	e uint
}

// the keys of the constant-time forms in publicKey.cache and
// privateKey.cache
type constantTimePublicTag struct{}
type constantTimeTag struct{}

// constTime returns k's constant-time form, built once.
func (k *publicKey) constantTime() (*constantTimePublicKey, error) {
	if v, ok := k.cache.Load(constantTimePublicTag{}); ok {
		return v.(*constantTimePublicKey), nil
	}
	n, err := bigmod.NewModulus(k.n.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%w: modulus: %v", ErrInvalidKey, err)
	}
	v, _ := k.cache.LoadOrStore(constantTimePublicTag{}, &constantTimePublicKey{n: n, e: uint(k.e)})
	return v.(*constantTimePublicKey), nil
}

// constTime returns k's constant-time form, built once.
func (k *privateKey) constantTime() (*constantTimeKey, error) {
	if v, ok := k.cache.Load(constantTimeTag{}); ok {
		return v.(*constantTimeKey), nil
	}
	pub, err := k.pub.constantTime()
	if err != nil {
		return nil, err
	}
	c := &constantTimeKey{pub: pub, pInt: k.p}
	if c.p, err = bigmod.NewModulus(k.p.Bytes()); err != nil {
		return nil, fmt.Errorf("%w: p: %v", ErrInvalidKey, err)
	}
	if c.q, err = bigmod.NewModulus(k.q.Bytes()); err != nil {
		return nil, fmt.Errorf("%w: q: %v", ErrInvalidKey, err)
	}
	c.dp = k.dp.FillBytes(make([]byte, c.p.Size())) // dp < p, dq < q
	c.dq = k.dq.FillBytes(make([]byte, c.q.Size()))
	if c.qinv, err = bigmod.NewNat().SetBytes(k.qinv.Bytes(), c.p); err != nil {
		return nil, fmt.Errorf("%w: qinv: %v", ErrInvalidKey, err)
	}
	if c.qModN, err = bigmod.NewNat().SetBytes(k.q.Bytes(), pub.n); err != nil {
		return nil, fmt.Errorf("%w: q: %v", ErrInvalidKey, err)
	}
	v, _ := k.cache.LoadOrStore(constantTimeTag{}, c)
	return v.(*constantTimeKey), nil
}

// nat returns x, a big-endian string of the modulus's size below m, as
// an element mod m.
func nat(x []byte, m *bigmod.Modulus) (*bigmod.Nat, error) {
	if len(x) != m.Size() {
		return nil, errValueSize
	}
	v, err := bigmod.NewNat().SetBytes(x, m)
	if err != nil {
		return nil, ErrInputRange
	}
	return v, nil
}

// private writes x^d mod n into out, for x below n (both big-endian
// strings of the modulus's size), computed by CRT with Garner's
// recombination,
//
//	mp = x^dp mod p,  mq = x^dq mod q
//	h  = qinv·(mp − mq) mod p
//	m  = mq + h·q
//
// and checked against the public key (m^e mod n == x) before it is
// released: a failed check is ErrFault. corrupt (tests) alters mp before
// recombination.
func (c *constantTimeKey) private(x, out []byte, corrupt func(*big.Int)) error {
	if len(out) != c.pub.n.Size() {
		return errValueSize
	}
	xn, err := nat(x, c.pub.n)
	if err != nil {
		return err
	}
	mp := bigmod.NewNat().Mod(xn, c.p)
	mp.Exp(mp, c.dp, c.p)
	mq := bigmod.NewNat().Mod(xn, c.q)
	mq.Exp(mq, c.dq, c.q)
	if corrupt != nil {
		v := new(big.Int).SetBytes(mp.Bytes(c.p))
		corrupt(v)
		v.Mod(v, c.pInt)
		if mp, err = nat(v.FillBytes(make([]byte, c.p.Size())), c.p); err != nil {
			return err
		}
	}
	mqp := bigmod.NewNat().Mod(mq, c.p) // q may exceed p
	h := mp.Sub(mqp, c.p).Mul(c.qinv, c.p)
	m := h.ExpandFor(c.pub.n).Mul(c.qModN, c.pub.n).Add(mq.ExpandFor(c.pub.n), c.pub.n)
	if !c.pub.verify(m, xn) {
		return ErrFault
	}
	b := m.Bytes(c.pub.n)
	copy(out, b)
	clear(b)
	return nil
}

// verify reports, in constant time in m, whether m^e mod n == x.
func (c *constantTimePublicKey) verify(m, x *bigmod.Nat) bool {
	y := bigmod.NewNat().ExpShortVarTime(m, c.e, c.n) // e is public
	return y.Equal(x) == 1
}

// checkPrivate reports whether m^e mod n == x for a result m of the
// private operation on x, both big-endian strings of the modulus's size
// (m is secret: the check runs in constant time in its value).
func checkPrivate(k *publicKey, m, x []byte) bool {
	c, err := k.constantTime()
	if err != nil {
		return false
	}
	mn, err := nat(m, c.n)
	if err != nil {
		return false
	}
	xn, err := nat(x, c.n)
	if err != nil {
		return false
	}
	return c.verify(mn, xn)
}
