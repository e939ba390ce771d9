package rsa_test

import (
	"bytes"
	"crypto"
	stdrsa "crypto/rsa"
	"crypto/x509"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/rsa"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// wycheproofHash maps a Wycheproof hash name to a crypto.Hash.
func wycheproofHash(t testing.TB, name string) crypto.Hash {
	t.Helper()
	h, ok := map[string]crypto.Hash{
		"SHA-1": crypto.SHA1, "SHA-224": crypto.SHA224, "SHA-256": crypto.SHA256,
		"SHA-384": crypto.SHA384, "SHA-512": crypto.SHA512,
		"SHA-512/224": crypto.SHA512_224, "SHA-512/256": crypto.SHA512_256,
	}[name]
	require.True(t, ok, "hash %q", name)
	return h
}

func digest(h crypto.Hash, msg []byte) []byte {
	w := h.New()
	w.Write(msg)
	return w.Sum(nil)
}

// wycheproofCase is one test case with its group's key.
type wycheproofCase struct {
	priv  *stdrsa.PrivateKey
	pub   *stdrsa.PublicKey
	group testvectors.RSAGroup
	test  testvectors.RSATest
}

func (c wycheproofCase) String() string {
	return fmt.Sprintf("tcId %d (%s, %s %v)", c.test.TcID, c.test.Result, c.test.Comment, c.test.Flags)
}

// wycheproofCases loads every case of file, with parsed keys.
func wycheproofCases(t testing.TB, file string) []wycheproofCase {
	t.Helper()
	groups, err := testvectors.WycheproofRSA(file)
	require.NoError(t, err)
	var out []wycheproofCase
	for _, g := range groups {
		var c wycheproofCase
		c.group = g
		if g.PrivateKey != "" {
			k, err := x509.ParsePKCS8PrivateKey(unhex(t, g.PrivateKey))
			require.NoError(t, err, "%s: private key", file)
			c.priv = k.(*stdrsa.PrivateKey)
			c.pub = &c.priv.PublicKey
			require.Equal(t, g.KeySize, c.pub.N.BitLen())
		} else {
			k, err := x509.ParsePKIXPublicKey(unhex(t, g.PublicKey))
			require.NoError(t, err, "%s: public key", file)
			c.pub = k.(*stdrsa.PublicKey)
		}
		for _, tc := range g.Tests {
			c.test = tc
			out = append(out, c)
		}
	}
	require.NotEmpty(t, out)
	return out
}

var wycheproofSizes = []string{"2048", "3072", "4096"}

// Signature generation: every given signature (valid or acceptable) is
// the one crypto/rsa, and so this package, must produce. One batch per
// hash, mixing every key of the file.
func TestWycheproofSignatureGeneration(t *testing.T) {
	files := []string{"rsa_sig_gen_misc_test.json"}
	for _, s := range wycheproofSizes {
		files = append(files, "rsa_pkcs1_"+s+"_sig_gen_test.json")
	}
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		for _, f := range files {
			t.Run(f, func(t *testing.T) {
				byHash := map[crypto.Hash][]wycheproofCase{}
				for _, c := range wycheproofCases(t, f) {
					h := wycheproofHash(t, c.group.Sha)
					byHash[h] = append(byHash[h], c)
				}
				for h, cases := range byHash {
					keys := make([]*stdrsa.PrivateKey, len(cases))
					digests := make([][]byte, len(cases))
					for i, c := range cases {
						keys[i], digests[i] = c.priv, digest(h, unhex(t, c.test.Msg))
					}
					sigs, err := e.SignPKCS1v15(keys, h, digests)
					errs := elementErrs(t, err, len(cases))
					for i, c := range cases {
						if c.test.Result == "invalid" {
							require.False(t, errs[i] == nil && bytes.Equal(sigs[i], unhex(t, c.test.Sig)), "%v", c)
							continue
						}
						require.NoError(t, errs[i], "%v", c)
						require.Equal(t, c.test.Sig, fmt.Sprintf("%x", sigs[i]), "%v", c)
					}
				}
			})
		}
	})
}

// PKCS #1 v1.5 signature verification: valid cases verify, invalid ones
// do not; acceptable ones (a DigestInfo without the NULL parameter) may
// go either way — like crypto/rsa, this package rejects them.
func TestWycheproofPKCS1v15Verify(t *testing.T) {
	files := []string{"2048_sha256", "2048_sha512", "3072_sha256", "3072_sha384", "4096_sha256", "4096_sha512"}
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		for _, f := range files {
			f = "rsa_signature_" + f + "_test.json"
			t.Run(f, func(t *testing.T) {
				cases := wycheproofCases(t, f)
				h := wycheproofHash(t, cases[0].group.Sha)
				pubs := make([]*stdrsa.PublicKey, len(cases))
				digests := make([][]byte, len(cases))
				sigs := make([][]byte, len(cases))
				for i, c := range cases {
					require.Equal(t, h, wycheproofHash(t, c.group.Sha))
					pubs[i], digests[i], sigs[i] = c.pub, digest(h, unhex(t, c.test.Msg)), unhex(t, c.test.Sig)
				}
				errs := elementErrs(t, asErrors(e.VerifyPKCS1v15(pubs, h, digests, sigs)), len(cases))
				for i, c := range cases {
					std := stdrsa.VerifyPKCS1v15(c.pub, h, digests[i], sigs[i])
					switch c.test.Result {
					case "valid":
						require.NoError(t, errs[i], "%v", c)
					case "invalid":
						require.ErrorIs(t, errs[i], rsa.ErrVerification, "%v", c)
					}
					require.Equal(t, std == nil, errs[i] == nil, "differs from crypto/rsa: %v", c)
				}
			})
		}
	})
}

// PSS verification with the file's salt length, and with automatic salt
// length for the valid cases.
func TestWycheproofPSSVerify(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		for _, s := range wycheproofSizes {
			f := "rsa_pss_" + s + "_sha256_mgf1_32_test.json"
			t.Run(f, func(t *testing.T) {
				cases := wycheproofCases(t, f)
				g := cases[0].group
				h := wycheproofHash(t, g.Sha)
				require.Equal(t, g.Sha, g.MgfSha)
				pubs := make([]*stdrsa.PublicKey, len(cases))
				digests := make([][]byte, len(cases))
				sigs := make([][]byte, len(cases))
				for i, c := range cases {
					pubs[i], digests[i], sigs[i] = c.pub, digest(h, unhex(t, c.test.Msg)), unhex(t, c.test.Sig)
				}
				opts := &stdrsa.PSSOptions{SaltLength: g.SLen}
				errs := elementErrs(t, asErrors(e.VerifyPSS(pubs, h, digests, sigs, opts)), len(cases))
				auto := elementErrs(t, asErrors(e.VerifyPSS(pubs, h, digests, sigs, nil)), len(cases))
				for i, c := range cases {
					switch c.test.Result {
					case "valid":
						require.NoError(t, errs[i], "%v", c)
						require.NoError(t, auto[i], "%v (auto salt length)", c)
					case "invalid":
						require.ErrorIs(t, errs[i], rsa.ErrVerification, "%v", c)
					default:
						t.Fatalf("unexpected result: %v", c)
					}
				}
			})
		}
	})
}

// OAEP decryption: valid cases give the message, invalid ones
// ErrDecryption (and nothing else). One batch per label.
func TestWycheproofOAEP(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		for _, s := range wycheproofSizes {
			f := "rsa_oaep_" + s + "_sha256_mgf1sha256_test.json"
			t.Run(f, func(t *testing.T) {
				byLabel := map[string][]wycheproofCase{}
				for _, c := range wycheproofCases(t, f) {
					byLabel[c.test.Label] = append(byLabel[c.test.Label], c)
				}
				for label, cases := range byLabel {
					h := wycheproofHash(t, cases[0].group.Sha)
					require.Equal(t, cases[0].group.Sha, cases[0].group.MgfSha)
					keys := make([]*stdrsa.PrivateKey, len(cases))
					cts := make([][]byte, len(cases))
					for i, c := range cases {
						keys[i], cts[i] = c.priv, unhex(t, c.test.Ct)
					}
					pts, err := e.DecryptOAEP(h, keys, cts, unhex(t, label))
					errs := elementErrs(t, err, len(cases))
					for i, c := range cases {
						if c.test.Result == "valid" {
							require.NoError(t, errs[i], "%v", c)
							require.Equal(t, unhex(t, c.test.Msg), pts[i], "%v", c)
						} else {
							require.ErrorIs(t, errs[i], rsa.ErrDecryption, "%v", c)
							require.Nil(t, pts[i])
						}
					}
				}
			})
		}
	})
}

// PKCS #1 v1.5 decryption: one batch of the whole file (33 keys). The
// 2048-bit file also goes through the session-key variant, which must
// give the message where it is valid and 48 bytes long and leave the key
// alone everywhere else.
func TestWycheproofPKCS1v15Decrypt(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		for _, s := range wycheproofSizes {
			f := "rsa_pkcs1_" + s + "_test.json"
			t.Run(f, func(t *testing.T) {
				cases := wycheproofCases(t, f)
				keys := make([]*stdrsa.PrivateKey, len(cases))
				cts := make([][]byte, len(cases))
				for i, c := range cases {
					keys[i], cts[i] = c.priv, unhex(t, c.test.Ct)
				}
				pts, err := e.DecryptPKCS1v15(keys, cts)
				errs := elementErrs(t, err, len(cases))
				for i, c := range cases {
					if c.test.Result == "valid" {
						require.NoError(t, errs[i], "%v", c)
						require.Equal(t, unhex(t, c.test.Msg), pts[i], "%v", c)
					} else {
						require.ErrorIs(t, errs[i], rsa.ErrDecryption, "%v", c)
					}
				}
				if s != "2048" {
					return
				}
				fill := bytes.Repeat([]byte{0xa5}, 48)
				sessions := make([][]byte, len(cases))
				for i := range sessions {
					sessions[i] = bytes.Clone(fill)
				}
				serrs := elementErrs(t, e.DecryptPKCS1v15SessionKey(keys, cts, sessions), len(cases))
				for i, c := range cases {
					msg := unhex(t, c.test.Msg)
					switch {
					case c.test.Result == "valid" && len(msg) == 48:
						require.NoError(t, serrs[i], "%v", c)
						require.Equal(t, msg, sessions[i], "%v", c)
					case serrs[i] == nil:
						require.Equal(t, fill, sessions[i], "%v", c)
					default: // only public conditions may fail
						require.ErrorIs(t, errs[i], rsa.ErrDecryption, "%v", c)
						require.True(t, errorsIsAny(serrs[i], rsa.ErrInputSize, rsa.ErrInputRange), "%v: %v", c, serrs[i])
					}
				}
			})
		}
	})
}

func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
