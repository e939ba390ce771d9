package testvectors_test

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/testvectors"
)

// unhex decodes s, failing the test on bad hex.
func unhex(t *testing.T, s string, msgAndArgs ...any) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err, msgAndArgs...)
	return b
}

// Every RFC 8032 Ed25519 example is reproduced by crypto/ed25519: the public
// key from the seed, the signature byte for byte, and verification.
func TestRFC8032Ed25519(t *testing.T) {
	cases, err := testvectors.RFC8032Ed25519()
	require.NoError(t, err)
	var names []string
	for _, c := range cases {
		names = append(names, c.Section+" "+c.Name)
	}
	require.Equal(t, []string{
		"RFC 8032 7.1 TEST 1", "RFC 8032 7.1 TEST 2", "RFC 8032 7.1 TEST 3",
		"RFC 8032 7.1 TEST 1024", "RFC 8032 7.1 TEST SHA(abc)",
		"RFC 8032 7.2 foo", "RFC 8032 7.2 bar", "RFC 8032 7.2 foo2", "RFC 8032 7.2 foo3",
		"RFC 8032 7.3 TEST abc",
	}, names)

	for _, c := range cases {
		name := c.Section + " " + c.Name
		seed := unhex(t, c.SecretKey, name)
		pub := unhex(t, c.PublicKey, name)
		msg := unhex(t, c.Message, name)
		ctx := string(unhex(t, c.Context, name))
		want := unhex(t, c.Signature, name)
		require.Len(t, seed, ed25519.SeedSize, name)
		require.Len(t, want, ed25519.SignatureSize, name)

		priv := ed25519.NewKeyFromSeed(seed)
		require.Equal(t, pub, []byte(priv.Public().(ed25519.PublicKey)), "%s: public key", name)

		opts := &ed25519.Options{Context: ctx}
		signed := msg
		switch c.Variant {
		case "Ed25519":
			require.Empty(t, ctx, name)
			require.False(t, c.Prehash, name)
			require.Equal(t, want, ed25519.Sign(priv, msg), "%s: Sign", name)
			require.True(t, ed25519.Verify(pub, msg, want), "%s: Verify", name)
		case "Ed25519ctx":
			require.NotEmpty(t, ctx, name)
			require.False(t, c.Prehash, name)
		case "Ed25519ph":
			require.True(t, c.Prehash, name)
			h := sha512.Sum512(msg)
			signed, opts.Hash = h[:], crypto.SHA512
		default:
			t.Fatalf("%s: variant %q", name, c.Variant)
		}
		sig, err := priv.Sign(nil, signed, opts)
		require.NoError(t, err, name)
		require.Equal(t, want, sig, "%s: PrivateKey.Sign", name)
		require.NoError(t, ed25519.VerifyWithOptions(pub, signed, want, opts), "%s: VerifyWithOptions", name)

		bad := bytes.Clone(want)
		bad[0] ^= 1
		require.Error(t, ed25519.VerifyWithOptions(pub, signed, bad, opts), "%s: altered signature", name)
	}

	// What the RFC says of the messages that are not typed out in full.
	require.Len(t, unhex(t, cases[3].Message), 1023, "TEST 1024")
	abc := sha512.Sum512([]byte("abc"))
	require.Equal(t, abc[:], unhex(t, cases[4].Message), "TEST SHA(abc)")
	require.Equal(t, "abc", string(unhex(t, cases[9].Message)), "TEST abc")
}

// ed25519Count is the numberOfTests of wycheproof/ed25519_test.json, as
// copied.
const ed25519Count = 151

// The Wycheproof EdDSA file loads in full, and crypto/ed25519.Verify gives
// every case its expected result.
func TestWycheproofEdDSA(t *testing.T) {
	const name = "ed25519_test.json"
	data, err := testvectors.FS.ReadFile("wycheproof/" + name)
	require.NoError(t, err)
	var header struct {
		NumberOfTests int `json:"numberOfTests"`
	}
	require.NoError(t, json.Unmarshal(data, &header))
	require.Equal(t, ed25519Count, header.NumberOfTests)

	groups, err := testvectors.WycheproofEdDSA(name)
	require.NoError(t, err)
	require.NotEmpty(t, groups)
	n, results := 0, map[string]int{}
	for _, g := range groups {
		require.Equal(t, "edwards25519", g.Curve)
		require.Equal(t, 255, g.KeySize)
		pub := unhex(t, g.PublicKey, name)
		require.Len(t, pub, ed25519.PublicKeySize, name)
		require.True(t, strings.HasSuffix(g.PublicKeyDer, g.PublicKey), "%s: DER key ends with the raw key", name)
		require.NotEmpty(t, g.Tests, name)
		for _, tc := range g.Tests {
			require.Positive(t, tc.TcID, name)
			msg := unhex(t, tc.Msg, "%s tcId %d", name, tc.TcID)
			sig := unhex(t, tc.Sig, "%s tcId %d", name, tc.TcID)
			got := ed25519.Verify(pub, msg, sig)
			switch tc.Result {
			case "valid":
				require.True(t, got, "%s tcId %d (%s, %v) rejected", name, tc.TcID, tc.Comment, tc.Flags)
			case "invalid":
				require.False(t, got, "%s tcId %d (%s, %v) accepted", name, tc.TcID, tc.Comment, tc.Flags)
			case "acceptable":
				t.Logf("%s tcId %d (%s, %v) acceptable: Verify says %v", name, tc.TcID, tc.Comment, tc.Flags, got)
			default:
				t.Fatalf("%s tcId %d: result %q", name, tc.TcID, tc.Result)
			}
			results[tc.Result]++
			n++
		}
	}
	require.Equal(t, ed25519Count, n)
	require.Equal(t, map[string]int{"valid": 88, "invalid": 63}, results)

	_, err = testvectors.WycheproofEdDSA("missing.json")
	require.Error(t, err)
}

// ed25519vectors.json decodes in full, and crypto/ed25519.Verify rejects
// exactly the vectors flagged LowOrderResidue or NonCanonicalR, as Go's own
// ed25519vectors test expects.
func TestEd25519Vectors(t *testing.T) {
	vectors, err := testvectors.Ed25519Vectors()
	require.NoError(t, err)
	require.Len(t, vectors, 768)
	known := []string{
		"LowOrderA", "LowOrderR", "LowOrderComponentA", "LowOrderComponentR",
		"LowOrderResidue", "NonCanonicalA", "NonCanonicalR",
	}
	verified := 0
	for i, v := range vectors {
		require.Equal(t, i, v.Index)
		require.Len(t, v.A, 32, "#%d", i)
		require.Len(t, v.R, 32, "#%d", i)
		require.Len(t, v.S, 32, "#%d", i)
		require.Equal(t, append(bytes.Clone(v.R), v.S...), v.Sig, "#%d", i)
		require.NotEmpty(t, v.Msg, "#%d", i)
		for _, f := range v.Flags {
			require.Contains(t, known, f, "#%d", i)
		}
		want := !v.HasFlag("LowOrderResidue") && !v.HasFlag("NonCanonicalR")
		got := ed25519.Verify(v.A, v.Msg, v.Sig)
		require.Equal(t, want, got, "#%d flags %v", i, v.Flags)
		if got {
			verified++
		}
	}
	t.Logf("ed25519vectors.json: crypto/ed25519.Verify accepts %d of %d", verified, len(vectors))
}
