package testvectors

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
)

// ECDSATest is one Wycheproof ECDSA verification case
// (ecdsa_verify_schema_v1: ecdsa_secp256r1_sha256_test.json;
// ecdsa_p1363_verify_schema_v1: ecdsa_secp256r1_sha256_p1363_test.json).
// Hex. Msg is the message before hashing. Sig is the signature as given:
// an ASN.1 DER SEQUENCE of two INTEGERs r and s in the DER files, r || s
// (32 bytes each for P-256, IEEE P1363) in the P1363 files; for invalid
// cases it may be malformed or of another length.
type ECDSATest struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Msg     string   `json:"msg"`
	Sig     string   `json:"sig"`
	Result  string   `json:"result"` // valid, acceptable, invalid
}

// HasFlag reports whether the case carries flag.
func (t ECDSATest) HasFlag(flag string) bool { return slices.Contains(t.Flags, flag) }

// ECDSAGroup is one Wycheproof ECDSA test group: the public key its cases
// are verified under, the hash, and the cases.
type ECDSAGroup struct {
	Type    string // "EcdsaVerify" (DER signatures) or "EcdsaP1363Verify" (r || s)
	Curve   string // "secp256r1" (P-256)
	KeySize int    // bits, 256 for P-256
	Sha     string // the hash the message is signed under, "SHA-256"

	// PublicKey is the public point in SEC 1 uncompressed form,
	// 04 || X || Y with X and Y 32 bytes each for P-256 (hex).
	PublicKey string
	// Wx, Wy are the affine coordinates as the file gives them: hex of the
	// big-endian minimal two's-complement integer, so with a leading 00
	// when the top bit is set and shorter than 32 bytes when the value is
	// small. PublicKey is the form to use; these are for cross-checks.
	Wx, Wy string
	// PublicKeyDer is the key as a SubjectPublicKeyInfo (named curve,
	// uncompressed point) in DER (hex).
	PublicKeyDer string

	Tests []ECDSATest
}

// WycheproofECDSA returns the groups of wycheproof/<name>, a P-256 ECDSA
// verification file with DER signatures (ecdsa_secp256r1_sha256_test.json)
// or P1363 ones (ecdsa_secp256r1_sha256_p1363_test.json): both schemas
// have the same fields.
func WycheproofECDSA(name string) ([]ECDSAGroup, error) {
	groups, err := wycheproofGroups[struct {
		Type      string `json:"type"`
		PublicKey struct {
			Curve        string `json:"curve"`
			KeySize      int    `json:"keySize"`
			Uncompressed string `json:"uncompressed"`
			Wx           string `json:"wx"`
			Wy           string `json:"wy"`
		} `json:"publicKey"`
		PublicKeyDer string      `json:"publicKeyDer"`
		Sha          string      `json:"sha"`
		Tests        []ECDSATest `json:"tests"`
	}](name)
	if err != nil {
		return nil, err
	}
	out := make([]ECDSAGroup, len(groups))
	for i, g := range groups {
		out[i] = ECDSAGroup{
			Type: g.Type, Curve: g.PublicKey.Curve, KeySize: g.PublicKey.KeySize, Sha: g.Sha,
			PublicKey: g.PublicKey.Uncompressed, Wx: g.PublicKey.Wx, Wy: g.PublicKey.Wy,
			PublicKeyDer: g.PublicKeyDer, Tests: g.Tests,
		}
	}
	return out, nil
}

// ECDHTest is one Wycheproof ECDH case (ecdh_test_schema_v1:
// ecdh_secp256r1_test.json). Hex. Public is the peer's public key in the
// encoding of its group: a SubjectPublicKeyInfo in DER for "asn" (which
// invalid and acceptable cases deform: other curves, explicit curve
// parameters, compressed points, BER lengths), the SEC 1 point for
// "ecpoint". Private is the private scalar as the content of an ASN.1
// INTEGER (see PrivateScalar). Shared is the x-coordinate of the shared
// point (32 bytes for P-256); empty for most invalid cases.
type ECDHTest struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Public  string   `json:"public"`
	Private string   `json:"private"`
	Shared  string   `json:"shared"`
	Result  string   `json:"result"` // valid, acceptable, invalid
}

// HasFlag reports whether the case carries flag.
func (t ECDHTest) HasFlag(flag string) bool { return slices.Contains(t.Flags, flag) }

// PrivateScalar returns the private key as a size-byte big-endian scalar
// (32 for P-256, what crypto/ecdh's NewPrivateKey takes). Wycheproof gives
// it as a minimal two's-complement integer: with a leading 00 when the top
// bit is set (33 bytes for most P-256 keys), fewer bytes when it is small
// (ecdh_secp256r1_test.json tcId 315 is "03"). An error if the value is
// negative or does not fit in size bytes; whether it is below the group
// order is left to the caller.
func (t ECDHTest) PrivateScalar(size int) ([]byte, error) {
	b, err := hex.DecodeString(t.Private)
	if err != nil {
		return nil, fmt.Errorf("private: %w", err)
	}
	if len(b) > 0 && b[0]&0x80 != 0 {
		return nil, errors.New("private: negative integer")
	}
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	if len(b) > size {
		return nil, fmt.Errorf("private: %d bytes without leading zeros, want at most %d", len(b), size)
	}
	return append(make([]byte, size-len(b), size), b...), nil
}

// ECDHGroup is one Wycheproof ECDH test group: the curve, how the public
// keys are encoded, and the cases.
type ECDHGroup struct {
	Curve    string     `json:"curve"`    // the private key's curve, "secp256r1" (P-256)
	Encoding string     `json:"encoding"` // of ECDHTest.Public: "asn" (SubjectPublicKeyInfo DER) or "ecpoint" (SEC 1 point)
	Tests    []ECDHTest `json:"tests"`
}

// WycheproofECDH returns the groups of wycheproof/<name>
// (ecdh_secp256r1_test.json: one group, encoding "asn").
func WycheproofECDH(name string) ([]ECDHGroup, error) {
	return wycheproofGroups[ECDHGroup](name)
}
