package rsa

import (
	"math/big"
	"sync"

	"github.com/gpucrypto/gpucrypto/arith"
)

// pubKey is a validated RSA public key prepared for batched use.
type pubKey struct {
	n     *big.Int
	e     int
	bits  int // n.BitLen()
	limbs int // device size class of n in 32-bit limbs (see sizeClass)

	// cache holds per-backend precomputations (device limbs, Montgomery
	// constants), keyed by the backend; filled lazily, read concurrently.
	cache sync.Map
}

// privKey is a validated two-prime RSA private key prepared for batched use.
type privKey struct {
	pub                *pubKey
	p, q, dp, dq, qinv *big.Int // CRT values (Precomputed by crypto/rsa)
	half               int      // device size class of p and q in 32-bit limbs

	cache sync.Map // as pubKey.cache
}

// backend computes the raw RSA primitives for a batch. All keys of one call
// have the same size class (pubKey.limbs). Implementations: cpuBackend
// (constant-time filippo.io/bigmod, always available) and deviceBackend
// (any device of package device: OpenCL or CUDA, device.go).
//
// Results are per element: a failed element has a nil result and its error
// in the returned *batch.Error; any other error fails the whole call.
type backend interface {
	// private returns in[i]^d mod n for keys[i], computed by CRT. Every
	// result has been checked against the public key (result^e mod n ==
	// in[i]); a failed check is an error for that element, never a value.
	// in[i] must be below n (callers check).
	private(keys []*privKey, in []*big.Int) ([]*big.Int, error)
	// public returns in[i]^e mod n for keys[i]; in[i] below n.
	public(keys []*pubKey, in []*big.Int) ([]*big.Int, error)
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
