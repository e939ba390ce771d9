package ecdsa

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"math/big"
	"testing"
	"testing/quick"

	"github.com/stretchr/testify/require"
)

// drbg is HMAC_DRBG over a hash function.
type drbg struct {
	newHash func() hash.Hash
	key, v  []byte
}

// newDRBG instantiates it with entropy, nonce and the personalization
// parts, each part preceded by zeros up to a multiple of the hash's block
// size of what was written before it.
func newDRBG(newHash func() hash.Hash, entropy, nonce []byte, personalization ...[]byte) *drbg {
	size := newHash().Size()
	d := &drbg{newHash: newHash, key: make([]byte, size), v: make([]byte, size)}
	for i := range d.v {
		d.v[i] = 1
	}
	for _, round := range []byte{0, 1} {
		h := hmac.New(newHash, d.key)
		h.Write(d.v)
		h.Write([]byte{round})
		h.Write(entropy)
		h.Write(nonce)
		written := len(d.v) + 1 + len(entropy) + len(nonce)
		for _, part := range personalization {
			padToBlock(h, written)
			h.Write(part)
			written = len(part)
		}
		d.key = h.Sum(d.key[:0])
		h = hmac.New(newHash, d.key)
		h.Write(d.v)
		d.v = h.Sum(d.v[:0])
	}
	return d
}

// padToBlock writes zeros up to the next multiple of the block size after
// written bytes.
func padToBlock(h hash.Hash, written int) {
	if rem := written % h.BlockSize(); rem != 0 {
		h.Write(make([]byte, h.BlockSize()-rem))
	}
}

// generate fills out (at most a few blocks) and updates the state.
func (d *drbg) generate(out []byte) {
	h := hmac.New(d.newHash, d.key)
	for n := 0; n < len(out); {
		h.Reset()
		h.Write(d.v)
		d.v = h.Sum(d.v[:0])
		n += copy(out[n:], d.v)
	}
	h.Reset()
	h.Write(d.v)
	h.Write([]byte{0})
	d.key = h.Sum(d.key[:0])
	h = hmac.New(d.newHash, d.key)
	h.Write(d.v)
	d.v = h.Sum(d.v[:0])
}

// nonce draws from d until a candidate is in [1, n): the nonce, 32 bytes
// big-endian. The range check is validScalar's, in constant time: a
// candidate's time does not depend on its value (a check that skipped
// leading zero bytes would take less time for a nonce with a zero top
// byte, which lattice attacks on ECDSA exploit); the loop tells only how
// many candidates were refused, which says nothing of the one accepted.
// The DRBG's key and value are cleared once the nonce is drawn (they
// determine it), and so is each refused candidate; crypto/hmac's internal
// states, which held them too, are out of reach and left to the garbage
// collector.
func (d *drbg) nonce() [32]byte {
	defer func() {
		clear(d.key)
		clear(d.v)
	}()
	var k [32]byte
	for {
		d.generate(k[:])
		if validScalar(&k) {
			return k
		}
		clear(k[:])
	}
}

// orderInt is n, for the tests' big-number arithmetic.
var orderInt = new(big.Int).SetBytes(groupOrder)

// deterministicNonce, HMAC-SHA256 written out on the stack, is the
// generic HMAC_DRBG's RFC 6979 nonce for random keys and hashes, for
// hashes shorter and longer than the order too (bits2octets then
// truncates or pads), and for keys whose first candidates are refused.
func TestDeterministicNonceIsTheDRBGs(t *testing.T) {
	property := func(d [32]byte, hash []byte) bool {
		b := bits2octets(hash)
		return deterministicNonce(d[:], hash) == newDRBG(sha256.New, d[:], b[:]).nonce()
	}
	require.NoError(t, quick.Check(property, &quick.Config{MaxCount: 2000}))
	for _, size := range []int{0, 20, 32, 48, 64} {
		hash := bytes.Repeat([]byte{0xff}, size)
		require.True(t, property([32]byte{0xff, 0xff, 0xff, 0xff}, hash), "hash of %d bytes", size)
	}
}

// deterministicNonce allocates nothing: deterministic batches derive one
// per signature on the host.
func TestDeterministicNonceAllocatesNothing(t *testing.T) {
	d := bytes.Repeat([]byte{7}, 32)
	hash := bytes.Repeat([]byte{9}, 32)
	allocations := testing.AllocsPerRun(100, func() { deterministicNonce(d, hash) })
	require.Zero(t, allocations)
}

// bits2octets is the hash's integer (its first 256 bits) modulo n, as
// big.Int computes it.
func TestBits2OctetsIsTheModulus(t *testing.T) {
	property := func(hash []byte) bool {
		e := hashInteger(hash)
		var want [32]byte
		new(big.Int).Mod(new(big.Int).SetBytes(e[:]), orderInt).FillBytes(want[:])
		return bits2octets(hash) == want
	}
	require.NoError(t, quick.Check(property, &quick.Config{MaxCount: 2000}))
	for _, hash := range [][]byte{groupOrder, bytes.Repeat([]byte{0xff}, 32), make([]byte, 32)} {
		require.True(t, property(hash), "%x", hash)
	}
}

// The host derives a deterministic batch's nonces one by one: the generic
// DRBG (crypto/hmac) beside deterministicNonce.
func BenchmarkDeterministicNonce(b *testing.B) {
	d := bytes.Repeat([]byte{7}, 32)
	hash := bytes.Repeat([]byte{9}, 32)
	b.Run("stack", func(b *testing.B) {
		for b.Loop() {
			deterministicNonce(d, hash)
		}
	})
	b.Run("crypto-hmac", func(b *testing.B) {
		for b.Loop() {
			octets := bits2octets(hash)
			newDRBG(sha256.New, d, octets[:]).nonce()
		}
	})
}
