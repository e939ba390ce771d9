package ecdh_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// A new Engine has built X25519's kernels and not X448's: X448's are
// built by its first call, whose results are the device's (no fallback),
// and the Engine's Close frees what either built.
func TestX448BuiltOnFirstUse(t *testing.T) {
	e, err := ecdh.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	e.OnFallback(func(err error) { t.Errorf("fallback: %v", err) })
	e.SetRoute(batch.RouteDevice)
	require.True(t, ecdh.CurveBuilt(e, ecdh.X25519()))
	require.False(t, ecdh.CurveBuilt(e, ecdh.X448()))

	priv := make([]byte, ecdh.X448().Size())
	priv[0] = 9
	pubs, err := e.PublicKeys(ecdh.X448(), [][]byte{priv})
	require.NoError(t, err)
	want, err := ecdh.CPUEngine().PublicKeys(ecdh.X448(), [][]byte{priv})
	require.NoError(t, err)
	require.Equal(t, want, pubs)
	require.True(t, ecdh.CurveBuilt(e, ecdh.X448()))
	require.EqualValues(t, 1, e.Stats().DeviceOps)
	require.NoError(t, e.Close())
	_, err = e.PublicKeys(ecdh.X448(), [][]byte{priv})
	require.ErrorIs(t, err, batch.ErrClosed)
}
