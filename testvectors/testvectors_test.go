package testvectors_test

import (
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/testvectors"
)

// Every embedded RSA file loads, with a key and cases in every group.
func TestWycheproofRSA(t *testing.T) {
	names, err := fs.Glob(testvectors.FS, "wycheproof/rsa_*_test.json")
	require.NoError(t, err)
	require.Len(t, names, 19)
	for _, name := range names {
		groups, err := testvectors.WycheproofRSA(strings.TrimPrefix(name, "wycheproof/"))
		require.NoError(t, err, name)
		require.NotEmpty(t, groups, name)
		for _, g := range groups {
			require.NotZero(t, g.KeySize, name)
			require.NotEmpty(t, g.PublicKey+g.PrivateKey, name)
			require.NotEmpty(t, g.Tests, name)
			for _, tc := range g.Tests {
				require.Contains(t, []string{"valid", "acceptable", "invalid"}, tc.Result, name)
				require.Positive(t, tc.TcID, name)
			}
		}
	}
	_, err = testvectors.WycheproofRSA("missing.json")
	require.Error(t, err)
}

// aesCounts are the numberOfTests of the AES files, as copied.
var aesCounts = map[string]int{
	"aes_gcm_test.json":       316,
	"aes_gmac_test.json":      414,
	"aes_cbc_pkcs5_test.json": 216,
	"aes_xts_test.json":       123,
}

// numberOfTests is the count a Wycheproof file's header declares (checked
// against aesCounts).
func numberOfTests(t *testing.T, name string) int {
	t.Helper()
	data, err := testvectors.FS.ReadFile("wycheproof/" + name)
	require.NoError(t, err)
	var f struct {
		NumberOfTests int `json:"numberOfTests"`
	}
	require.NoError(t, json.Unmarshal(data, &f))
	require.Equal(t, aesCounts[name], f.NumberOfTests, name)
	return f.NumberOfTests
}

// checkCase checks what every Wycheproof case has: an id, a result, and a
// key of its group's size.
func checkCase(t *testing.T, name string, tcID int, result, key string, keyBits int) {
	t.Helper()
	require.Positive(t, tcID, name)
	require.Contains(t, []string{"valid", "acceptable", "invalid"}, result, "%s tcId %d", name, tcID)
	require.Equal(t, keyBits, 4*len(key), "%s tcId %d: key size", name, tcID)
	_, err := hex.DecodeString(key)
	require.NoError(t, err, "%s tcId %d", name, tcID)
}

func TestAESKAT(t *testing.T) {
	fips, ctr, err := testvectors.AESKAT()
	require.NoError(t, err)
	require.Len(t, fips, 3)
	for i, v := range fips {
		require.Len(t, v.Key, 2*(16+8*i), v.Section)
		require.Len(t, v.Plaintext, 32, v.Section)
		require.Len(t, v.Ciphertext, 32, v.Section)
	}
	require.Len(t, ctr, 3)
	for i, v := range ctr {
		require.Len(t, v.Key, 2*(16+8*i), v.Section)
		require.Len(t, v.InitialCounterBlock, 32, v.Section)
		require.Len(t, v.Plaintext, 128, v.Section)
		require.Len(t, v.Ciphertext, 128, v.Section)
		require.Len(t, v.Blocks, 4, v.Section)
		require.Equal(t, v.InitialCounterBlock, v.Blocks[0].CounterBlock, v.Section)
		for j, b := range v.Blocks {
			require.Equal(t, v.Plaintext[32*j:32*j+32], b.Plaintext, "%s block %d", v.Section, j)
			require.Equal(t, v.Ciphertext[32*j:32*j+32], b.Ciphertext, "%s block %d", v.Section, j)
		}
	}
}

func TestWycheproofAES(t *testing.T) {
	const gcm, gmac = "aes_gcm_test.json", "aes_gmac_test.json"
	n := 0
	groups, err := testvectors.WycheproofAEAD(gcm)
	require.NoError(t, err)
	for _, g := range groups {
		require.NotZero(t, g.TagSize, gcm)
		require.NotEmpty(t, g.Tests, gcm)
		for _, tc := range g.Tests {
			checkCase(t, gcm, tc.TcID, tc.Result, tc.Key, g.KeySize)
			require.Equal(t, g.IVSize, 4*len(tc.IV), "%s tcId %d: iv size", gcm, tc.TcID)
			require.Len(t, tc.Ct, len(tc.Msg), "%s tcId %d", gcm, tc.TcID)
			n++
		}
	}
	require.Equal(t, numberOfTests(t, gcm), n, gcm)

	n = 0
	macs, err := testvectors.WycheproofMACWithIV(gmac)
	require.NoError(t, err)
	for _, g := range macs {
		require.NotZero(t, g.TagSize, gmac)
		require.NotEmpty(t, g.Tests, gmac)
		for _, tc := range g.Tests {
			checkCase(t, gmac, tc.TcID, tc.Result, tc.Key, g.KeySize)
			require.Equal(t, g.IVSize, 4*len(tc.IV), "%s tcId %d: iv size", gmac, tc.TcID)
			require.Equal(t, g.TagSize, 4*len(tc.Tag), "%s tcId %d: tag size", gmac, tc.TcID)
			n++
		}
	}
	require.Equal(t, numberOfTests(t, gmac), n, gmac)

	for _, name := range []string{"aes_cbc_pkcs5_test.json", "aes_xts_test.json"} {
		n = 0
		groups, err := testvectors.WycheproofIndCPA(name)
		require.NoError(t, err)
		for _, g := range groups {
			require.NotZero(t, g.IVSize, name)
			require.NotEmpty(t, g.Tests, name)
			for _, tc := range g.Tests {
				checkCase(t, name, tc.TcID, tc.Result, tc.Key, g.KeySize)
				require.Equal(t, g.IVSize, 4*len(tc.IV), "%s tcId %d: iv size", name, tc.TcID)
				n++
			}
		}
		require.Equal(t, numberOfTests(t, name), n, name)
	}

	_, err = testvectors.WycheproofAEAD("missing.json")
	require.Error(t, err)
}
