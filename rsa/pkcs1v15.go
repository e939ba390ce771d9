package rsa

import (
	"crypto"
	"crypto/subtle"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"
)

// PKCS #1 v1.5 (RFC 8017 §8.2, §7.2): EMSA-PKCS1-v1_5 encoding for
// signatures, and the EME-PKCS1-v1_5 padding of encryption.

// digestAlgorithms are the hash OIDs of the DigestInfo that
// EMSA-PKCS1-v1_5 wraps around a digest (RFC 8017 §9.2 note 1; NIST CSOR
// for SHA-3).
var digestAlgorithms = map[crypto.Hash]asn1.ObjectIdentifier{
	crypto.MD5:        {1, 2, 840, 113549, 2, 5},
	crypto.SHA1:       {1, 3, 14, 3, 2, 26},
	crypto.SHA224:     {2, 16, 840, 1, 101, 3, 4, 2, 4},
	crypto.SHA256:     {2, 16, 840, 1, 101, 3, 4, 2, 1},
	crypto.SHA384:     {2, 16, 840, 1, 101, 3, 4, 2, 2},
	crypto.SHA512:     {2, 16, 840, 1, 101, 3, 4, 2, 3},
	crypto.SHA512_224: {2, 16, 840, 1, 101, 3, 4, 2, 5},
	crypto.SHA512_256: {2, 16, 840, 1, 101, 3, 4, 2, 6},
	crypto.SHA3_224:   {2, 16, 840, 1, 101, 3, 4, 2, 7},
	crypto.SHA3_256:   {2, 16, 840, 1, 101, 3, 4, 2, 8},
	crypto.SHA3_384:   {2, 16, 840, 1, 101, 3, 4, 2, 9},
	crypto.SHA3_512:   {2, 16, 840, 1, 101, 3, 4, 2, 10},
}

// digestInfoPrefixes holds, per hash, the DER encoding of
//
//	DigestInfo ::= SEQUENCE {
//	    digestAlgorithm AlgorithmIdentifier,  -- { OID, NULL }
//	    digest OCTET STRING }
//
// up to the digest bytes, which follow it in T. crypto.MD5SHA1 (TLS 1.0 and
// 1.1) signs the bare 36-byte digest, as does hash 0 (raw).
var digestInfoPrefixes = func() map[crypto.Hash][]byte {
	type algorithmIdentifier struct {
		Algorithm  asn1.ObjectIdentifier
		Parameters asn1.RawValue
	}
	type digestInfo struct {
		Algorithm algorithmIdentifier
		Digest    []byte
	}
	out := map[crypto.Hash][]byte{0: nil, crypto.MD5SHA1: nil}
	for h, oid := range digestAlgorithms {
		size := h.Size()
		der, err := asn1.Marshal(digestInfo{algorithmIdentifier{oid, asn1.NullRawValue}, make([]byte, size)})
		if err != nil {
			panic(err)
		}
		out[h] = der[:len(der)-size]
	}
	return out
}()

// pkcs1v15Prefix returns the DigestInfo prefix for hash, or an error when
// EMSA-PKCS1-v1_5 is not defined for it.
func pkcs1v15Prefix(hash crypto.Hash) ([]byte, error) {
	prefix, ok := digestInfoPrefixes[hash]
	if !ok {
		return nil, fmt.Errorf("rsa: PKCS #1 v1.5 signatures with hash %v are not supported", hash)
	}
	return prefix, nil
}

var errNotHashed = errors.New("rsa: input must be hashed message")

// emsaPKCS1v15 returns EM = 0x00 0x01 PS 0x00 T for a k-byte modulus, where
// T = prefix || digest and PS is at least 8 bytes of 0xff.
func emsaPKCS1v15(hash crypto.Hash, prefix, digest []byte, k int) ([]byte, error) {
	em := make([]byte, k)
	if err := emsaPKCS1v15Into(em, hash, prefix, digest); err != nil {
		return nil, err
	}
	return em, nil
}

// emsaPKCS1v15Into is emsaPKCS1v15 for k = len(em), written into em (every
// byte of it).
func emsaPKCS1v15Into(em []byte, hash crypto.Hash, prefix, digest []byte) error {
	if hash != 0 && len(digest) != hash.Size() {
		return errNotHashed
	}
	k, tLen := len(em), len(prefix)+len(digest)
	if k < tLen+11 {
		return ErrMessageTooLong
	}
	em[0], em[1] = 0x00, 0x01
	sep := k - tLen - 1
	for i := 2; i < sep; i++ {
		em[i] = 0xff
	}
	em[sep] = 0x00
	copy(em[sep+1:], prefix)
	copy(em[sep+1+len(prefix):], digest)
	return nil
}

// emePKCS1v15 returns EM = 0x00 0x02 PS 0x00 M for a k-byte modulus with
// the nonzero padding ps, which must be k-len(msg)-3 bytes long.
func emePKCS1v15(msg, ps []byte, k int) []byte {
	em := make([]byte, k)
	em[1] = 0x02
	copy(em[2:], ps)
	copy(em[k-len(msg):], msg)
	return em
}

// readNonZero fills dst with random nonzero bytes from r, drawing more
// bytes to replace the zeros it discards.
func readNonZero(r io.Reader, dst []byte) error {
	buf := make([]byte, len(dst))
	for filled := 0; filled < len(dst); {
		want := buf[:len(dst)-filled]
		if _, err := io.ReadFull(r, want); err != nil {
			return err
		}
		for _, b := range want {
			if b != 0 {
				dst[filled] = b
				filled++
			}
		}
	}
	return nil
}

// unpadPKCS1v15 checks in constant time that em = 0x00 0x02 PS 0x00 M with
// PS at least 8 nonzero bytes. It returns valid = 1 and the index of M when
// it is, else valid = 0 and len(em). Neither a branch nor a memory index
// depends on the bytes of em.
func unpadPKCS1v15(em []byte) (valid, start int) {
	if len(em) < 11 {
		return 0, len(em)
	}
	valid = subtle.ConstantTimeByteEq(em[0], 0x00) & subtle.ConstantTimeByteEq(em[1], 0x02)
	seen, sep := 0, 0 // seen becomes 1 at the first zero byte after PS
	for i := 2; i < len(em); i++ {
		zero := subtle.ConstantTimeByteEq(em[i], 0)
		sep = subtle.ConstantTimeSelect(zero&(1-seen), i, sep)
		seen |= zero
	}
	valid &= seen & subtle.ConstantTimeLessOrEq(2+8, sep)
	return valid, subtle.ConstantTimeSelect(valid, sep+1, len(em))
}

// sessionKeyPKCS1v15 copies the message of em into key, in constant time,
// when em is validly padded and its message exactly len(key) bytes long;
// otherwise key is left as it was.
func sessionKeyPKCS1v15(em, key []byte) {
	if len(em) < len(key)+11 {
		return
	}
	valid, start := unpadPKCS1v15(em)
	valid &= subtle.ConstantTimeEq(int32(len(em)-start), int32(len(key)))
	subtle.ConstantTimeCopy(valid, key, em[len(em)-len(key):])
}
