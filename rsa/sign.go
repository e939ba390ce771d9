package rsa

import (
	"crypto"
	stdrsa "crypto/rsa"
	"fmt"
	"hash"
	"io"
)

// SignPKCS1v15 signs each digests[i] with keys[i] using RSASSA-PKCS1-v1_5,
// as crypto/rsa.SignPKCS1v15 does (the signatures are byte-identical):
// digests[i] is the hash of the message under hash, or, with hash 0, the
// bytes to sign as they are. crypto.MD5SHA1 gives TLS 1.0/1.1 signatures.
func (e *Engine) SignPKCS1v15(keys []*stdrsa.PrivateKey, hash crypto.Hash, digests [][]byte) ([][]byte, error) {
	if err := shapeError([]string{"keys", "digests"}, len(keys), len(digests)); err != nil {
		return nil, err
	}
	prefix, err := pkcs1v15Prefix(hash)
	if err != nil {
		return nil, err
	}
	errs := make([]error, len(keys))
	ks := preparePrivates(keys, errs)
	return e.signatures(ks, errs, func(i int, em []byte) ([]byte, error) {
		return em, emsaPKCS1v15Into(em, hash, prefix, digests[i])
	})
}

// SignPSS signs each digests[i] with keys[i] using RSASSA-PSS, as
// crypto/rsa.SignPSS does: opts.Hash, when set, overrides hash; the salt
// length is opts.SaltLength (nil opts or PSSSaltLengthAuto: the longest
// that fits; PSSSaltLengthEqualsHash: the hash length). Salts are read from
// random (nil: crypto/rand.Reader) in element order.
func (e *Engine) SignPSS(random io.Reader, keys []*stdrsa.PrivateKey, hash crypto.Hash, digests [][]byte, opts *stdrsa.PSSOptions) ([][]byte, error) {
	if err := shapeError([]string{"keys", "digests"}, len(keys), len(digests)); err != nil {
		return nil, err
	}
	hash = pssHash(hash, opts)
	if err := checkHash(hash); err != nil {
		return nil, err
	}
	if s := pssSaltOption(opts); s < stdrsa.PSSSaltLengthEqualsHash {
		return nil, fmt.Errorf("rsa: invalid PSS salt length %d", s)
	}
	random = orDefault(random)
	keyErrs := make([]error, len(keys))
	ks := preparePrivates(keys, keyErrs)
	// Salts, read in one go and in element order: a caller's reader need
	// not be safe for concurrent use.
	saltLen := make([]int, len(keys))
	total := 0
	for i := range keys {
		if keyErrs[i] == nil {
			saltLen[i], keyErrs[i] = pssSaltFor(ks[i].pub, hash.Size(), opts)
			total += saltLen[i]
		}
	}
	buf := make([]byte, total)
	if _, err := io.ReadFull(random, buf); err != nil {
		return nil, fmt.Errorf("rsa: reading PSS salts: %w", err)
	}
	salts := make([][]byte, len(keys))
	for i, n := range saltLen {
		salts[i], buf = buf[:n:n], buf[n:]
	}
	hashes := newHashPool(hash)
	return e.signatures(ks, keyErrs, func(i int, em []byte) ([]byte, error) {
		h := hashes.get()
		defer hashes.Put(h)
		return em, pssSignInput(em, ks[i].pub, h, digests[i], salts[i])
	})
}

// signatures signs with the keys ks the values that encode writes into
// em, of the modulus's size (the encoded message of element i), and
// returns the signatures, each in its own string of the modulus's size
// (nil where the element failed: errs, which it updates, says why).
// Encoding runs in the engine's pipeline, next to the device work of
// other batches.
func (e *Engine) signatures(ks []*privateKey, errs []error, encode func(i int, em []byte) ([]byte, error)) ([][]byte, error) {
	return e.private(&call[*privateKey]{keys: ks, errs: errs, out: make([][]byte, len(ks)), input: encode})
}

// pssSaltFor is the salt length of a PSS signature under pub.
func pssSaltFor(pub *publicKey, hLen int, opts *stdrsa.PSSOptions) (int, error) {
	return pssSignSalt(opts, hLen, (pub.bits-1+7)/8)
}

// pssSignInput writes into em (the modulus's size) the value that signs
// digest under pub with salt. Its encoding has emBits = bits(n) − 1, so it
// is below n; when that is a byte shorter than the modulus, em's first
// byte is zero.
func pssSignInput(em []byte, pub *publicKey, h hash.Hash, digest, salt []byte) error {
	enc, err := emsaPSSEncode(h, digest, salt, pub.bits-1)
	if err != nil {
		return err
	}
	clear(em[:len(em)-len(enc)])
	copy(em[len(em)-len(enc):], enc)
	return nil
}
