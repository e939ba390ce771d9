package testvectors_test

import (
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
