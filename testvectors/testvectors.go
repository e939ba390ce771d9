// Package testvectors embeds the standard test vectors gpucrypto is checked
// against (RFC 7748, Wycheproof), so that test binaries are self-contained.
// PROVENANCE.txt says where each file comes from; the Wycheproof files are
// under the Apache License 2.0 (wycheproof/LICENSE-wycheproof).
package testvectors

import (
	"embed"
	"encoding/json"
)

//go:embed PROVENANCE.txt rfc7748.json wycheproof
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
