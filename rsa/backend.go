package rsa

import (
	"math/big"
	"sync"

	"github.com/gpucrypto/gpucrypto/arith"
)

// publicKey is a validated RSA public key prepared for batched use.
type publicKey struct {
	n      *big.Int
	nBytes []byte // n, big-endian, modBytes long
	e      int
	bits   int // n.BitLen()
	limbs  int // device size class of n in 32-bit limbs (see sizeClass)

	// the fields of the *rsa.PublicKey it was prepared from, to notice a
	// key whose fields were replaced after its first use
	sourceN *big.Int
	sourceE int

	// cache holds per-backend precomputations (device limbs, Montgomery
	// constants), keyed by the backend; filled lazily, read concurrently.
	cache sync.Map
}

// privateKey is a validated two-prime RSA private key prepared for batched use.
type privateKey struct {
	pub                *publicKey
	p, q, dp, dq, qinv *big.Int // CRT values (Precomputed by crypto/rsa)
	half               int      // device size class of p and q in 32-bit limbs

	cache sync.Map // as publicKey.cache

	source [7]*big.Int // N, D, P, Q, Dp, Dq, Qinv as found in the *rsa.PrivateKey (privSources)
	blind  blinder     // the key's blinding state (Engine.SetBlinding)
}

// class is the size class of k's private operation: the classes of its
// halves and of its modulus. The elements of one backend call share it.
func (k *privateKey) class() [2]int { return [2]int{k.half, k.pub.limbs} }

// backend computes the raw RSA primitives for a group of elements whose
// keys share one size class (privateKey.class for private operations, the
// modulus's publicKey.limbs for public ones): the Engine groups them.
// Implementations: cpuBackend (constant-time filippo.io/bigmod, always
// available) and deviceBackend (any device of package device: OpenCL or
// CUDA, device.go).
//
// Values are big-endian strings of exactly the modulus's size (modBytes):
// in[i] is below the modulus (the Engine's callers check it, once), and
// the result of element i is written into out[i], of the same size. A
// failed element has its error in the returned *batch.Error (its out[i]
// is then meaningless: the Engine zeroes it); any other error fails the
// whole call.
type backend interface {
	// private writes in[i]^d mod n for keys[i], computed by CRT, into
	// out[i]. Every result has been checked against the public key
	// (out[i]^e mod n == in[i]); a failed check is an error for that
	// element (ErrFault), never a value.
	private(keys []*privateKey, in, out [][]byte) error
	// public writes in[i]^e mod n for keys[i] into out[i].
	public(keys []*publicKey, in, out [][]byte) error
	// String names the backend in errors and fallback reports.
	String() string
}

// sizeClass returns the smallest modulus width of the device kernels, in
// 32-bit limbs, that holds a number of bits bits (arith.ModClass: 512 to
// 4096 bits), or false when none does. Moduli of the public operation take
// any class, the CRT halves of 1024- to 4096-bit keys 16 to 64 limbs.
func sizeClass(bits int) (int, bool) {
	n, err := arith.ModClass(bits)
	return n, err == nil
}
