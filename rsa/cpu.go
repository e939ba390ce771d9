package rsa

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/gpucrypto/gpucrypto/batch"
)

// cpuBackend computes the RSA primitives on all cores, spreading a batch
// over them. It is the backend of CPUEngine and the fallback of every
// device Engine.
//
// Private operations and their checks use filippo.io/bigmod, the
// constant-time modular arithmetic that crypto/rsa itself is built on: no
// branch and no memory index depends on the key or on the value. Public
// operations (nothing secret in them) use math/big.
type cpuBackend struct {
	// corrupt, when set (tests only), is applied to the mod-p half of each
	// private operation before recombination, to exercise the fault check.
	corrupt func(mp *big.Int)
}

func (c *cpuBackend) String() string { return "CPU" }

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
		ck, err := k.constTime()
		if err != nil {
			return nil, err
		}
		return ck.private(x, c.corrupt)
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
