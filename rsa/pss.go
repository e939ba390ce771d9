package rsa

import (
	"crypto"
	stdrsa "crypto/rsa"
	"crypto/subtle"
	"errors"
	"fmt"
	"hash"
)

// EMSA-PSS (RFC 8017 §9.1) with MGF1 over the message hash.

// saltAuto, as a verification salt length, means: read the salt length
// from the encoded message.
const saltAuto = -1

var errPSSInput = errors.New("rsa: input must be hashed with given hash")

// pssSignSalt returns the salt length for signing under opts with an
// hLen-byte hash and an emLen-byte encoded message, as crypto/rsa.SignPSS
// does: PSSSaltLengthAuto is the longest salt that fits,
// PSSSaltLengthEqualsHash the hash length.
func pssSignSalt(opts *stdrsa.PSSOptions, hLen, emLen int) (int, error) {
	s := pssSaltOption(opts)
	switch {
	case s == stdrsa.PSSSaltLengthAuto:
		if s = emLen - 2 - hLen; s < 0 {
			return 0, ErrMessageTooLong
		}
		return s, nil
	case s == stdrsa.PSSSaltLengthEqualsHash:
		return hLen, nil
	case s > 0:
		return s, nil
	}
	return 0, fmt.Errorf("rsa: invalid PSS salt length %d", s)
}

// pssVerifySalt returns the salt length to verify with: saltAuto for
// PSSSaltLengthAuto (any length is accepted), as crypto/rsa.VerifyPSS.
func pssVerifySalt(opts *stdrsa.PSSOptions, hLen int) (int, error) {
	switch s := pssSaltOption(opts); {
	case s == stdrsa.PSSSaltLengthAuto:
		return saltAuto, nil
	case s == stdrsa.PSSSaltLengthEqualsHash:
		return hLen, nil
	case s > 0:
		return s, nil
	default:
		return 0, fmt.Errorf("rsa: invalid PSS salt length %d", s)
	}
}

func pssSaltOption(opts *stdrsa.PSSOptions) int {
	if opts == nil {
		return stdrsa.PSSSaltLengthAuto
	}
	return opts.SaltLength
}

// pssHash is the hash SignPSS uses: opts.Hash when set, else hash.
func pssHash(hash crypto.Hash, opts *stdrsa.PSSOptions) crypto.Hash {
	if opts != nil && opts.Hash != 0 {
		return opts.Hash
	}
	return hash
}

// checkHash reports an error when hash cannot be computed here.
func checkHash(hash crypto.Hash) error {
	if !hash.Available() {
		return fmt.Errorf("rsa: hash function %v is not available", hash)
	}
	return nil
}

// emsaPSSEncode returns the emLen = ⌈emBits/8⌉-byte EM = maskedDB || H ||
// 0xbc for the message hash mHash and salt, where H = h(0^8 || mHash ||
// salt), DB = PS || 0x01 || salt and the top 8·emLen − emBits bits of EM
// are cleared.
func emsaPSSEncode(h hash.Hash, mHash, salt []byte, emBits int) ([]byte, error) {
	hLen := h.Size()
	emLen := (emBits + 7) / 8
	if len(mHash) != hLen {
		return nil, errPSSInput
	}
	if emLen < hLen+len(salt)+2 {
		return nil, ErrMessageTooLong
	}
	em := make([]byte, emLen)
	db := em[:emLen-hLen-1]
	hh := em[emLen-hLen-1 : emLen-1]
	var zeros [8]byte
	h.Reset()
	h.Write(zeros[:])
	h.Write(mHash)
	h.Write(salt)
	h.Sum(hh[:0])
	db[len(db)-len(salt)-1] = 0x01
	copy(db[len(db)-len(salt):], salt)
	mgf1XOR(db, h, hh)
	db[0] &= 0xff >> (8*emLen - emBits)
	em[emLen-1] = 0xbc
	return em, nil
}

// emsaPSSVerify checks that em (⌈emBits/8⌉ bytes, unmasked in place) is a
// PSS encoding of mHash with an sLen-byte salt (saltAuto: any length).
// Verification handles public data only, so it need not be constant-time.
func emsaPSSVerify(h hash.Hash, mHash, em []byte, emBits, sLen int) error {
	hLen := h.Size()
	emLen := (emBits + 7) / 8
	if len(em) != emLen || len(mHash) != hLen {
		return ErrVerification
	}
	minSalt := max(sLen, 0)
	if emLen < hLen+minSalt+2 || em[emLen-1] != 0xbc {
		return ErrVerification
	}
	top := byte(0xff >> (8*emLen - emBits))
	if em[0]&^top != 0 {
		return ErrVerification
	}
	db := em[:emLen-hLen-1]
	hh := em[emLen-hLen-1 : emLen-1]
	mgf1XOR(db, h, hh)
	db[0] &= top
	// DB = zeros || 0x01 || salt
	one := 0
	for one < len(db) && db[one] == 0 {
		one++
	}
	if one == len(db) || db[one] != 0x01 {
		return ErrVerification
	}
	salt := db[one+1:]
	if sLen != saltAuto && len(salt) != sLen {
		return ErrVerification
	}
	var zeros [8]byte
	h.Reset()
	h.Write(zeros[:])
	h.Write(mHash)
	h.Write(salt)
	if subtle.ConstantTimeCompare(h.Sum(nil), hh) != 1 {
		return ErrVerification
	}
	return nil
}
