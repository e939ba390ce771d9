package testvectors

import (
	"encoding/json"
	"slices"
)

// AESBlockKAT is one FIPS-197 Appendix C example: a single block enciphered
// under a key. Hex.
type AESBlockKAT struct {
	Section    string `json:"section"` // "FIPS-197 Appendix C.1"
	Name       string `json:"name"`    // "AES-128"
	Key        string `json:"key"`
	Plaintext  string `json:"plaintext"`
	Ciphertext string `json:"ciphertext"`
}

// AESCTRKAT is one NIST SP 800-38A Appendix F.5 CTR example (the encrypt and
// decrypt sections share their values). The counter block is a 128-bit
// big-endian number incremented by one per block. Hex.
type AESCTRKAT struct {
	Section             string        `json:"section"`
	Name                string        `json:"name"` // "CTR-AES128"
	Key                 string        `json:"key"`
	InitialCounterBlock string        `json:"initial_counter_block"`
	Plaintext           string        `json:"plaintext"`
	Ciphertext          string        `json:"ciphertext"`
	Blocks              []AESCTRBlock `json:"blocks"`
}

// AESCTRBlock is one block of an SP 800-38A CTR example, with the counter
// block it is enciphered under. Hex.
type AESCTRBlock struct {
	CounterBlock string `json:"counter_block"`
	Plaintext    string `json:"plaintext"`
	Ciphertext   string `json:"ciphertext"`
}

// AESKAT returns the FIPS-197 Appendix C examples (AES-128, -192, -256) and
// the SP 800-38A F.5 CTR examples of aes_kat.json.
func AESKAT() (fips197 []AESBlockKAT, ctr []AESCTRKAT, err error) {
	data, err := FS.ReadFile("aes_kat.json")
	if err != nil {
		return nil, nil, err
	}
	var f struct {
		FIPS197 []AESBlockKAT `json:"fips197_appendix_c"`
		CTR     []AESCTRKAT   `json:"sp800_38a_f5_ctr"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, err
	}
	return f.FIPS197, f.CTR, nil
}

// SymmetricCase is what every Wycheproof test case of a symmetric
// primitive has: its number, comment, flags, key, IV and expected result
// (valid, acceptable, invalid). Hex.
type SymmetricCase struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Key     string   `json:"key"`
	IV      string   `json:"iv"`
	Result  string   `json:"result"`
}

// HasFlag reports whether the case carries flag.
func (c SymmetricCase) HasFlag(flag string) bool { return slices.Contains(c.Flags, flag) }

// AEADTest is one Wycheproof AEAD test case (aead_test_schema_v1:
// aes_gcm_test.json). All byte strings are hex; Ct is the ciphertext without
// the tag.
type AEADTest struct {
	SymmetricCase
	AAD string `json:"aad"`
	Msg string `json:"msg"`
	Ct  string `json:"ct"`
	Tag string `json:"tag"`
}

// AEADGroup is one Wycheproof AEAD test group: the sizes (in bits) its
// cases share, and the cases.
type AEADGroup struct {
	KeySize int        `json:"keySize"`
	IVSize  int        `json:"ivSize"`
	TagSize int        `json:"tagSize"`
	Tests   []AEADTest `json:"tests"`
}

// WycheproofAEAD returns the groups of wycheproof/<name> (aes_gcm_test.json).
func WycheproofAEAD(name string) ([]AEADGroup, error) {
	return wycheproofGroups[AEADGroup](name)
}

// MACWithIVTest is one Wycheproof test case of a MAC with an IV
// (mac_with_iv_test_schema_v1: aes_gmac_test.json). Hex.
type MACWithIVTest struct {
	SymmetricCase
	Msg string `json:"msg"`
	Tag string `json:"tag"`
}

// MACWithIVGroup is one Wycheproof MAC-with-IV test group: the sizes (in
// bits) its cases share, and the cases.
type MACWithIVGroup struct {
	KeySize int             `json:"keySize"`
	IVSize  int             `json:"ivSize"`
	TagSize int             `json:"tagSize"`
	Tests   []MACWithIVTest `json:"tests"`
}

// WycheproofMACWithIV returns the groups of wycheproof/<name>
// (aes_gmac_test.json).
func WycheproofMACWithIV(name string) ([]MACWithIVGroup, error) {
	return wycheproofGroups[MACWithIVGroup](name)
}

// IndCPATest is one Wycheproof test case of an unauthenticated cipher
// (ind_cpa_test_schema_v1: aes_cbc_pkcs5_test.json, aes_xts_test.json).
// Hex.
type IndCPATest struct {
	SymmetricCase
	Msg string `json:"msg"`
	Ct  string `json:"ct"`
}

// IndCPAGroup is one Wycheproof IND-CPA test group: the sizes (in bits) its
// cases share, and the cases. For XTS, KeySize is of both keys together.
type IndCPAGroup struct {
	KeySize int          `json:"keySize"`
	IVSize  int          `json:"ivSize"`
	Tests   []IndCPATest `json:"tests"`
}

// WycheproofIndCPA returns the groups of wycheproof/<name>
// (aes_cbc_pkcs5_test.json, aes_xts_test.json).
func WycheproofIndCPA(name string) ([]IndCPAGroup, error) {
	return wycheproofGroups[IndCPAGroup](name)
}

// wycheproofGroups decodes the testGroups of wycheproof/<name>.
func wycheproofGroups[G any](name string) ([]G, error) {
	data, err := FS.ReadFile("wycheproof/" + name)
	if err != nil {
		return nil, err
	}
	var f struct {
		TestGroups []G `json:"testGroups"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	return f.TestGroups, nil
}
