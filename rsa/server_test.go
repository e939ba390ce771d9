package rsa_test

import (
	"context"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// 64 goroutines sign and decrypt with several keys through one Server;
// every answer is checked against crypto/rsa, and per-element errors reach
// their own caller only: with the callers answered as the Server does by
// default (AnswerPiece 0: pieces of 128, the worker alongside, here one
// piece a batch), and in pieces smaller than a batch with the worker
// alongside. (batch's tests cover pieces without the worker and
// Parallel.)
func TestServerConcurrentCallers(t *testing.T) {
	for _, c := range []struct {
		piece     int
		alongside bool
	}{{0, false}, {4, true}} {
		t.Run(fmt.Sprintf("AnswerPiece=%d/alongside=%v", c.piece, c.alongside), func(t *testing.T) {
			testServerConcurrentCallers(t, batch.Options{MaxBatch: 16, MaxDelay: time.Millisecond, CPUOffload: -1, AnswerPiece: c.piece, AnswerAlongside: c.alongside})
		})
	}
}

func testServerConcurrentCallers(t *testing.T, opts batch.Options) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		// Two workers: the engine under test and a blinded CPU engine.
		blinded := rsa.CPUEngine()
		blinded.SetBlinding(true)
		s, err := rsa.NewServer(opts, e, blinded)
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, s.Close()) })
		names := []string{"rsa1024a", "rsa1024b", "rsa2048a", "rsa2049"}
		keys := make([]*stdrsa.PrivateKey, len(names))
		signers := make([]*rsa.Signer, len(names))
		for i, n := range names {
			keys[i] = key(t, n)
			var err error
			signers[i], err = s.Signer(keys[i])
			require.NoError(t, err)
		}
		const callers, rounds = 64, 3
		var wg sync.WaitGroup
		errs := make(chan error, callers)
		for g := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- func() error {
					sg, k := signers[g%len(signers)], keys[g%len(keys)]
					pub := &k.PublicKey
					for r := range rounds {
						d := sha256.Sum256(fmt.Appendf(nil, "caller %d round %d", g, r))
						sig, err := sg.Sign(nil, d[:], crypto.SHA256)
						if err != nil {
							return err
						}
						want, _ := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d[:])
						if string(sig) != string(want) {
							return fmt.Errorf("caller %d: signature differs from crypto/rsa's", g)
						}
						pss, err := sg.Sign(rand.Reader, d[:], &stdrsa.PSSOptions{Hash: crypto.SHA256})
						if err != nil {
							return err
						}
						if err := stdrsa.VerifyPSS(pub, crypto.SHA256, d[:], pss, nil); err != nil {
							return fmt.Errorf("caller %d: PSS: %w", g, err)
						}
						ct, _ := stdrsa.EncryptOAEP(sha256.New(), rand.Reader, pub, d[:], nil)
						pt, err := sg.DecryptContext(context.Background(), nil, ct, &stdrsa.OAEPOptions{Hash: crypto.SHA256})
						if err != nil {
							return err
						}
						if string(pt) != string(d[:]) {
							return fmt.Errorf("caller %d: wrong plaintext", g)
						}
						// A bad ciphertext fails for this caller only.
						if _, err := sg.Decrypt(nil, ct[:10], nil); !errors.Is(err, rsa.ErrInputSize) {
							return fmt.Errorf("caller %d: short ciphertext gave %v", g, err)
						}
					}
					return nil
				}()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	})
}

// Callers waiting on a stuck engine give up when their context ends; the
// server works again when the engine recovers, and refuses work after
// Close.
func TestServerCancellation(t *testing.T) {
	gate := make(chan struct{})
	var calls atomic.Int64
	s, err := rsa.NewServer(batch.Options{MaxBatch: 4, MaxDelay: time.Millisecond, QueueSize: 8, CPUOffload: -1}, rsa.NewGatedEngine(gate, &calls))
	require.NoError(t, err)
	k := key(t, "rsa1024a")
	sg, err := s.Signer(k)
	require.NoError(t, err)
	d := make([]byte, 32)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = sg.SignContext(ctx, nil, d, crypto.SHA256)
	require.ErrorIs(t, err, context.Canceled)

	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			defer cancel()
			_, err := sg.SignContext(ctx, nil, d, crypto.SHA256)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want deadline exceeded", err)
			}
		}()
	}
	wg.Wait()
	close(gate)
	sig, err := sg.Sign(nil, d, crypto.SHA256)
	require.NoError(t, err)
	want, _ := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d)
	require.Equal(t, want, sig)
	require.Positive(t, calls.Load())
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	_, err = sg.Sign(nil, d, crypto.SHA256)
	require.ErrorIs(t, err, batch.ErrClosed)
	_, err = sg.Decrypt(nil, make([]byte, k.Size()), nil)
	require.ErrorIs(t, err, batch.ErrClosed)
	_, err = s.Signer(k)
	require.ErrorIs(t, err, batch.ErrClosed)
}

// NewServer refuses no engines and nil ones, with an error (no panic).
func TestNewServerErrors(t *testing.T) {
	s, err := rsa.NewServer(batch.Options{})
	require.ErrorContains(t, err, "at least one engine")
	require.Nil(t, s)
	s, err = rsa.NewServer(batch.Options{}, nil)
	require.ErrorContains(t, err, "engine 0 is nil")
	require.Nil(t, s)
	s, err = rsa.NewServer(batch.Options{}, rsa.CPUEngine(), nil)
	require.ErrorContains(t, err, "engine 1 is nil")
	require.Nil(t, s)
}

// Nil keys and contexts are errors, never panics: a nil key in a batch
// fails its element, Signer refuses one, and a Signer refuses a nil
// context.
func TestNilArguments(t *testing.T) {
	k := key(t, "rsa1024a")
	d := randBytes(t, 32)
	sigs, err := cpuEngine.SignPKCS1v15([]*stdrsa.PrivateKey{nil, k}, crypto.SHA256, [][]byte{d, d})
	errs := elementErrs(t, err, 2)
	require.ErrorIs(t, errs[0], rsa.ErrInvalidKey)
	require.Nil(t, sigs[0])
	require.NoError(t, errs[1])
	errs = elementErrs(t, asErrors(cpuEngine.VerifyPKCS1v15([]*stdrsa.PublicKey{nil, &k.PublicKey}, crypto.SHA256, [][]byte{d, d}, sigs)), 2)
	require.ErrorIs(t, errs[0], rsa.ErrInvalidKey)
	require.NoError(t, errs[1])
	cts, err := cpuEngine.EncryptOAEP(crypto.SHA256, nil, []*stdrsa.PublicKey{nil}, [][]byte{d}, nil)
	require.ErrorIs(t, elementErrs(t, err, 1)[0], rsa.ErrInvalidKey)
	require.Nil(t, cts[0])
	_, err = cpuEngine.DecryptOAEP(crypto.SHA256, []*stdrsa.PrivateKey{nil}, [][]byte{d}, nil)
	require.ErrorIs(t, elementErrs(t, err, 1)[0], rsa.ErrInvalidKey)

	s := testServer(t, cpuEngine)
	_, err = s.Signer(nil)
	require.ErrorIs(t, err, rsa.ErrInvalidKey)
	sg, err := s.Signer(k)
	require.NoError(t, err)
	//lint:ignore SA1012 a nil context is what this tests
	_, err = sg.SignContext(nil, nil, d, crypto.SHA256) //nolint:staticcheck
	require.ErrorContains(t, err, "nil context")
	ct, err := stdrsa.EncryptPKCS1v15(rand.Reader, &k.PublicKey, d)
	require.NoError(t, err)
	//lint:ignore SA1012 a nil context is what this tests
	_, err = sg.DecryptContext(nil, nil, ct, nil) //nolint:staticcheck
	require.ErrorContains(t, err, "nil context")
}

// A Server's Stats count its requests (Calls), those its CPU path took,
// and its engines' operations, each once.
func TestServerStats(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		for _, offload := range []int{-1, 0} {
			s, err := rsa.NewServer(batch.Options{MaxDelay: time.Millisecond, CPUOffload: offload}, e)
			require.NoError(t, err)
			k := key(t, "rsa1024a")
			sg, err := s.Signer(k)
			require.NoError(t, err)
			before := e.Stats()
			const n = 10
			for i := range n {
				d := sha256.Sum256(fmt.Appendf(nil, "stats %d", i))
				_, err := sg.Sign(nil, d[:], crypto.SHA256)
				require.NoError(t, err)
			}
			st := s.Stats()
			require.Equal(t, int64(n), st.Calls)
			require.Zero(t, st.QueueDepth)
			require.Positive(t, st.LatencyP50)
			after := e.Stats()
			engineOps := after.DeviceOps + after.CPUOps - before.DeviceOps - before.CPUOps
			require.Equal(t, int64(n), s.Offloaded()+engineOps, "each request computed once")
			require.Equal(t, after.DeviceOps+after.CPUOps+s.Offloaded(), st.DeviceOps+st.CPUOps, "the engine's and the CPU path's")
			if offload < 0 {
				require.Zero(t, s.Offloaded())
			}
			require.NoError(t, s.Close())
		}
	})
}

// A lone request is computed on the CPU, not held for a batch: here the
// engine is stuck, and the first signature still arrives (from the CPU,
// in constant time). Requests the CPU path does not take are batched, and
// with CPUOffload negative every request is.
func TestServerOffload(t *testing.T) {
	gate := make(chan struct{})
	var calls atomic.Int64
	stuck, err := rsa.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer stuck.Close()
	rsa.GateDevice(stuck, gate, &calls)
	s, err := rsa.NewServer(batch.Options{MaxDelay: time.Millisecond}, stuck)
	require.NoError(t, err)
	defer s.Close()
	k := key(t, "rsa2048a")
	sg, err := s.Signer(k)
	require.NoError(t, err)
	d := sha256.Sum256([]byte("lone"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sig, err := sg.SignContext(ctx, nil, d[:], crypto.SHA256)
	require.NoError(t, err, "the first request runs on the CPU")
	want, _ := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d[:])
	require.Equal(t, want, sig)
	require.Equal(t, int64(1), s.Offloaded())
	require.Zero(t, calls.Load())
	// the next is batched (the batched path is unmeasured): it waits for
	// the engine
	short, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	_, err = sg.SignContext(short, nil, d[:], crypto.SHA256)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	close(gate)

	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		for _, offload := range []int{0, -1} {
			s, err := rsa.NewServer(batch.Options{MaxDelay: time.Millisecond, CPUOffload: offload}, e)
			require.NoError(t, err)
			sg, err := s.Signer(k)
			require.NoError(t, err)
			for i := range 12 {
				d := sha256.Sum256(fmt.Appendf(nil, "request %d", i))
				sig, err := sg.Sign(nil, d[:], crypto.SHA256)
				require.NoError(t, err)
				require.NoError(t, stdrsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, d[:], sig))
				pss, err := sg.Sign(rand.Reader, d[:], &stdrsa.PSSOptions{Hash: crypto.SHA256})
				require.NoError(t, err)
				require.NoError(t, stdrsa.VerifyPSS(&k.PublicKey, crypto.SHA256, d[:], pss, nil))
			}
			switch {
			case offload < 0:
				require.Zero(t, s.Offloaded())
			case e.Device() == nil: // a Server of CPUs computes each request at once, on its engine
				require.Zero(t, s.Offloaded())
				require.Zero(t, s.Stats().Batches)
			default:
				require.Positive(t, s.Offloaded())
			}
			require.NoError(t, s.Close())
		}
	})
}
