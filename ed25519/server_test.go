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

// The asynchronous forms: Server.Go signs and verifies, Signer.Go signs,
// many Calls in flight at once, on a device Server (batched) and on a CPU
// one (computed at once); every outcome is crypto/ed25519's, and after
// Close Go fails with batch.ErrClosed.
func TestServerGo(t *testing.T) {
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			s, err := ed25519.NewServer(batch.Options{MaxBatch: 64, MaxDelay: time.Millisecond, CPUOffload: -1}, e)
			require.NoError(t, err)
			key := stded25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
			pub := key.Public().(stded25519.PublicKey)
			signer, err := s.Signer(key)
			require.NoError(t, err)
			const n = 100
			done := make(chan *ed25519.Call, 2*n)
			calls := make([]ed25519.Call, 2*n)
			for i := range n {
				calls[i] = ed25519.Call{Key: key, Message: []byte{byte(i)}, Done: done}
				require.NoError(t, s.Go(context.Background(), &calls[i]))
				c := &calls[n+i]
				*c = ed25519.Call{Message: []byte{byte(i), 1}, Done: done}
				require.NoError(t, signer.Go(context.Background(), c))
			}
			for range 2 * n {
				c := <-done
				require.NoError(t, c.Err)
				want := stded25519.Sign(key, c.Message)
				require.Equal(t, want, c.Signature)
			}
			// verify them all back, one corrupted in two
			for i := range 2 * n {
				c := &calls[i]
				if i%2 == 1 {
					c.Signature[3] ^= 0x10
				}
				*c = ed25519.Call{Pub: pub, Message: c.Message, Signature: c.Signature, Done: done}
				require.NoError(t, s.Go(context.Background(), c))
			}
			for range 2 * n {
				c := <-done
				require.NoError(t, c.Err)
				require.Equal(t, stded25519.Verify(pub, c.Message, c.Signature), c.Valid)
			}
			require.ErrorContains(t, s.Go(context.Background(), &ed25519.Call{Key: key}), "buffered Done")
			require.ErrorContains(t, s.Go(context.Background(), &ed25519.Call{Key: key, Done: make(chan *ed25519.Call)}), "buffered Done")
			sig, err := signer.SignContext(context.Background(), nil, []byte("x"), crypto.Hash(0))
			require.NoError(t, err)
			require.Equal(t, stded25519.Sign(key, []byte("x")), sig)
			require.NoError(t, s.Close())
			require.ErrorIs(t, s.Go(context.Background(), &ed25519.Call{Key: key, Done: done}), batch.ErrClosed)
			require.ErrorIs(t, signer.Go(context.Background(), &ed25519.Call{Done: done}), batch.ErrClosed)
		})
	}
}

// Every request is counted once, where it was computed: a Server's Calls
// are its requests, and its operations on the device and the CPU add up
// to them, over a fresh device engine (whose self-test is not counted)
// and over a CPU engine; requests both alone (the CPU path) and from many
// callers at once (batches).
func TestServerStatsReconcile(t *testing.T) {
	fresh, err := ed25519.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer fresh.Close()
	require.Zero(t, fresh.Stats().Calls, "the self-test's calls counted as the user's")
	for name, e := range map[string]*ed25519.Engine{"device": fresh, "cpu": ed25519.CPUEngine()} {
		t.Run(name, func(t *testing.T) {
			s, err := ed25519.NewServer(batch.Options{MaxDelay: time.Millisecond}, e)
			require.NoError(t, err)
			defer s.Close()
			key := stded25519.NewKeyFromSeed(make([]byte, 32))
			before := e.Stats()
			const lone, callers, each = 5, 32, 4
			for i := range lone {
				_, err := s.Sign(context.Background(), key, []byte{byte(i)}, nil)
				require.NoError(t, err)
			}
			var wg sync.WaitGroup
			for g := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						_, err := s.Sign(context.Background(), key, []byte{byte(g), byte(i)}, nil)
						require.NoError(t, err)
					}
				}()
			}
			wg.Wait()
			st, after := s.Stats(), e.Stats()
			const n = lone + callers*each
			require.EqualValues(t, n, st.Calls)
			require.EqualValues(t, n, st.DeviceOps+st.CPUOps, "the operations add up to the requests")
			require.Equal(t, after.DeviceOps-before.DeviceOps, st.DeviceOps, "the device's operations are the engine's")
		})
	}
}
