package testvectors

import (
	"embed"
	"encoding/json"
)

// HPKEFiles are the HPKE vectors: rfc9180.json (RFC 9180 Appendix A.1.1,
// transcribed) and hpke-pq.json (two of the draft-ietf-hpke-pq vectors of
// Go's crypto/hpke testdata, BSD-3-Clause: LICENSE-go). PROVENANCE.txt
// says where each comes from.
//
//go:embed rfc9180.json hpke-pq.json LICENSE-go
var HPKEFiles embed.FS

// HPKEVector is one base-mode HPKE vector: the suite, the recipient's key
// pair, the sender's randomness, enc and the context's values, and
// encryptions of the context's first messages. Hex, but for the
// identifiers. PkEm and SkEm are RFC 9180's ephemeral key pair (empty in
// hpke-pq.json, whose ikmE is the encapsulation's randomness itself:
// ML-KEM's m, then for MLKEM768-X25519 the ephemeral X25519 private key).
type HPKEVector struct {
	Mode         int    `json:"mode"`
	KEM          uint16 `json:"kem_id"`
	KDF          uint16 `json:"kdf_id"`
	AEAD         uint16 `json:"aead_id"`
	Info         string `json:"info"`
	IkmE         string `json:"ikmE"`
	PkEm         string `json:"pkEm"`
	SkEm         string `json:"skEm"`
	IkmR         string `json:"ikmR"`
	PkRm         string `json:"pkRm"`
	SkRm         string `json:"skRm"`
	Enc          string `json:"enc"`
	SharedSecret string `json:"shared_secret"`
	Key          string `json:"key"`
	BaseNonce    string `json:"base_nonce"`
	Encryptions  []struct {
		Pt    string `json:"pt"`
		AAD   string `json:"aad"`
		Nonce string `json:"nonce"`
		Ct    string `json:"ct"`
	} `json:"encryptions"`
}

// HPKE returns the vectors of both files, RFC 9180's first.
func HPKE() ([]HPKEVector, error) {
	var out []HPKEVector
	for _, name := range []string{"rfc9180.json", "hpke-pq.json"} {
		data, err := HPKEFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var vs []HPKEVector
		if err := json.Unmarshal(data, &vs); err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}
