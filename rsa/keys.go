package rsa

import (
	stdrsa "crypto/rsa"
	"fmt"
	"math/big"
	"runtime"
	"sync"
	"weak"

	"github.com/gpucrypto/gpucrypto/arith"
)

// Key sizes the package accepts (bits of the modulus).
const (
	MinKeyBits = 1024
	MaxKeyBits = 4096
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

	// cache holds the key's forms for the CPU arithmetic and for each
	// engine's device (limbs, Montgomery constants), keyed by form; filled
	// lazily, read concurrently.
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
// halves and of its modulus. The elements of one job share it.
func (k *privateKey) class() [2]int { return [2]int{k.half, k.pub.limbs} }

// sizeClass returns the smallest modulus width of the device kernels, in
// 32-bit limbs, that holds a number of bits bits (arith.ModClass: 512 to
// 4096 bits), or false when none does. Moduli of the public operation take
// any class, the CRT halves of 1024- to 4096-bit keys 16 to 64 limbs.
func sizeClass(bits int) (int, bool) {
	n, err := arith.ModClass(bits)
	return n, err == nil
}

// maxExponent is the largest public exponent accepted, as in crypto/rsa.
const maxExponent = 1<<31 - 1

// maxHalfLimbs is the largest size class of a CRT half (a prime).
const maxHalfLimbs = 64

func keyError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidKey}, args...)...)
}

// privSources are the fields of key that its prepared form comes from (a
// key whose fields were replaced after its first use is prepared again).
func privSources(key *stdrsa.PrivateKey) (src [7]*big.Int) {
	src[0], src[1] = key.N, key.D
	if len(key.Primes) == 2 {
		src[2], src[3] = key.Primes[0], key.Primes[1]
	}
	src[4], src[5], src[6] = key.Precomputed.Dp, key.Precomputed.Dq, key.Precomputed.Qinv
	return src
}

// The caches map a key pointer to its prepared form without keeping the key
// alive: entries are keyed by weak pointers and removed by a cleanup when
// the key is collected, so they hold at most one entry per live key.
var (
	pubCache  = newKeyCache[stdrsa.PublicKey, publicKey]()
	privCache = newKeyCache[stdrsa.PrivateKey, privateKey]()
)

type keyCache[K, V any] struct {
	mu sync.Mutex
	m  map[weak.Pointer[K]]*V
}

func newKeyCache[K, V any]() *keyCache[K, V] {
	return &keyCache[K, V]{m: make(map[weak.Pointer[K]]*V)}
}

func (c *keyCache[K, V]) get(k *K) *V {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[weak.Make(k)]
}

// put stores v for k unless an entry that keep accepts is already there,
// and returns the entry in the cache.
func (c *keyCache[K, V]) put(k *K, v *V, keep func(*V) bool) *V {
	w := weak.Make(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.m[w]
	if ok && keep(old) {
		return old
	}
	c.m[w] = v
	if !ok {
		runtime.AddCleanup(k, c.remove, w)
	}
	return v
}

func (c *keyCache[K, V]) remove(w weak.Pointer[K]) {
	c.mu.Lock()
	delete(c.m, w)
	c.mu.Unlock()
}

// preparePublic validates pub and returns its prepared form, from the
// cache when pub was prepared before.
func preparePublic(pub *stdrsa.PublicKey) (*publicKey, error) {
	if pub == nil {
		return nil, keyError("nil public key")
	}
	if k := pubCache.get(pub); k != nil && k.sourceN == pub.N && k.sourceE == pub.E {
		return k, nil
	}
	k, err := newPublicKey(pub)
	if err != nil {
		return nil, err
	}
	k.sourceN = pub.N
	return pubCache.put(pub, k, func(old *publicKey) bool {
		return old.sourceN == pub.N && old.sourceE == pub.E
	}), nil
}

func newPublicKey(pub *stdrsa.PublicKey) (*publicKey, error) {
	n := pub.N
	switch {
	case n == nil:
		return nil, keyError("missing modulus N")
	case n.Sign() <= 0:
		return nil, keyError("modulus is not positive")
	case n.Bit(0) == 0:
		return nil, keyError("modulus is even")
	case n.BitLen() < MinKeyBits || n.BitLen() > MaxKeyBits:
		return nil, keyError("%d-bit modulus: supported sizes are %d to %d bits", n.BitLen(), MinKeyBits, MaxKeyBits)
	case pub.E < 3:
		return nil, keyError("public exponent %d is below 3", pub.E)
	case pub.E%2 == 0:
		return nil, keyError("public exponent %d is even", pub.E)
	case pub.E > maxExponent:
		return nil, keyError("public exponent %d does not fit 31 bits", pub.E)
	}
	bits := n.BitLen()
	limbs, ok := sizeClass(bits)
	if !ok {
		return nil, keyError("no size class holds a %d-bit modulus", bits)
	}
	return &publicKey{n: new(big.Int).Set(n), nBytes: n.FillBytes(make([]byte, (bits+7)/8)), e: pub.E, bits: bits, limbs: limbs, sourceE: pub.E}, nil
}

// preparePrivate validates key and returns its prepared form (with its
// blinding state), prepared once per key pointer.
func preparePrivate(key *stdrsa.PrivateKey) (*privateKey, error) {
	if key == nil {
		return nil, keyError("nil private key")
	}
	src := privSources(key)
	if k := privCache.get(key); k != nil && k.source == src && k.pub.sourceE == key.E {
		return k, nil
	}
	k, err := newPrivateKey(key)
	if err != nil {
		return nil, err
	}
	k.source = src
	return privCache.put(key, k, func(old *privateKey) bool {
		return old.source == src && old.pub.sourceE == key.E
	}), nil
}

func newPrivateKey(key *stdrsa.PrivateKey) (*privateKey, error) {
	pub, err := newPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	switch {
	case key.D == nil:
		return nil, keyError("missing private exponent D")
	case len(key.Primes) < 2:
		return nil, keyError("missing primes (a key needs its two primes P and Q for CRT)")
	case len(key.Primes) > 2:
		return nil, keyError("multi-prime keys (%d primes) are not supported", len(key.Primes))
	case key.Primes[0] == nil || key.Primes[1] == nil:
		return nil, keyError("nil prime")
	}
	p, q := key.Primes[0], key.Primes[1]
	if p.Cmp(bigOne) <= 0 || q.Cmp(bigOne) <= 0 || p.Bit(0) == 0 || q.Bit(0) == 0 {
		return nil, keyError("primes must be odd and greater than 1")
	}
	if new(big.Int).Mul(p, q).Cmp(key.N) != 0 {
		return nil, keyError("P·Q != N")
	}
	// crypto/rsa checks the rest (d·e ≡ 1 mod p-1 and q-1, the CRT values
	// given or computed, |p-q|, d's size) on a copy, so the caller's key is
	// left exactly as it was. The CRT values that the copy computed (a key
	// without them) are zeroed once the prepared key has its own.
	cp := *key
	cp.Primes = []*big.Int{p, q}
	cp.Precompute()
	defer clearComputed(&cp.Precomputed, &key.Precomputed)
	if err := cp.Validate(); err != nil {
		return nil, keyError("%v", err)
	}
	pc := cp.Precomputed
	if pc.Dp == nil || pc.Dq == nil || pc.Qinv == nil {
		return nil, keyError("CRT values could not be computed")
	}
	halfBits := max(p.BitLen(), q.BitLen())
	half, ok := sizeClass(halfBits)
	if !ok || half > maxHalfLimbs {
		return nil, keyError("primes of %d and %d bits: the larger must not exceed %d bits", p.BitLen(), q.BitLen(), 32*maxHalfLimbs)
	}
	return &privateKey{
		pub:  pub,
		p:    new(big.Int).Set(p),
		q:    new(big.Int).Set(q),
		dp:   new(big.Int).Set(pc.Dp),
		dq:   new(big.Int).Set(pc.Dq),
		qinv: new(big.Int).Set(pc.Qinv),
		half: half,
	}, nil
}

// clearComputed zeroes the CRT values of computed that are not the
// caller's own (those of given, the caller's key): the ones Precompute
// made for a copy of a key that lacked them.
func clearComputed(computed, given *stdrsa.PrecomputedValues) {
	for _, v := range [][2]*big.Int{{computed.Dp, given.Dp}, {computed.Dq, given.Dq}, {computed.Qinv, given.Qinv}} {
		if v[0] != nil && v[0] != v[1] {
			clear(v[0].Bits())
		}
	}
}

var bigOne = big.NewInt(1)
