package rsa

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/gpucrypto/gpucrypto/batch"
)

// cpuBackend computes the RSA primitives with math/big, spreading a batch
// over all cores. It is the backend of CPUEngine and the fallback of every
// device Engine.
//
// math/big is not constant-time: the time of a private operation depends
// on the input and, through cache and reduction timing, on the key. Engines
// whose private operations may run on the CPU and whose timing an attacker
// can observe should enable blinding (Engine.SetBlinding).
type cpuBackend struct {
	// corrupt, when set (tests only), is applied to the mod-p half of each
	// private operation before recombination, to exercise the fault check.
	corrupt func(mp *big.Int)
}

func (c *cpuBackend) String() string { return "CPU (math/big)" }

// private computes in[i]^d mod n by CRT with Garner's recombination and
// checks each result against the public key before releasing it.
func (c *cpuBackend) private(keys []*privKey, in []*big.Int) ([]*big.Int, error) {
	if len(keys) != len(in) {
		return nil, fmt.Errorf("rsa: %d keys for %d inputs", len(keys), len(in))
	}
	return batch.Each(len(in), func(i int) (*big.Int, error) {
		k, x := keys[i], in[i]
		if err := checkInput(k.pub, x); err != nil {
			return nil, err
		}
		m := crt(k, x, c.corrupt)
		if !checkPrivate(k.pub, m, x) {
			return nil, ErrFault
		}
		return m, nil
	})
}

// public computes in[i]^e mod n.
func (c *cpuBackend) public(keys []*pubKey, in []*big.Int) ([]*big.Int, error) {
	if len(keys) != len(in) {
		return nil, fmt.Errorf("rsa: %d keys for %d inputs", len(keys), len(in))
	}
	return batch.Each(len(in), func(i int) (*big.Int, error) {
		k, x := keys[i], in[i]
		if err := checkInput(k, x); err != nil {
			return nil, err
		}
		return new(big.Int).Exp(x, big.NewInt(int64(k.e)), k.n), nil
	})
}

func checkInput(k *pubKey, x *big.Int) error {
	switch {
	case k == nil:
		return errors.New("rsa: nil key")
	case x == nil:
		return errors.New("rsa: nil input")
	case x.Sign() < 0 || x.Cmp(k.n) >= 0:
		return ErrInputRange
	}
	return nil
}

// crt returns x^d mod n computed as
//
//	mp = x^dp mod p,  mq = x^dq mod q
//	h  = qinv·(mp − mq) mod p
//	m  = mq + h·q
//
// corrupt (tests) alters mp before recombination.
func crt(k *privKey, x *big.Int, corrupt func(*big.Int)) *big.Int {
	mp := new(big.Int).Mod(x, k.p)
	mp.Exp(mp, k.dp, k.p)
	mq := new(big.Int).Mod(x, k.q)
	mq.Exp(mq, k.dq, k.q)
	if corrupt != nil {
		corrupt(mp)
	}
	h := mp.Sub(mp, mq)
	h.Mul(h, k.qinv)
	h.Mod(h, k.p) // Mod is Euclidean: h ends in [0, p)
	h.Mul(h, k.q)
	return h.Add(h, mq)
}

// checkPrivate reports whether m^e mod n == x.
func checkPrivate(k *pubKey, m, x *big.Int) bool {
	if m.Sign() < 0 || m.Cmp(k.n) >= 0 {
		return false
	}
	y := new(big.Int).Exp(m, big.NewInt(int64(k.e)), k.n)
	return y.Cmp(x) == 0
}
