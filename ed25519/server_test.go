package ed25519_test

import (
	"bytes"
	"context"
	"crypto"
	stded25519 "crypto/ed25519"
	"crypto/rand"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// Many goroutines sign and verify through one Server, under two sets of
// options at once: every result is crypto/ed25519's.
func TestServerConcurrentCallers(t *testing.T) {
	s, err := ed25519.NewServer(batch.Options{MaxBatch: 256, MaxDelay: time.Millisecond, CPUOffload: -1}, deviceEngine(t))
	require.NoError(t, err)
	defer s.Close()
	key := stded25519.NewKeyFromSeed(make([]byte, 32))
	pub := key.Public().(stded25519.PublicKey)
	ctxOpts := &stded25519.Options{Context: "server"}
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 8 {
				msg := []byte{byte(g), byte(i)}
				var opts *stded25519.Options
				if i%2 == 1 {
					opts = ctxOpts
				}
				sig, err := s.Sign(context.Background(), key, msg, opts)
				if err != nil {
					t.Error(err)
					return
				}
				if want, _ := key.Sign(nil, msg, orPure(opts)); !bytes.Equal(want, sig) {
					t.Errorf("signature %x, crypto/ed25519 %x", sig, want)
				}
				ok, err := s.Verify(context.Background(), pub, msg, sig, opts)
				if err != nil || !ok {
					t.Errorf("a valid signature: %v, %v", ok, err)
				}
				sig[0] ^= 1
				ok, err = s.Verify(context.Background(), pub, msg, sig, opts)
				if err != nil || ok {
					t.Errorf("a corrupted signature: %v, %v", ok, err)
				}
			}
		}()
	}
	wg.Wait()
	st := s.Stats()
	require.Positive(t, st.DeviceOps)
}

func orPure(o *stded25519.Options) *stded25519.Options {
	if o == nil {
		return &stded25519.Options{}
	}
	return o
}

// The Server's errors: malformed input per request, refused options, a
// closed server.
func TestServerErrors(t *testing.T) {
	s, err := ed25519.NewServer(batch.Options{MaxDelay: time.Millisecond}, ed25519.CPUEngine())
	require.NoError(t, err)
	_, err = s.Sign(context.Background(), make([]byte, 3), nil, nil)
	require.ErrorIs(t, err, ed25519.ErrKeyLength)
	_, err = s.Verify(context.Background(), make([]byte, 3), nil, nil, nil)
	require.ErrorIs(t, err, ed25519.ErrKeyLength)
	_, err = s.Sign(context.Background(), make([]byte, 64), nil, &stded25519.Options{Hash: crypto.SHA256})
	require.ErrorIs(t, err, ed25519.ErrOptions)
	_, err = s.Signer(make([]byte, 63))
	require.ErrorIs(t, err, ed25519.ErrKeyLength)
	_, err = ed25519.NewServer(batch.Options{})
	require.Error(t, err)
	_, err = ed25519.NewServer(batch.Options{}, nil)
	require.Error(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	_, err = s.Sign(context.Background(), make([]byte, 64), nil, nil)
	require.True(t, errors.Is(err, batch.ErrClosed), "%v", err)
	_, err = s.Signer(make([]byte, 64))
	require.True(t, errors.Is(err, batch.ErrClosed), "%v", err)
}

// A Signer serves a crypto/tls server with an Ed25519 certificate, and
// crypto/x509 accepts it.
func TestSignerTLS(t *testing.T) {
	s, err := ed25519.NewServer(batch.Options{MaxDelay: time.Millisecond}, deviceEngine(t))
	require.NoError(t, err)
	defer s.Close()
	_, key, err := stded25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	signer, err := s.Signer(key)
	require.NoError(t, err)
	devicetest.ServeTLS(t, signer)
}
