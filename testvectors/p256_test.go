package testvectors_test

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"

	"github.com/gpucrypto/gpucrypto/testvectors"
)

// p256Counts are the numberOfTests of the P-256 files, as copied, and
// their results.
var p256Counts = map[string]struct {
	n       int
	results map[string]int
}{
	"ecdsa_secp256r1_sha256_test.json":       {484, map[string]int{"valid": 174, "invalid": 310}},
	"ecdsa_secp256r1_sha256_p1363_test.json": {262, map[string]int{"valid": 173, "invalid": 89}},
	"ecdh_secp256r1_test.json":               {612, map[string]int{"valid": 330, "acceptable": 230, "invalid": 52}},
}

// p256Header checks the numberOfTests a P-256 file's header declares
// against p256Counts.
func p256Header(t *testing.T, name string) {
	t.Helper()
	data, err := testvectors.FS.ReadFile("wycheproof/" + name)
	require.NoError(t, err)
	var header struct {
		NumberOfTests int `json:"numberOfTests"`
	}
	require.NoError(t, json.Unmarshal(data, &header))
	require.Equal(t, p256Counts[name].n, header.NumberOfTests, name)
}

// p256ECDSAKey parses an uncompressed P-256 point into an ECDSA public key
// with what Go 1.24 (go.mod's version) has: crypto/ecdh checks the point
// (uncompressed, on the curve, not infinity), and crypto/x509 turns it into
// an *ecdsa.PublicKey. (ecdsa.ParseUncompressedPublicKey, which does the
// same in one call, is Go 1.25.) It also returns the key's
// SubjectPublicKeyInfo DER.
func p256ECDSAKey(point []byte) (*ecdsa.PublicKey, []byte, error) {
	k, err := ecdh.P256().NewPublicKey(point)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(k)
	if err != nil {
		return nil, nil, err
	}
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, nil, err
	}
	ec, ok := pub.(*ecdsa.PublicKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, nil, fmt.Errorf("not a P-256 ECDSA key: %T", pub)
	}
	return ec, der, nil
}

// verifyP1363 verifies an IEEE P1363 signature r || s: 64 bytes for P-256,
// any other length is invalid. It checks that ecdsa.Verify on r and s and
// ecdsa.VerifyASN1 on their DER encoding (built with cryptobyte) agree.
func verifyP1363(t *testing.T, pub *ecdsa.PublicKey, hash, sig []byte, msgAndArgs ...any) bool {
	t.Helper()
	if len(sig) != 64 {
		return false
	}
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	got := ecdsa.Verify(pub, hash, r, s)
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1BigInt(r)
		b.AddASN1BigInt(s)
	})
	der, err := b.Bytes()
	require.NoError(t, err, msgAndArgs...)
	require.Equal(t, got, ecdsa.VerifyASN1(pub, hash, der), msgAndArgs...)
	return got
}

// flagTally counts flags, for the test log.
type flagTally map[string]int

func (f flagTally) add(flags []string) {
	for _, fl := range flags {
		f[fl]++
	}
}

func (f flagTally) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(f)) {
		parts = append(parts, fmt.Sprintf("%s×%d", k, f[k]))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Both Wycheproof P-256 ECDSA files load in full, every group's key is the
// same in its three forms, and crypto/ecdsa gives every valid and invalid
// case its expected result (the files have no acceptable cases; one would
// be logged with Go's verdict).
func TestWycheproofECDSA(t *testing.T) {
	for _, name := range []string{"ecdsa_secp256r1_sha256_test.json", "ecdsa_secp256r1_sha256_p1363_test.json"} {
		p256Header(t, name)
		p1363 := strings.Contains(name, "p1363")
		wantType := map[bool]string{false: "EcdsaVerify", true: "EcdsaP1363Verify"}[p1363]

		groups, err := testvectors.WycheproofECDSA(name)
		require.NoError(t, err, name)
		require.NotEmpty(t, groups, name)
		n, results, refusedKeys := 0, map[string]int{}, 0
		acceptable := map[bool]flagTally{true: {}, false: {}}
		for _, g := range groups {
			require.Equal(t, wantType, g.Type, name)
			require.Equal(t, "secp256r1", g.Curve, name)
			require.Equal(t, 256, g.KeySize, name)
			require.Equal(t, "SHA-256", g.Sha, name)
			point := unhex(t, g.PublicKey, name)
			require.Len(t, point, 65, name)
			x, y := new(big.Int).SetBytes(unhex(t, g.Wx, name)), new(big.Int).SetBytes(unhex(t, g.Wy, name))
			require.Equal(t, append([]byte{4}, append(x.FillBytes(make([]byte, 32)), y.FillBytes(make([]byte, 32))...)...), point,
				"%s: uncompressed = 04 || wx || wy", name)
			require.NotEmpty(t, g.Tests, name)

			pub, der, err := p256ECDSAKey(point)
			if err != nil {
				// Every case under a key Go refuses counts as rejected.
				t.Logf("%s: key %s refused: %v", name, g.PublicKey, err)
				refusedKeys++
			} else {
				require.Equal(t, unhex(t, g.PublicKeyDer, name), der, "%s: SubjectPublicKeyInfo", name)
			}
			for _, tc := range g.Tests {
				id := fmt.Sprintf("%s tcId %d (%s, %v)", name, tc.TcID, tc.Comment, tc.Flags)
				require.Positive(t, tc.TcID, name)
				msg := unhex(t, tc.Msg, id)
				sig := unhex(t, tc.Sig, id)
				hash := sha256.Sum256(msg)
				got := false
				switch {
				case pub == nil:
				case p1363:
					got = verifyP1363(t, pub, hash[:], sig, id)
				default:
					got = ecdsa.VerifyASN1(pub, hash[:], sig)
				}
				switch tc.Result {
				case "valid":
					require.True(t, got, "%s rejected", id)
				case "invalid":
					require.False(t, got, "%s accepted", id)
				case "acceptable":
					t.Logf("%s acceptable: Go accepts: %v", id, got)
					acceptable[got].add(tc.Flags)
				default:
					t.Fatalf("%s: result %q", id, tc.Result)
				}
				results[tc.Result]++
				n++
			}
		}
		require.Equal(t, p256Counts[name].n, n, name)
		require.Equal(t, p256Counts[name].results, results, name)
		require.Zero(t, refusedKeys, "%s: keys Go refuses", name)
		t.Logf("%s: %d cases in %d groups, %d valid, %d invalid, %d acceptable (Go accepts %v, rejects %v); keys refused by Go: %d",
			name, n, len(groups), results["valid"], results["invalid"], results["acceptable"],
			acceptable[true], acceptable[false], refusedKeys)
	}

	_, err := testvectors.WycheproofECDSA("missing.json")
	require.Error(t, err)
}

// p256ECDH does one ECDH as Go's standard library would: the peer's key
// from its encoding (SubjectPublicKeyInfo DER for "asn", the SEC 1 point
// for "ecpoint"), the private key from the 32-byte scalar, crypto/ecdh.
func p256ECDH(encoding string, public, scalar []byte) ([]byte, error) {
	var peer *ecdh.PublicKey
	switch encoding {
	case "asn":
		k, err := x509.ParsePKIXPublicKey(public)
		if err != nil {
			return nil, err
		}
		ec, ok := k.(*ecdsa.PublicKey)
		if !ok {
			return nil, fmt.Errorf("not an EC key: %T", k)
		}
		if peer, err = ec.ECDH(); err != nil {
			return nil, err
		}
	case "ecpoint":
		var err error
		if peer, err = ecdh.P256().NewPublicKey(public); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("encoding %q", encoding)
	}
	priv, err := ecdh.P256().NewPrivateKey(scalar)
	if err != nil {
		return nil, err
	}
	return priv.ECDH(peer)
}

// The Wycheproof P-256 ECDH file loads in full, and crypto/ecdh (with
// crypto/x509 for the public keys) computes the shared secret of every
// valid case and refuses every invalid one. Of the 230 acceptable cases Go
// refuses 214 (BER lengths and other malformed DER of the public key,
// explicit curve parameters, a compressed point) and accepts, with the
// right shared secret, the 16 in ecdhAcceptedByGo: checked, so that a
// change in Go shows.
func TestWycheproofECDH(t *testing.T) {
	const name = "ecdh_secp256r1_test.json"
	p256Header(t, name)
	groups, err := testvectors.WycheproofECDH(name)
	require.NoError(t, err)
	require.NotEmpty(t, groups)
	n, results, padded, impossible := 0, map[string]int{}, 0, 0
	acceptable := map[bool]flagTally{true: {}, false: {}}
	var accepted []int
	for _, g := range groups {
		require.Equal(t, "secp256r1", g.Curve, name)
		require.Contains(t, []string{"asn", "ecpoint"}, g.Encoding, name)
		require.NotEmpty(t, g.Tests, name)
		for _, tc := range g.Tests {
			id := fmt.Sprintf("%s tcId %d (%s, %v)", name, tc.TcID, tc.Comment, tc.Flags)
			require.Positive(t, tc.TcID, name)
			public := unhex(t, tc.Public, id)
			want := unhex(t, tc.Shared, id)
			if tc.Result != "invalid" {
				require.Len(t, want, 32, id)
			}
			scalar, err := tc.PrivateScalar(32)
			if err != nil {
				// Not a 32-byte scalar: no key, the case counts as rejected.
				t.Logf("%s: private key %s: %v", id, tc.Private, err)
				impossible++
			} else if len(tc.Private) != 64 {
				padded++
			}
			var got []byte
			if err == nil {
				got, err = p256ECDH(g.Encoding, public, scalar)
			}
			switch tc.Result {
			case "valid":
				require.NoError(t, err, id)
				require.Equal(t, want, got, id)
			case "invalid":
				require.Error(t, err, "%s accepted", id)
			case "acceptable":
				if err == nil {
					// Accepting is allowed, computing another secret is not.
					require.Equal(t, want, got, id)
					t.Logf("%s acceptable: Go accepts, same shared secret", id)
					accepted = append(accepted, tc.TcID)
				} else {
					t.Logf("%s acceptable: Go refuses: %v", id, err)
				}
				acceptable[err == nil].add(tc.Flags)
			default:
				t.Fatalf("%s: result %q", id, tc.Result)
			}
			results[tc.Result]++
			n++
		}
	}
	require.Equal(t, p256Counts[name].n, n)
	require.Equal(t, p256Counts[name].results, results)
	require.Zero(t, impossible, "private keys not a 32-byte scalar")
	t.Logf("%s: %d cases in %d groups, %d valid, %d invalid, %d acceptable (Go accepts %v, rejects %v); private keys normalised to 32 bytes: %d, impossible: %d",
		name, n, len(groups), results["valid"], results["invalid"], results["acceptable"],
		acceptable[true], acceptable[false], padded, impossible)
	require.Equal(t, ecdhAcceptedByGo, accepted, "acceptable cases Go accepts")

	_, err = testvectors.WycheproofECDH("missing.json")
	require.Error(t, err)
}

// ecdhAcceptedByGo are the acceptable cases of ecdh_secp256r1_test.json
// that Go accepts (Go 1.26), all flagged InvalidAsn: the public key's
// SubjectPublicKeyInfo or AlgorithmIdentifier SEQUENCE has elements after
// the last one it defines (zeros, NULL, an empty SEQUENCE, tagged values,
// a repeated element, 4 KB of zeros). crypto/x509 decodes these SEQUENCEs
// with encoding/asn1 into structs, which ignores trailing elements; the
// key and so the shared secret are unchanged.
var ecdhAcceptedByGo = []int{417, 418, 423, 424, 458, 473, 474, 475, 476, 477, 478, 479, 480, 485, 486, 489}

// PrivateScalar strips the ASN.1 sign byte, pads small values and refuses
// what is not a 32-byte scalar.
func TestECDHPrivateScalar(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"00", strings.Repeat("00", 32)},
		{"03", "0000000000000000000000000000000000000000000000000000000000000003"},
		{"00ffffffffffffffffffffffffffffffffffffffffffffffffffffffff", "00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffff"},
		{"00e461c5b5e63d75b4c8c123bf8b9cd45e712af08f7e2e494a8f255ac9d80e058b", "e461c5b5e63d75b4c8c123bf8b9cd45e712af08f7e2e494a8f255ac9d80e058b"},
		{"0612465c89a023ab17855b0a6bcebfd3febb53aef84138647b5352e02c10c346", "0612465c89a023ab17855b0a6bcebfd3febb53aef84138647b5352e02c10c346"},
	} {
		got, err := testvectors.ECDHTest{Private: c.in}.PrivateScalar(32)
		require.NoError(t, err, c.in)
		require.Equal(t, unhex(t, c.want), got, c.in)
	}
	for _, in := range []string{"80", "01" + strings.Repeat("00", 32), "zz"} {
		_, err := testvectors.ECDHTest{Private: in}.PrivateScalar(32)
		require.Error(t, err, in)
	}
}
