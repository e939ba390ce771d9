package ecdsa

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"errors"
	"fmt"
	"math/big"
	"math/bits"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"
)

// Errors of single elements (in a *batch.Error).
var (
	// ErrNilKey: a nil key (crypto/ecdsa panics on it).
	ErrNilKey = errors.New("ecdsa: nil key")
	// ErrCurve: a key on a curve other than P-256 (or none), the one
	// curve of this package's kernels.
	ErrCurve = errors.New("ecdsa: not a P-256 key")
	// ErrIncompleteKey: a key whose coordinates (or, for signing, scalar)
	// are nil (crypto/ecdsa panics on it).
	ErrIncompleteKey = errors.New("ecdsa: key with nil coordinates or scalar")
)

// checkPublic is the error of a public key this package cannot use: nil,
// on another curve, or with nil coordinates.
func checkPublic(pub *ecdsa.PublicKey) error {
	switch {
	case pub == nil:
		return ErrNilKey
	case pub.X == nil || pub.Y == nil:
		return ErrIncompleteKey
	}
	return checkCurve(pub)
}

// checkPrivate is checkPublic for a private key, its scalar included.
func checkPrivate(key *ecdsa.PrivateKey) error {
	switch {
	case key == nil:
		return ErrNilKey
	case key.D == nil:
		return ErrIncompleteKey
	}
	return checkPublic(&key.PublicKey)
}

// checkCurve is the error of a key that is not on P-256.
func checkCurve(pub *ecdsa.PublicKey) error {
	if !isP256(pub) {
		name := "no curve"
		if pub.Curve != nil {
			name = pub.Curve.Params().Name
		}
		return fmt.Errorf("%w: %s", ErrCurve, name)
	}
	return nil
}

// P-256's field prime p and group order n, 32 bytes big-endian.
var (
	fieldPrime = mustHex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
	groupOrder = mustHex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
)

func mustHex(s string) []byte {
	v, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic("ecdsa: bad constant")
	}
	return v.FillBytes(make([]byte, 32))
}

// isP256 reports whether pub is on P-256, the curve the kernels compute.
func isP256(pub *ecdsa.PublicKey) bool {
	return pub.Curve != nil && pub.Curve.Params() == elliptic.P256().Params()
}

// scalar32 is v (big-endian, leading zeros allowed) as 32 bytes, if it is
// in [1, limit) for limit 32 bytes big-endian; ok false otherwise. Its
// time depends on v's value (its leading zero bytes, the first byte that
// differs from limit): for public values alone, a signature's r and s.
// Secret scalars (private keys, nonces) take validScalar.
func scalar32(v, limit []byte) (out [32]byte, ok bool) {
	v = bytes.TrimLeft(v, "\x00")
	if len(v) == 0 || len(v) > 32 {
		return out, false
	}
	copy(out[32-len(v):], v)
	return out, bytes.Compare(out[:], limit) < 0
}

// scalarLimbs is scalar32(v, groupOrder) in limbs: v (big-endian, leading
// zeros allowed) if it is in [1, n).
func scalarLimbs(v []byte) (limbs, bool) {
	padded, ok := scalar32(v, groupOrder)
	return limbsOf(&padded), ok
}

// coordinateLimbs is a public key coordinate in limbs, if it is in
// [0, p) (crypto/ecdsa refuses others: a negative one, or one that does
// not encode below p), read from v's words without the 32 bytes FillBytes
// would make.
func coordinateLimbs(v *big.Int) (out limbs, ok bool) {
	if v == nil || v.Sign() < 0 || v.BitLen() > 256 {
		return out, false
	}
	for k, word := range v.Bits() { // at most 256 bits: 256 / bits.UintSize words
		for h := 0; h < bits.UintSize/32; h++ {
			out[k*bits.UintSize/32+h] = uint32(uint64(word) >> (32 * h))
		}
	}
	return out, below(&out, &primeLimbs)
}

// below reports whether a < b (not in constant time: for public values).
func below(a, b *limbs) bool {
	for w := 7; w >= 0; w-- {
		if a[w] != b[w] {
			return a[w] < b[w]
		}
	}
	return false
}

// primeLimbs is P-256's field prime p in limbs.
var primeLimbs = limbsOf((*[32]byte)(fieldPrime))

// parseASN1 reads an ASN.1 DER signature as crypto/ecdsa does (a SEQUENCE
// of two non-negative INTEGERs, nothing after it). The signatures of
// P-256 take parseShortASN1's path; what it does not take, cryptobyte's
// reading decides.
func parseASN1(sig []byte) (r, s []byte, ok bool) {
	if r, s, ok := parseShortASN1(sig); ok {
		return r, s, true
	}
	var inner cryptobyte.String
	input := cryptobyte.String(sig)
	if !input.ReadASN1(&inner, asn1.SEQUENCE) || !input.Empty() ||
		!inner.ReadASN1Integer(&r) || !inner.ReadASN1Integer(&s) || !inner.Empty() {
		return nil, nil, false
	}
	return r, s, true
}

// parseShortASN1 is parseASN1 for signatures whose lengths all take
// DER's short form (below 128 bytes: every P-256 signature), read in
// place: cryptobyte's calls per field cost verification's host more than
// the rest of its work on an element. It takes only what cryptobyte
// takes, with the same r and s (see readShortInteger); false means "not
// read here", not "invalid": parseASN1 then asks cryptobyte.
func parseShortASN1(sig []byte) (r, s []byte, ok bool) {
	if len(sig) < 2 || sig[0] != 0x30 || sig[1] >= 0x80 || int(sig[1]) != len(sig)-2 {
		return nil, nil, false
	}
	r, rest, okR := readShortInteger(sig[2:])
	s, rest, okS := readShortInteger(rest)
	if !okR || !okS || len(rest) != 0 {
		return nil, nil, false
	}
	return r, s, true
}

// readShortInteger reads a DER INTEGER of a short-form length from the
// front of der as cryptobyte's ReadASN1Integer into a []byte does: at
// least one byte, minimally encoded (no leading zero before a byte whose
// top bit is clear), not negative, and the value without its leading
// zero; rest is what follows it.
func readShortInteger(der []byte) (value, rest []byte, ok bool) {
	if len(der) < 2 || der[0] != 0x02 || der[1] == 0 || der[1] >= 0x80 || int(der[1]) > len(der)-2 {
		return nil, nil, false
	}
	value, rest = der[2:2+der[1]], der[2+der[1]:]
	switch {
	case value[0]&0x80 != 0: // negative
		return nil, nil, false
	case len(value) > 1 && value[0] == 0:
		if value[1]&0x80 == 0 { // not minimal
			return nil, nil, false
		}
		value = value[1:]
	}
	return value, rest, true
}

// encodeASN1 is the DER signature of r ‖ s (32 bytes each).
func encodeASN1(rs []byte) []byte {
	r, s := [32]byte(rs[:32]), [32]byte(rs[32:])
	return appendASN1(make([]byte, 0, MaxASN1Size), &r, &s)
}

// appendASN1 appends the DER SEQUENCE of the INTEGERs r and s (32 bytes
// big-endian each) to b.
func appendASN1(b []byte, r, s *[32]byte) []byte {
	integer := func(v []byte) []byte {
		for len(v) > 1 && v[0] == 0 {
			v = v[1:]
		}
		return v
	}
	rv, sv := integer(r[:]), integer(s[:])
	size := func(v []byte) int { return 2 + len(v) + int(v[0]>>7) }
	b = append(b, 0x30, byte(size(rv)+size(sv)))
	for _, v := range [][]byte{rv, sv} {
		b = append(b, 2, byte(len(v)+int(v[0]>>7)))
		if v[0]&0x80 != 0 {
			b = append(b, 0)
		}
		b = append(b, v...)
	}
	return b
}

// parseP1363 splits r ‖ s, 32 bytes each.
func parseP1363(sig []byte) (r, s []byte, ok bool) {
	if len(sig) != 64 {
		return nil, nil, false
	}
	return sig[:32], sig[32:], true
}

// hashInteger is the hash's leftmost 256 bits as 32 bytes big-endian, as
// crypto/ecdsa takes them for P-256 (a shorter hash as it is; the kernel
// reduces modulo n).
func hashInteger(hash []byte) (out [32]byte) {
	if len(hash) > 32 {
		hash = hash[:32]
	}
	copy(out[32-len(hash):], hash)
	return out
}

// hashLimbs is hashInteger(hash) in limbs, read from the hash itself
// where it has 32 bytes or more (SHA-256's and longer) rather than from a
// copy.
func hashLimbs(hash []byte) limbs {
	if len(hash) >= 32 {
		return limbsOf((*[32]byte)(hash))
	}
	v := hashInteger(hash)
	return limbsOf(&v)
}

// verifyCPU is crypto/ecdsa's verdict on one element (sig in form).
func verifyCPU(pub *ecdsa.PublicKey, hash, sig []byte, form Form) (bool, error) {
	if err := checkPublic(pub); err != nil {
		return false, err
	}
	if form == P1363 {
		r, s, ok := parseP1363(sig)
		if !ok {
			return false, nil
		}
		return ecdsa.Verify(pub, hash, new(big.Int).SetBytes(r), new(big.Int).SetBytes(s)), nil
	}
	return ecdsa.VerifyASN1(pub, hash, sig), nil
}

// Form is how signatures are encoded.
type Form int

const (
	// ASN1 is ASN.1 DER, SEQUENCE { r INTEGER, s INTEGER }: what
	// ecdsa.SignASN1 gives and ecdsa.VerifyASN1 takes.
	ASN1 Form = iota
	// P1363 is IEEE P1363's r ‖ s, 32 bytes each for P-256 (JOSE's ES256,
	// WebAuthn's raw form); the verdict is ecdsa.Verify's on those r and s.
	P1363
)
