package ecdh_test

import (
	stdecdh "crypto/ecdh"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/ecdh"
)

// recordingBackend is the CPU engine, keeping the private keys' strings it
// was handed, so that a test can look at them once the call has returned.
type recordingBackend struct {
	*ecdh.Engine
	privs [][]byte
}

func (b *recordingBackend) PublicKeys(c ecdh.Curve, privs [][]byte) ([][]byte, error) {
	b.privs = privs
	return b.Engine.PublicKeys(c, privs)
}

func (b *recordingBackend) SharedSecrets(c ecdh.Curve, privs, peers [][]byte) ([][]byte, error) {
	b.privs = privs
	return b.Engine.SharedSecrets(c, privs, peers)
}

// requireAllZero fails unless every string of bufs is all zeros.
func requireAllZero(t *testing.T, bufs [][]byte) {
	t.Helper()
	require.NotEmpty(t, bufs)
	for i, b := range bufs {
		require.Len(t, b, 32, "private key copy %d", i)
		require.Equal(t, make([]byte, 32), b, "private key copy %d is not zeroed", i)
	}
}

// TestX25519StdKeysCleared: the copies of crypto/ecdh private keys that
// Engine.ECDHPublicKeys and Engine.ECDHKeys hand their backend
// (PrivateKey.Bytes) are zeroed when they return, those of elements that
// fail included (a nil peer key), while the results are still right.
func TestX25519StdKeysCleared(t *testing.T) {
	const n = 5
	privs := make([]*stdecdh.PrivateKey, n)
	peers := make([]*stdecdh.PublicKey, n)
	for i := range privs {
		var err error
		privs[i], err = stdecdh.X25519().GenerateKey(rand.Reader)
		require.NoError(t, err)
		peer, err := stdecdh.X25519().GenerateKey(rand.Reader)
		require.NoError(t, err)
		peers[i] = peer.PublicKey()
	}
	b := &recordingBackend{Engine: ecdh.CPUEngine()}

	pubs, err := ecdh.PublicKeysOn(b, privs)
	require.NoError(t, err)
	for i := range privs {
		require.True(t, pubs[i].Equal(privs[i].PublicKey()), "public key %d", i)
	}
	requireAllZero(t, b.privs)

	secrets, err := ecdh.SharedSecretsOn(b, privs, peers)
	require.NoError(t, err)
	for i := range privs {
		want, err := privs[i].ECDH(peers[i])
		require.NoError(t, err)
		require.Equal(t, want, secrets[i], "shared secret %d", i)
	}
	requireAllZero(t, b.privs)

	peers[2] = nil // its private key is copied before the peer key fails
	secrets, err = ecdh.SharedSecretsOn(b, privs, peers)
	require.Error(t, err)
	require.Nil(t, secrets[2])
	requireAllZero(t, b.privs)
}
