package hpke

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/testvectors"
)

// The self-test's known answers are those of testvectors/rfc9180.json
// and testvectors/hpke-pq.json.
func TestSelfTestVectors(t *testing.T) {
	vectors, err := testvectors.HPKE()
	require.NoError(t, err)
	rfc, xwing := vectors[0], vectors[2]
	require.Equal(t, uint16(DHKEMX25519), rfc.KEM)
	require.Equal(t, uint16(MLKEM768X25519), xwing.KEM)
	require.Equal(t, rfc.SkRm, selfTestRFCKey)
	require.Equal(t, rfc.SkEm, selfTestRFCEphemeral)
	require.Equal(t, rfc.Info, selfTestRFCInfo)
	require.Equal(t, rfc.Encryptions[0].AAD, selfTestRFCAAD)
	require.Equal(t, rfc.Encryptions[0].Pt, selfTestRFCPlaintext)
	require.Equal(t, rfc.Enc+rfc.Encryptions[0].Ct, selfTestRFCSealed)
	require.Equal(t, xwing.SkRm, selfTestXWingKey)
	require.Equal(t, xwing.Info, selfTestXWingInfo)
	require.Equal(t, xwing.SharedSecret, selfTestXWingShared)
	require.Equal(t, xwing.Key, selfTestXWingAEADKey)
	require.Equal(t, xwing.BaseNonce, selfTestXWingNonce)
	require.Equal(t, xwing.Enc, selfTestXWingEnc)
	_, err = hex.DecodeString(selfTestXWingEnc)
	require.NoError(t, err)
}
