package ecdsa

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"math/big"
)

// The nonces of signatures over P-256, as crypto/ecdsa makes them (Go 1.24
// and later): "hedged" signatures (draft-irtf-cfrg-det-sigs-with-noise,
// §4), an HMAC_DRBG with SHA-512 (NIST SP 800-90A; crypto/ecdsa uses
// SHA-512 whatever the hash signed) seeded with 32 random bytes Z as its
// entropy and, as its personalization string, the private key d and
// bits2octets(hash), each block-aligned; candidates of 32 bytes are drawn
// until one is in [1, n). A poor random source then still gives a nonce
// that depends on the key and the message, never a repeated one for
// different messages. The same DRBG with the digest's hash, d as the
// entropy and bits2octets(hash) as the nonce is RFC 6979's deterministic
// ECDSA (the tests and the self-test check it against RFC 6979's vectors).
//
// The device derives the hedged nonces itself, in the signing kernel
// (kernels/hmac_drbg.h), from the 32 random bytes the host reads: on the
// host, HMAC_DRBG over SHA-512 would bound end-to-end signing well below
// the device's rate. The tests compare the kernel's derivation
// with a host copy made of this file's DRBG (hedgedNonce). RFC 6979's
// deterministic nonces (the self-test, the Server's Signer with a nil
// reader) are still derived here, by deterministicNonce, and handed to
// the kernel.

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

// bits2octets is the hash's integer reduced modulo n, 32 bytes big-endian
// (RFC 6979 §2.3.4).
func bits2octets(hash []byte) (out [32]byte) {
	e := hashInteger(hash)
	v := new(big.Int).SetBytes(e[:])
	v.Mod(v, orderInt).FillBytes(out[:])
	return out
}

// orderInt is n.
var orderInt = new(big.Int).SetBytes(groupOrder)

// deterministicNonce is RFC 6979's nonce for the private key d (32 bytes)
// and a SHA-256 hash.
func deterministicNonce(d, hash []byte) [32]byte {
	b := bits2octets(hash)
	return newDRBG(sha256.New, d, b[:]).nonce()
}
