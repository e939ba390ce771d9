//go:build go1.26

package mlkem

import (
	"bytes"
	"crypto/sha3"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// The self-test's answers are crypto/mlkem's, recomputed here from its
// seeds and messages, which are C2SP's intermediate values' d, z and m.
func TestSelfTestVectors(t *testing.T) {
	for _, v := range selfTestVectors {
		p := v.p
		values, err := testvectors.CCTVMLKEMValues("intermediate/" + p.name + ".txt")
		require.NoError(t, err)
		first := map[string]string{}
		for _, nv := range values {
			if _, ok := first[nv.Name]; !ok {
				first[nv.Name] = nv.Value
			}
		}
		require.Equal(t, first["d"]+first["z"], v.seed, p.name)
		require.Equal(t, first["m"], v.m, p.name)
		seed, m := selfTestHex(v.seed), selfTestHex(v.m)
		dk, err := p.newDecapsulationKey(seed)
		require.NoError(t, err)
		ekBytes := dk.encapsulationKey()
		ekHash := sha3.Sum256(ekBytes)
		require.Equal(t, v.ekHash, hex.EncodeToString(ekHash[:]), p.name)
		ek, err := p.newEncapsulationKey(ekBytes)
		require.NoError(t, err)
		shared, ct, err := p.encapsulate(ek, m)
		require.NoError(t, err)
		require.Equal(t, v.shared, hex.EncodeToString(shared), p.name)
		ctHash := sha3.Sum256(ct)
		require.Equal(t, v.ctHash, hex.EncodeToString(ctHash[:]), p.name)
		bent := bytes.Clone(ct)
		bent[0] ^= 1
		rejected, err := dk.Decapsulate(bent)
		require.NoError(t, err)
		require.Equal(t, v.bent, hex.EncodeToString(rejected), p.name)
	}
}

// The self-test passes on the CPU engine and on the device's, whose calls
// it makes are counted apart from the user's: a fresh engine's Stats
// count none of them.
func TestSelfTest(t *testing.T) {
	require.NoError(t, SelfTest(CPUEngine()))
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	st := e.Stats()
	require.Zero(t, st.DeviceOps)
	require.Zero(t, st.CPUOps)
	require.NotZero(t, e.core.SelfTestStats().DeviceOps)
	require.NoError(t, SelfTest(e))
}
