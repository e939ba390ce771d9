package ecdsa

import (
	stdecdh "crypto/ecdh"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// scrubKeys returns n P-256 private keys (crypto/ecdh's 32 bytes) and
// their public keys (65 bytes).
func scrubKeys(t *testing.T, n int) (privs, pubs [][]byte) {
	t.Helper()
	for range n {
		k, err := stdecdh.P256().GenerateKey(rand.Reader)
		require.NoError(t, err)
		privs, pubs = append(privs, k.Bytes()), append(pubs, k.PublicKey().Bytes())
	}
	return privs, pubs
}

// requireIdleDeviceZero fails unless every device buffer e keeps for later
// batches is all zero.
func requireIdleDeviceZero(t *testing.T, e *Engine) {
	t.Helper()
	idle, err := e.core.Pool().IdleContents() // no batch runs: every buffer is idle
	require.NoError(t, err)
	require.NotEmpty(t, idle)
	for k, b := range idle {
		for i, x := range b {
			if x != 0 {
				require.Failf(t, "idle device buffer not zeroed", "buffer %d of %d bytes: byte %d is %#x", k, len(b), i, x)
			}
		}
	}
}

// TestECDHPublicKeysBuffersZeroed: the device buffers of a P-256 public
// key batch (its results included, where ecdh_p256_finish keeps the
// running products of the points' Z) are all zero once the batch is done;
// and when the batch fails after its commands were enqueued, its staging
// memory (where the results arrived) is zeroed too, and the CPU answers.
func TestECDHPublicKeysBuffersZeroed(t *testing.T) {
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	e.ReleaseBuffers() // those of NewEngine's own batches
	privs, want := scrubKeys(t, 64)

	got, err := e.PublicKeys(privs)
	require.NoError(t, err)
	require.Equal(t, want, got)
	requireIdleDeviceZero(t, e)

	var fallbacks []error
	e.OnFallback(func(err error) { fallbacks = append(fallbacks, err) })
	injected := errors.New("injected failure after the enqueue")
	e.core.SetHooks(&engine.Hooks{AfterEnqueue: func(lo, hi int) error { return injected }})
	got, err = e.PublicKeys(privs)
	e.core.SetHooks(nil)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Len(t, fallbacks, 1)
	require.ErrorIs(t, fallbacks[0], injected)
	require.NoError(t, e.core.CheckIdleZero())
}

// TestECDHSharedBuffersZeroed: once a shared-secret batch is done, the
// only idle device buffer that holds data is the peers' points (public,
// not zeroed); the scalars, the points d·Q and the secrets are zeroed.
func TestECDHSharedBuffersZeroed(t *testing.T) {
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	e.ReleaseBuffers() // those of NewEngine's own batches
	privs, _ := scrubKeys(t, 16)
	_, peers := scrubKeys(t, 16)
	got, err := e.ECDH(privs, peers)
	require.NoError(t, err)
	for i := range privs {
		want, err := ecdhReference(privs[i], peers[i], false)
		require.NoError(t, err)
		require.Equal(t, want, got[i], "element %d", i)
	}
	idle, err := e.core.Pool().IdleContents()
	require.NoError(t, err)
	nonzero := 0
	for _, b := range idle {
		for _, x := range b {
			if x != 0 {
				nonzero++
				break
			}
		}
	}
	require.LessOrEqual(t, nonzero, 1, "idle device buffers holding data: only the peers' points may")
}
