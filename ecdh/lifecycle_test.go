package ecdh_test

import (
	"context"
	"crypto/rand"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// One lifecycle for engines and servers: bad construction is an error,
// Close makes later calls fail with batch.ErrClosed, nil arguments are
// errors; nothing panics.
func TestLifecycle(t *testing.T) {
	_, err := ecdh.NewServer(batch.Options{})
	require.Error(t, err, "no engine")
	_, err = ecdh.NewServer(batch.Options{}, nil)
	require.Error(t, err, "a nil engine")
	var nilEngine *ecdh.Engine
	_, err = ecdh.NewServer(batch.Options{}, ecdh.CPUEngine(), nilEngine)
	require.Error(t, err, "a nil *Engine")

	priv := make([]byte, 32)
	rand.Read(priv)
	for name, e := range map[string]*ecdh.Engine{"cpu": ecdh.CPUEngine(), "device": deviceEngine(t)} {
		t.Run(name, func(t *testing.T) {
			s, err := ecdh.NewServer(batch.Options{}, e)
			require.NoError(t, err)
			_, err = s.PublicKey(context.Background(), ecdh.X25519(), priv)
			require.NoError(t, err)
			//lint:ignore SA1012 a nil context is the case under test
			_, err = s.PublicKey(nil, ecdh.X25519(), priv) //nolint:staticcheck
			require.Error(t, err, "a nil context")
			_, err = s.PublicKey(context.Background(), nil, priv)
			require.Error(t, err, "a nil curve")
			require.NoError(t, s.Close())
			require.NoError(t, s.Close(), "twice")
			_, err = s.PublicKey(context.Background(), ecdh.X25519(), priv)
			require.ErrorIs(t, err, batch.ErrClosed)

			_, err = e.PublicKeys(ecdh.X25519(), [][]byte{priv, nil})
			require.ErrorIs(t, err, ecdh.ErrKeyLength, "a nil key is its element's error")
			require.NoError(t, e.Close())
			_, err = e.PublicKeys(ecdh.X25519(), [][]byte{priv})
			require.ErrorIs(t, err, batch.ErrClosed)
			require.ErrorIs(t, e.PublicKeysInto(ecdh.X25519(), [][]byte{priv}, [][]byte{make([]byte, 32)}), batch.ErrClosed)
			require.NoError(t, e.Close(), "twice")
		})
	}
}

// deviceEngine is an Engine of its own on the test device (Close ends it).
func deviceEngine(t *testing.T) *ecdh.Engine {
	e, err := ecdh.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	return e
}

// Auto never picks a CPU-type OpenCL device (PoCL): the CPU engine beats
// it; the choice says why.
func TestAuto(t *testing.T) {
	e, choice := ecdh.Auto()
	defer e.Close()
	require.NotEmpty(t, choice.Reason)
	require.Equal(t, choice.Device, e.Device())
	if d := e.Device(); d != nil {
		if os.Getenv(device.EnvDevice) == "" {
			require.NotEqual(t, device.TypeCPU, d.Type, "Auto chose a CPU device: %v", choice)
		}
	} else {
		require.Equal(t, "CPU", e.String())
	}
	got, err := e.PublicKeys(ecdh.X25519(), [][]byte{make([]byte, 32)})
	require.NoError(t, err)
	require.Len(t, got, 1)
}
