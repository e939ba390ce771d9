// Package testvectors embeds the standard test vectors gpucrypto is checked
// against (RFC 7748, RFC 8032, FIPS-197, SP 800-38A, Wycheproof, the
// Ed25519 edge cases of ed25519vectors.json), so that test binaries are
// self-contained. PROVENANCE.txt says where each file comes from; the
// Wycheproof files are under the Apache License 2.0
// (wycheproof/LICENSE-wycheproof), ed25519vectors.json under the BSD
// licence in LICENSE-ed25519vectors.
package testvectors

import (
	"embed"
	"encoding/json"
)

//go:embed PROVENANCE.txt rfc7748.json rfc8032.json aes_kat.json ed25519vectors.json LICENSE-ed25519vectors wycheproof
var FS embed.FS

// RFC7748Curve holds one curve's vectors from RFC 7748 §5.2, §5.2's
// iteration test and §6.
type RFC7748Curve struct {
	Single []struct {
		Scalar string `json:"scalar"`
		U      string `json:"u"`
		Output string `json:"output"`
	} `json:"section_5_2_vectors"`
	Iterated struct {
		Initial string `json:"initial_k_and_u"`
		Results []struct {
			Iterations int    `json:"iterations"`
			K          string `json:"k"`
		} `json:"results"`
	} `json:"iterated"`
	DH61 *DH `json:"section_6_1_diffie_hellman"`
	DH62 *DH `json:"section_6_2_diffie_hellman"`
}

// DH is an RFC 7748 §6 Diffie–Hellman example (hex).
type DH struct {
	AlicePrivate string `json:"alice_private"`
	AlicePublic  string `json:"alice_public"`
	BobPrivate   string `json:"bob_private"`
	BobPublic    string `json:"bob_public"`
	Shared       string `json:"shared_secret"`
}

// RFC7748 returns the vectors of both curves.
func RFC7748() (x25519, x448 RFC7748Curve, err error) {
	data, err := FS.ReadFile("rfc7748.json")
	if err != nil {
		return
	}
	var all struct {
		X25519 RFC7748Curve `json:"x25519"`
		X448   RFC7748Curve `json:"x448"`
	}
	err = json.Unmarshal(data, &all)
	return all.X25519, all.X448, err
}

// XDHTest is one Wycheproof XDH test case.
type XDHTest struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Public  string   `json:"public"`
	Private string   `json:"private"`
	Shared  string   `json:"shared"`
	Result  string   `json:"result"` // valid, acceptable, invalid
}

// HasFlag reports whether the case carries flag.
func (t XDHTest) HasFlag(flag string) bool {
	for _, f := range t.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// WycheproofXDH returns every case of wycheproof/<name> (x25519_test.json,
// x448_test.json).
func WycheproofXDH(name string) ([]XDHTest, error) {
	data, err := FS.ReadFile("wycheproof/" + name)
	if err != nil {
		return nil, err
	}
	var f struct {
		TestGroups []struct {
			Tests []XDHTest `json:"tests"`
		} `json:"testGroups"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	var out []XDHTest
	for _, g := range f.TestGroups {
		out = append(out, g.Tests...)
	}
	return out, nil
}

// RSATest is one Wycheproof RSA test case: signature generation or
// verification, OAEP or PKCS #1 v1.5 decryption. Fields a file does not
// have are empty. All byte strings are hex.
type RSATest struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Msg     string   `json:"msg"`
	Sig     string   `json:"sig"`    // signature files
	Ct      string   `json:"ct"`     // decryption files
	Label   string   `json:"label"`  // OAEP
	Result  string   `json:"result"` // valid, acceptable, invalid
}

// HasFlag reports whether the case carries flag.
func (t RSATest) HasFlag(flag string) bool {
	for _, f := range t.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// RSAGroup is one Wycheproof RSA test group: a key, its parameters and its
// cases.
type RSAGroup struct {
	KeySize    int    // bits of the modulus
	Sha        string // message (or OAEP label) hash, "SHA-256"; empty for PKCS #1 decryption
	MgfSha     string // OAEP and PSS: the MGF1 hash
	SLen       int    // PSS: the salt length
	PrivateKey string // PKCS #8 DER (hex), in files with private keys
	PublicKey  string // SubjectPublicKeyInfo DER (hex)
	Tests      []RSATest
}

// WycheproofRSA returns the groups of wycheproof/<name>, one of the
// rsa_*_test.json files (v1 schemas, and rsa_sig_gen_misc_test.json's v0).
func WycheproofRSA(name string) ([]RSAGroup, error) {
	data, err := FS.ReadFile("wycheproof/" + name)
	if err != nil {
		return nil, err
	}
	var f struct {
		TestGroups []struct {
			KeySize         int       `json:"keySize"`
			KeySizeV0       int       `json:"keysize"`
			Sha             string    `json:"sha"`
			MgfSha          string    `json:"mgfSha"`
			SLen            int       `json:"sLen"`
			PrivateKeyPkcs8 string    `json:"privateKeyPkcs8"`
			PublicKeyDer    string    `json:"publicKeyDer"`
			KeyDer          string    `json:"keyDer"` // signature generation files
			Tests           []RSATest `json:"tests"`
		} `json:"testGroups"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	out := make([]RSAGroup, len(f.TestGroups))
	for i, g := range f.TestGroups {
		out[i] = RSAGroup{
			KeySize: max(g.KeySize, g.KeySizeV0), Sha: g.Sha, MgfSha: g.MgfSha, SLen: g.SLen,
			PrivateKey: g.PrivateKeyPkcs8, PublicKey: g.PublicKeyDer, Tests: g.Tests,
		}
		if out[i].PublicKey == "" {
			out[i].PublicKey = g.KeyDer
		}
	}
	return out, nil
}
