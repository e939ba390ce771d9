package rsa

import (
	"crypto/subtle"
	"hash"
)

// EME-OAEP (RFC 8017 §7.1) with MGF1. h hashes the label, mgf is the hash
// of MGF1 (usually the same function; separate hash.Hash values).

// oaepPad returns EM = 0x00 || maskedSeed || maskedDB for a k-byte modulus,
// where DB = lHash || PS || 0x01 || msg and seed has h.Size() bytes. The
// caller checks len(msg) <= k - 2·hLen - 2.
func oaepPad(h, mgf hash.Hash, msg, label, seed []byte, k int) []byte {
	hLen := h.Size()
	em := make([]byte, k)
	maskedSeed := em[1 : 1+hLen]
	db := em[1+hLen:]
	h.Reset()
	h.Write(label)
	h.Sum(db[:0]) // lHash
	db[len(db)-len(msg)-1] = 0x01
	copy(db[len(db)-len(msg):], msg)
	copy(maskedSeed, seed)
	mgf1XOR(db, mgf, maskedSeed) // maskedDB = DB ⊕ MGF(seed)
	mgf1XOR(maskedSeed, mgf, db) // maskedSeed = seed ⊕ MGF(maskedDB)
	return em
}

// oaepMaxMessage is the longest message OAEP fits in a k-byte modulus with
// an hLen-byte hash (negative when none fits).
func oaepMaxMessage(k, hLen int) int { return k - 2*hLen - 2 }

// oaepUnpad unmasks em in place and checks in constant time that it is
// 0x00 || seed || lHash || PS || 0x01 || M with PS all zeros and lHash the
// hash of label. It returns valid = 1 and the index of M in em when it is,
// else valid = 0 and len(em): which check failed is never revealed, and no
// branch or memory index depends on the bytes of em. The caller checks
// len(em) >= 2·hLen + 2.
func oaepUnpad(h, mgf hash.Hash, em, label []byte) (valid, start int) {
	hLen := h.Size()
	h.Reset()
	h.Write(label)
	lHash := h.Sum(nil)

	seed := em[1 : 1+hLen]
	db := em[1+hLen:]
	mgf1XOR(seed, mgf, db)
	mgf1XOR(db, mgf, seed)

	valid = subtle.ConstantTimeByteEq(em[0], 0) & subtle.ConstantTimeCompare(db[:hLen], lHash)
	// After lHash: zeros, then the 0x01 separator. seen becomes 1 at the
	// separator; any other nonzero byte before it spoils the padding.
	seen, bad, sep := 0, 0, 0
	for i := hLen; i < len(db); i++ {
		zero := subtle.ConstantTimeByteEq(db[i], 0)
		one := subtle.ConstantTimeByteEq(db[i], 1)
		sep = subtle.ConstantTimeSelect(one&(1-seen), i, sep)
		bad |= (1 - seen) & (1 - zero) & (1 - one)
		seen |= one
	}
	valid &= seen & (1 - bad)
	return valid, subtle.ConstantTimeSelect(valid, 1+hLen+sep+1, len(em))
}
