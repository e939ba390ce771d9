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

// constantTime returns k's constant-time form, built once.
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

// constantTime returns k's constant-time form, built once. The byte strings
// of p, q and qinv it makes on the way (bigmod copies them) are zeroed, and
// so are the exponents of a form that another goroutine's build made
// first, or that failed.
func (k *privateKey) constantTime() (*constantTimeKey, error) {
	if v, ok := k.cache.Load(constantTimeTag{}); ok {
		return v.(*constantTimeKey), nil
	}
	pub, err := k.pub.constantTime()
	if err != nil {
		return nil, err
	}
	c, err := newConstantTimeKey(k, pub)
	if err != nil {
		return nil, err
	}
	v, loaded := k.cache.LoadOrStore(constantTimeTag{}, c)
	if loaded {
		c.clearExponents()
	}
	return v.(*constantTimeKey), nil
}

// newConstantTimeKey builds k's constant-time form over pub.
func newConstantTimeKey(k *privateKey, pub *constantTimePublicKey) (*constantTimeKey, error) {
	p, q, qinv := k.p.Bytes(), k.q.Bytes(), k.qinv.Bytes()
	defer func() {
		clear(p)
		clear(q)
		clear(qinv)
	}()
	c := &constantTimeKey{pub: pub, pInt: k.p}
	fail := func(what string, err error) (*constantTimeKey, error) {
		c.clearExponents()
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidKey, what, err)
	}
	var err error
	if c.p, err = bigmod.NewModulus(p); err != nil {
		return fail("p", err)
	}
	if c.q, err = bigmod.NewModulus(q); err != nil {
		return fail("q", err)
	}
	c.dp = k.dp.FillBytes(make([]byte, c.p.Size())) // dp < p, dq < q
	c.dq = k.dq.FillBytes(make([]byte, c.q.Size()))
	if c.qinv, err = bigmod.NewNat().SetBytes(qinv, c.p); err != nil {
		return fail("qinv", err)
	}
	if c.qModN, err = bigmod.NewNat().SetBytes(q, pub.n); err != nil {
		return fail("q", err)
	}
	return c, nil
}

// clearExponents zeroes the CRT exponents of a form that is not used
// (bigmod's moduli and numbers have no way to be zeroed: the garbage
// collector takes them).
func (c *constantTimeKey) clearExponents() {
	clear(c.dp)
	clear(c.dq)
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
