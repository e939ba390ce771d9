package rsa

import (
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
func (c *cpuBackend) private(keys []*privateKey, in, out [][]byte) error {
	return eachElement(keys, in, out, func(k *privateKey, x, m []byte) error {
		ck, err := k.constantTime()
		if err != nil {
			return err
		}
		return ck.private(x, m, c.corrupt)
	})
}

// public computes in[i]^e mod n.
func (c *cpuBackend) public(keys []*publicKey, in, out [][]byte) error {
	return eachElement(keys, in, out, func(k *publicKey, x, y []byte) error {
		if len(x) != modBytes(k) || len(y) != len(x) {
			return errValueSize
		}
		v := new(big.Int).SetBytes(x)
		if v.Cmp(k.n) >= 0 {
			return ErrInputRange
		}
		v.Exp(v, big.NewInt(int64(k.e)), k.n).FillBytes(y)
		return nil
	})
}

// checkShape is the whole-call error of a backend call whose slices differ
// in length (the Engine never makes one).
func checkShape(keys, in, out int) error {
	if keys != in || out != in {
		return fmt.Errorf("rsa: %d keys, %d inputs and %d outputs", keys, in, out)
	}
	return nil
}

// eachElement runs f on every element of a backend call, on all cores, and
// returns the per-element errors (nil, or a *batch.Error). A call whose
// slices differ in length fails as a whole.
func eachElement[K any](keys []*K, in, out [][]byte, f func(k *K, x, y []byte) error) error {
	if err := checkShape(len(keys), len(in), len(out)); err != nil {
		return err
	}
	errs := make([]error, len(in))
	batch.Parallel(len(in), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if keys[i] == nil {
				errs[i] = errNilKey
				continue
			}
			errs[i] = f(keys[i], in[i], out[i])
		}
	})
	return batch.Collect(errs)
}
