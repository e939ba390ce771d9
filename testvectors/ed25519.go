package testvectors

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
)

// EdDSATest is one Wycheproof EdDSA verification case
// (eddsa_verify_schema_v1: ed25519_test.json). Hex; Sig is the signature
// as given, which for some invalid cases is not 64 bytes long.
type EdDSATest struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Msg     string   `json:"msg"`
	Sig     string   `json:"sig"`
	Result  string   `json:"result"` // valid, acceptable, invalid
}

// HasFlag reports whether the case carries flag.
func (t EdDSATest) HasFlag(flag string) bool { return slices.Contains(t.Flags, flag) }

// EdDSAGroup is one Wycheproof EdDSA test group: the public key its cases
// are verified under, and the cases.
type EdDSAGroup struct {
	Curve        string // "edwards25519"
	KeySize      int    // bits, 255 for Ed25519
	PublicKey    string // the raw encoded point, 32 bytes for Ed25519 (hex)
	PublicKeyDer string // SubjectPublicKeyInfo DER (hex)
	Tests        []EdDSATest
}

// WycheproofEdDSA returns the groups of wycheproof/<name>
// (ed25519_test.json).
func WycheproofEdDSA(name string) ([]EdDSAGroup, error) {
	groups, err := wycheproofGroups[struct {
		PublicKey struct {
			Curve   string `json:"curve"`
			KeySize int    `json:"keySize"`
			Pk      string `json:"pk"`
		} `json:"publicKey"`
		PublicKeyDer string      `json:"publicKeyDer"`
		Tests        []EdDSATest `json:"tests"`
	}](name)
	if err != nil {
		return nil, err
	}
	out := make([]EdDSAGroup, len(groups))
	for i, g := range groups {
		out[i] = EdDSAGroup{
			Curve: g.PublicKey.Curve, KeySize: g.PublicKey.KeySize, PublicKey: g.PublicKey.Pk,
			PublicKeyDer: g.PublicKeyDer, Tests: g.Tests,
		}
	}
	return out, nil
}

// Ed25519Vector is one case of ed25519vectors.json: an Ed25519 signature
// built to exercise an edge case of verification (low-order points and
// components, non-canonical encodings of A and R). The file gives no
// verdict, only the flags; which cases verify depends on the verification
// rules (Go's crypto/ed25519.Verify rejects exactly the cases flagged
// LowOrderResidue or NonCanonicalR).
type Ed25519Vector struct {
	Index int    // position in the file, from 0
	A     []byte // public key as encoded in the file (32 bytes, maybe non-canonical)
	R     []byte // first half of the signature (32 bytes)
	S     []byte // second half of the signature (32 bytes)
	Sig   []byte // R || S (64 bytes)
	Msg   []byte // message: the file's M, which is ASCII text, not hex

	// Flags says which edge cases the vector exercises, in the file's
	// order; none for an ordinary signature. The file's names:
	// LowOrderA, LowOrderR (the point has small order), LowOrderComponentA,
	// LowOrderComponentR (the point has a nonzero small-order component),
	// LowOrderResidue (the verification equation holds only up to a
	// small-order point, so only cofactored verification accepts),
	// NonCanonicalA, NonCanonicalR (the encoding is not canonical).
	Flags []string
}

// HasFlag reports whether the vector carries flag.
func (v Ed25519Vector) HasFlag(flag string) bool { return slices.Contains(v.Flags, flag) }

// Ed25519Vectors returns the 768 cases of ed25519vectors.json, with A, R
// and S decoded from hex and the message taken as the bytes of its text.
func Ed25519Vectors() ([]Ed25519Vector, error) {
	data, err := FS.ReadFile("ed25519vectors.json")
	if err != nil {
		return nil, err
	}
	var f []struct {
		A, R, S, M string
		Flags      []string
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	out := make([]Ed25519Vector, len(f))
	for i, v := range f {
		a, err := decode32("A", v.A)
		if err != nil {
			return nil, fmt.Errorf("ed25519vectors.json #%d: %w", i, err)
		}
		r, err := decode32("R", v.R)
		if err != nil {
			return nil, fmt.Errorf("ed25519vectors.json #%d: %w", i, err)
		}
		s, err := decode32("S", v.S)
		if err != nil {
			return nil, fmt.Errorf("ed25519vectors.json #%d: %w", i, err)
		}
		out[i] = Ed25519Vector{Index: i, A: a, R: r, S: s, Sig: slices.Concat(r, s), Msg: []byte(v.M), Flags: v.Flags}
	}
	return out, nil
}

// decode32 decodes field, a 32-byte hex string.
func decode32(field, s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err == nil && len(b) != 32 {
		err = fmt.Errorf("%d bytes, want 32", len(b))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return b, nil
}

// RFC8032Case is one Ed25519 example of RFC 8032 §7.1 (Ed25519), §7.2
// (Ed25519ctx) or §7.3 (Ed25519ph). Hex.
type RFC8032Case struct {
	Section   string `json:"section"`    // "RFC 8032 7.1"
	Name      string `json:"name"`       // the RFC's heading: "TEST 1", "foo", "TEST abc"
	Variant   string `json:"variant"`    // Ed25519, Ed25519ctx, Ed25519ph
	SecretKey string `json:"secret_key"` // the 32-byte seed
	PublicKey string `json:"public_key"` // 32 bytes
	Message   string `json:"message"`    // for Ed25519ph, before hashing
	Context   string `json:"context"`    // the context octets; empty for Ed25519 and the Ed25519ph example
	Prehash   bool   `json:"prehash"`    // Ed25519ph: the signed message is SHA-512(Message)
	Signature string `json:"signature"`  // R || S, 64 bytes
}

// RFC8032Ed25519 returns the Ed25519 examples of RFC 8032 §7.1 (TEST 1, 2,
// 3, 1024, SHA(abc)), §7.2 (foo, bar, foo2, foo3) and §7.3 (TEST abc), in
// that order, from rfc8032.json.
func RFC8032Ed25519() ([]RFC8032Case, error) {
	data, err := FS.ReadFile("rfc8032.json")
	if err != nil {
		return nil, err
	}
	var f struct {
		Cases []RFC8032Case `json:"cases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	return f.Cases, nil
}
