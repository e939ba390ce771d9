package ecdsa

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
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
// ECDSA (deterministicNonce; the tests and the self-test check it against
// RFC 6979's vectors).
//
// The device derives the hedged nonces itself, in the signing kernel
// (kernels/hmac_drbg.h), from the 32 random bytes the host reads: on the
// host, HMAC_DRBG over SHA-512 would bound end-to-end signing well below
// the device's rate. The tests compare the kernel's derivation
// with a host HMAC_DRBG of their own (drbg_internal_test.go). RFC 6979's
// deterministic nonces (the self-test, the Server's Signer with a nil
// reader) are still derived here, by deterministicNonce, and handed to
// the kernel.

// bits2octets is the hash's integer reduced modulo n, 32 bytes big-endian
// (RFC 6979 §2.3.4). The integer is below 2^256 < 2n, so one conditional
// subtraction of n reduces it, made by a mask rather than a branch (the
// hash of a deterministic signature is no secret, but the same code
// serves keys' and nonces' sizes alike) and without allocating.
func bits2octets(hash []byte) (out [32]byte) {
	e := hashInteger(hash)
	var difference [4]uint64
	var borrow uint64
	for w := 3; w >= 0; w-- { // the least significant word first
		difference[w], borrow = bits.Sub64(binary.BigEndian.Uint64(e[8*w:]), orderWords[w], borrow)
	}
	keep := -borrow // all ones where e < n: e stays
	for w := range 4 {
		word := binary.BigEndian.Uint64(e[8*w:])
		binary.BigEndian.PutUint64(out[8*w:], word&keep|difference[w]&^keep)
	}
	return out
}

// deterministicNonce is RFC 6979's nonce for the private key d (32 bytes)
// and a SHA-256 hash: HMAC_DRBG over SHA-256 with d as the entropy
// and bits2octets(hash) as the nonce, written out for SHA-256 so that it
// allocates nothing and skips the update after the candidate accepted
// (which would serve only a next call): the host derives these nonces for
// every signature of a deterministic batch, beside the device's work.
// Its key and value are cleared once the nonce is drawn, and so is each
// refused candidate; the range check is validScalar's, in constant time.
func deterministicNonce(d, hash []byte) [32]byte {
	b := bits2octets(hash)
	var k, v [32]byte
	defer clear(k[:])
	defer clear(v[:])
	for i := range v {
		v[i] = 1
	}
	for _, round := range []byte{0, 1} {
		hmacSHA256(&k, &k, v[:], []byte{round}, d, b[:])
		hmacSHA256(&v, &k, v[:])
	}
	for {
		var candidate [32]byte
		hmacSHA256(&v, &k, v[:])
		candidate = v
		if validScalar(&candidate) {
			return candidate
		}
		clear(candidate[:])
		hmacSHA256(&k, &k, v[:], []byte{0})
		hmacSHA256(&v, &k, v[:])
	}
}

// hmacSHA256 sets out to HMAC-SHA256 under the 32-byte key of the
// concatenation of parts, on the stack: no hash object, no allocation.
// The parts are at most 97 bytes in all (RFC 6979's longest message over
// P-256: V, the round byte, the key and the hash); a longer message is a
// caller's bug and panics rather than being cut. out may be key.
func hmacSHA256(out, key *[32]byte, parts ...[]byte) {
	const block = 64
	var inner [block + 2*sha256.Size + 1 + 32]byte
	var outer [block + sha256.Size]byte
	for i := range key {
		inner[i] = key[i] ^ 0x36
		outer[i] = key[i] ^ 0x5c
	}
	for i := len(key); i < block; i++ {
		inner[i], outer[i] = 0x36, 0x5c
	}
	n := block
	for _, p := range parts {
		if n+len(p) > len(inner) {
			panic("ecdsa: hmacSHA256 message too long")
		}
		n += copy(inner[n:], p)
	}
	sum := sha256.Sum256(inner[:n])
	copy(outer[block:], sum[:])
	*out = sha256.Sum256(outer[:])
	clear(inner[:])
	clear(sum[:])
	clear(outer[:])
}
