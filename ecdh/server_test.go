package ecdh_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	stdecdh "crypto/ecdh"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/cl"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// Concurrent callers get their own results, answered in the Server's
// pieces (AnswerPiece 0: 128), in pieces smaller than a batch (4), and on
// all cores with batch.Parallel (negative).
func TestServerConcurrentCallers(t *testing.T) {
	for _, piece := range []int{0, 4, -1} {
		t.Run(fmt.Sprintf("AnswerPiece=%d", piece), func(t *testing.T) { testServerConcurrentCallers(t, piece) })
	}
}

func testServerConcurrentCallers(t *testing.T, piece int) {
	e := engine(t)
	// Three workers share the load: the device engine inverting per element,
	// one inverting in groups (batch inversion), and the CPU.
	s, err := ecdh.NewServer(batch.Options{MaxBatch: 16, MaxDelay: time.Millisecond, CPUOffload: -1, AnswerPiece: piece}, e, binvEngine(t, testK), ecdh.CPUEngine())
	require.NoError(t, err)
	defer s.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ecdh.Curves()[g%2]
			for range 5 {
				a, b := make([]byte, c.Size()), make([]byte, c.Size())
				rand.Read(a)
				rand.Read(b)
				pa, err := s.PublicKey(context.Background(), c, a)
				if err != nil {
					errs <- err
					return
				}
				pb, err := s.PublicKey(context.Background(), c, b)
				if err != nil {
					errs <- err
					return
				}
				s1, err1 := s.SharedSecret(context.Background(), c, a, pb)
				s2, err2 := s.SharedSecret(context.Background(), c, b, pa)
				if err1 != nil || err2 != nil {
					errs <- errors.Join(err1, err2)
					return
				}
				if string(s1) != string(s2) {
					errs <- errors.New("shared secrets differ")
					return
				}
				want, _ := ecdh.CPUEngine().SharedSecrets(c, [][]byte{a}, [][]byte{pb})
				if string(want[0]) != string(s1) {
					errs <- errors.New("shared secret differs from the CPU's")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	// Per-element errors arrive at their own caller only.
	_, err = s.SharedSecret(context.Background(), ecdh.X25519(), make([]byte, 31), make([]byte, 32))
	require.ErrorIs(t, err, ecdh.ErrKeyLength)
	_, err = s.SharedSecret(context.Background(), ecdh.X25519(), make([]byte, 32), make([]byte, 32))
	require.ErrorIs(t, err, ecdh.ErrLowOrder)
	_, err = s.PublicKey(context.Background(), nil, nil)
	require.ErrorContains(t, err, "nil curve")
}

func TestServerCancellation(t *testing.T) {
	gate := make(chan struct{})
	slow := &blockingBackend{gate: gate}
	s, err := ecdh.NewServerOver(batch.Options{MaxBatch: 4, MaxDelay: time.Millisecond, QueueSize: 8, CPUOffload: -1}, slow)
	require.NoError(t, err)

	// A context cancelled before submission fails at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.PublicKey(ctx, ecdh.X25519(), make([]byte, 32))
	require.ErrorIs(t, err, context.Canceled)

	// Callers waiting on a stuck device give up when their context ends.
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			defer cancel()
			_, err := s.PublicKey(ctx, ecdh.X25519(), make([]byte, 32))
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want deadline exceeded", err)
			}
		}()
	}
	wg.Wait()
	close(gate) // the device recovers; the server still works and closes cleanly
	k := make([]byte, 32)
	k[0] = 9
	pub, err := s.PublicKey(context.Background(), ecdh.X25519(), k)
	require.NoError(t, err)
	want, _ := ecdh.CPUEngine().PublicKeys(ecdh.X25519(), [][]byte{k})
	require.Equal(t, want[0], pub)
	s.Close()
	_, err = s.PublicKey(context.Background(), ecdh.X25519(), k)
	require.ErrorIs(t, err, batch.ErrClosed)
}

// blockingBackend is a CPU whose batches wait until gate closes.
type blockingBackend struct{ gate chan struct{} }

func (b *blockingBackend) PublicKeys(c ecdh.Curve, privs [][]byte) ([][]byte, error) {
	<-b.gate
	return ecdh.CPUEngine().PublicKeys(c, privs)
}

func (b *blockingBackend) SharedSecrets(c ecdh.Curve, privs, peers [][]byte) ([][]byte, error) {
	<-b.gate
	return ecdh.CPUEngine().SharedSecrets(c, privs, peers)
}

func TestDeviceFailureFallsBackToCPU(t *testing.T) {
	d := devicetest.Device(t)
	e, err := ecdh.NewEngine(d)
	require.NoError(t, err)
	var reported []error
	e.OnFallback(func(err error) { reported = append(reported, err) })
	e.SetRoute(batch.RouteDevice) // small calls would run on the CPU: this test fails the device
	e.SetFailHook(func() error { return &cl.Error{Call: "clEnqueueNDRangeKernel", Status: cl.OutOfResources} })
	for _, c := range ecdh.Curves() {
		privs, peers := make([][]byte, 5), make([][]byte, 5)
		for i := range privs {
			privs[i], peers[i] = make([]byte, c.Size()), make([]byte, c.Size())
			rand.Read(privs[i])
			rand.Read(peers[i])
		}
		peers[2] = make([]byte, c.Size()) // u = 0: low order
		privs[3] = privs[3][:4]           // bad length
		got, gerr := e.SharedSecrets(c, privs, peers)
		want, werr := ecdh.CPUEngine().SharedSecrets(c, privs, peers)
		require.Equal(t, want, got)
		var ge, we *batch.Error
		require.True(t, errors.As(gerr, &ge))
		require.True(t, errors.As(werr, &we))
		require.ErrorIs(t, ge.Errs[2], ecdh.ErrLowOrder)
		require.ErrorIs(t, ge.Errs[3], ecdh.ErrKeyLength)
		require.Equal(t, 2, ge.Failed())
		pubs, err := e.PublicKeys(c, privs[:3])
		require.NoError(t, err)
		wp, _ := ecdh.CPUEngine().PublicKeys(c, privs[:3])
		require.Equal(t, wp, pubs)
	}
	require.Equal(t, 4, int(e.Stats().Fallbacks))
	require.Len(t, reported, 4)
	require.ErrorContains(t, reported[0], "recomputed on the CPU")
	require.ErrorContains(t, reported[0], "CL_OUT_OF_RESOURCES")
	e.SetFailHook(nil)
}

func TestStdlibInterop(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			var privs []*stdecdh.PrivateKey
			var peers []*stdecdh.PublicKey
			for range 10 {
				a, _ := stdecdh.X25519().GenerateKey(rand.Reader)
				p, _ := stdecdh.X25519().GenerateKey(rand.Reader)
				privs, peers = append(privs, a), append(peers, p.PublicKey())
			}
			pubs, err := b.(*ecdh.Engine).ECDHPublicKeys(privs)
			require.NoError(t, err)
			ss, err := b.(*ecdh.Engine).ECDHKeys(privs, peers)
			require.NoError(t, err)
			for i := range privs {
				require.True(t, pubs[i].Equal(privs[i].PublicKey()))
				want, err := privs[i].ECDH(peers[i])
				require.NoError(t, err)
				require.Equal(t, want, ss[i])
			}
			p256, _ := stdecdh.P256().GenerateKey(rand.Reader)
			_, err = b.(*ecdh.Engine).ECDHKeys([]*stdecdh.PrivateKey{privs[0], p256, nil}, []*stdecdh.PublicKey{peers[0], peers[1], peers[2]})
			var be *batch.Error
			require.True(t, errors.As(err, &be))
			require.NoError(t, be.Errs[0])
			require.ErrorContains(t, be.Errs[1], "not X25519")
			require.ErrorContains(t, be.Errs[2], "nil private key")
		})
	}
}

// Lone requests are computed on the CPU (the first one always is) and
// agree with crypto/ecdh; with CPUOffload negative every request is
// batched.
func TestServerOffload(t *testing.T) {
	e := engine(t)
	for _, offload := range []int{0, -1} {
		before := e.Stats().CPUOps // the engine's, which the server's include
		s, err := ecdh.NewServer(batch.Options{MaxDelay: time.Millisecond, CPUOffload: offload}, e)
		require.NoError(t, err)
		for i := range 8 {
			c := ecdh.Curves()[i%2]
			priv := make([]byte, c.Size())
			rand.Read(priv)
			pub, err := s.PublicKey(context.Background(), c, priv)
			require.NoError(t, err)
			want, _ := ecdh.CPUEngine().PublicKeys(c, [][]byte{priv})
			require.Equal(t, want[0], pub)
			shared, err := s.SharedSecret(context.Background(), c, priv, want[0])
			require.NoError(t, err)
			wantShared, _ := ecdh.CPUEngine().SharedSecrets(c, [][]byte{priv}, want)
			require.Equal(t, wantShared[0], shared)
		}
		if offload < 0 {
			require.Equal(t, before, s.Stats().CPUOps)
		} else {
			require.Greater(t, s.Stats().CPUOps, before)
		}
		s.Close()
	}
	// a Server of CPUs only computes each request at once, and counts each
	// operation once
	s, err := ecdh.NewServer(batch.Options{MaxDelay: time.Millisecond}, ecdh.CPUEngine())
	require.NoError(t, err)
	defer s.Close()
	_, err = s.PublicKey(context.Background(), ecdh.X25519(), make([]byte, 32))
	require.NoError(t, err)
	st := s.Stats()
	require.EqualValues(t, 1, st.Calls)
	require.EqualValues(t, 1, st.CPUOps)
	require.Zero(t, st.DeviceOps)
}

// Server.Go computes what the blocking calls compute, each outcome on the
// Call's Done; what it refuses never arrives there.
func TestServerGo(t *testing.T) {
	s, err := ecdh.NewServer(batch.Options{MaxBatch: 32, MaxDelay: time.Millisecond}, engine(t))
	require.NoError(t, err)
	done := make(chan *ecdh.Call, 100)
	want := map[*ecdh.Call][]byte{}
	for i := range 100 {
		c := ecdh.Curves()[i%2]
		priv, peerPriv := make([]byte, c.Size()), make([]byte, c.Size())
		rand.Read(priv)
		rand.Read(peerPriv)
		call := &ecdh.Call{Curve: c, Priv: priv, Done: done}
		cpu := ecdh.CPUEngine()
		if i%3 != 0 { // a shared secret; else the public key
			peers, err := cpu.PublicKeys(c, [][]byte{peerPriv})
			require.NoError(t, err)
			call.Peer = peers[0]
			w, err := cpu.SharedSecrets(c, [][]byte{priv}, peers)
			require.NoError(t, err)
			want[call] = w[0]
		} else {
			w, err := cpu.PublicKeys(c, [][]byte{priv})
			require.NoError(t, err)
			want[call] = w[0]
		}
		require.NoError(t, s.Go(context.Background(), call))
	}
	for range 100 {
		call := <-done
		require.NoError(t, call.Err)
		require.Equal(t, want[call], call.Result)
		delete(want, call)
	}
	require.Empty(t, want)

	low := &ecdh.Call{Curve: ecdh.X25519(), Priv: make([]byte, 32), Peer: make([]byte, 32), Done: done}
	require.NoError(t, s.Go(context.Background(), low))
	require.ErrorIs(t, (<-done).Err, ecdh.ErrLowOrder)

	require.Error(t, s.Go(context.Background(), &ecdh.Call{Curve: ecdh.X25519(), Priv: make([]byte, 32)}), "no Done")
	require.Error(t, s.Go(context.Background(), &ecdh.Call{Curve: ecdh.X25519(), Priv: make([]byte, 32), Done: make(chan *ecdh.Call)}), "unbuffered Done")
	require.Error(t, s.Go(context.Background(), &ecdh.Call{Priv: make([]byte, 32), Done: done}), "nil curve")
	require.Error(t, s.Go(nil, &ecdh.Call{Curve: ecdh.X25519(), Priv: make([]byte, 32), Done: done})) //nolint:staticcheck // a nil context is an error
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.Go(context.Background(), &ecdh.Call{Curve: ecdh.X25519(), Priv: make([]byte, 32), Done: done}), batch.ErrClosed)
	require.Empty(t, done)
}

// GoFrame submits frames of calls of both curves and operations: each
// frame comes back once on its Done, every call with its own result or
// error (a nil curve or a bad key fails that call alone); a frame may be
// reused once back; a refused frame does not come back.
func TestServerGoFrame(t *testing.T) {
	s, err := ecdh.NewServer(batch.Options{MaxBatch: 32, MaxDelay: time.Millisecond}, engine(t))
	require.NoError(t, err)
	done := make(chan *ecdh.Frame, 3)
	cpu := ecdh.CPUEngine()
	frames := make([]*ecdh.Frame, 3)
	want := make([][][]byte, 3) // nil: an error
	fill := func(f int) {
		frames[f] = &ecdh.Frame{Calls: make([]ecdh.Call, 40), Done: done}
		want[f] = make([][]byte, 40)
		for i := range frames[f].Calls {
			c := ecdh.Curves()[((f*40+i)/7)%2] // runs of one curve, then the other
			priv, peerPriv := make([]byte, c.Size()), make([]byte, c.Size())
			rand.Read(priv)
			rand.Read(peerPriv)
			call := &frames[f].Calls[i]
			*call = ecdh.Call{Curve: c, Priv: priv}
			switch {
			case i == 5:
				call.Curve = nil
			case i == 11:
				call.Priv = priv[1:]
			case i%3 != 0:
				peers, err := cpu.PublicKeys(c, [][]byte{peerPriv})
				require.NoError(t, err)
				call.Peer = peers[0]
				w, err := cpu.SharedSecrets(c, [][]byte{priv}, peers)
				require.NoError(t, err)
				want[f][i] = w[0]
			default:
				w, err := cpu.PublicKeys(c, [][]byte{priv})
				require.NoError(t, err)
				want[f][i] = w[0]
			}
		}
	}
	check := func(f *ecdh.Frame) {
		k := slices.Index(frames, f)
		require.GreaterOrEqual(t, k, 0)
		for i, call := range f.Calls {
			if want[k][i] == nil {
				require.Error(t, call.Err, "call %d", i)
				continue
			}
			require.NoError(t, call.Err, "call %d", i)
			require.Equal(t, want[k][i], call.Result, "call %d", i)
		}
	}
	for f := range frames {
		fill(f)
		require.NoError(t, s.GoFrame(context.Background(), frames[f]))
	}
	for range frames {
		check(<-done)
	}
	// reused, with other calls
	fill(1)
	require.NoError(t, s.GoFrame(context.Background(), frames[1]))
	check(<-done)

	empty := &ecdh.Frame{Done: done}
	require.NoError(t, s.GoFrame(context.Background(), empty))
	require.Same(t, empty, <-done, "an empty frame comes back at once")

	ok := ecdh.Call{Curve: ecdh.X25519(), Priv: make([]byte, 32)}
	require.Error(t, s.GoFrame(context.Background(), nil))
	require.Error(t, s.GoFrame(context.Background(), &ecdh.Frame{Calls: []ecdh.Call{ok}}), "no Done")
	require.Error(t, s.GoFrame(context.Background(), &ecdh.Frame{Calls: []ecdh.Call{ok}, Done: make(chan *ecdh.Frame)}), "unbuffered Done")
	require.Error(t, s.GoFrame(nil, &ecdh.Frame{Calls: []ecdh.Call{ok}, Done: done})) //nolint:staticcheck // a nil context is an error
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.GoFrame(ctx, &ecdh.Frame{Calls: []ecdh.Call{ok}, Done: done}), context.Canceled)
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.GoFrame(context.Background(), &ecdh.Frame{Calls: []ecdh.Call{ok}, Done: done}), batch.ErrClosed)
	require.Empty(t, done, "a refused frame does not come back")
}

// stubBackend is a Backend with no cost of its own: it answers every
// request of a batch at once (once gate is open, where there is one) with
// a copy of the request's private key (echo: answers that tell which
// request they belong to), else with out. Over it a Server's own host
// cost, or its handling of requests held in flight, is what a test sees.
type stubBackend struct {
	gate chan struct{}
	echo bool
	out  []byte
}

func (b *stubBackend) PublicKeys(c ecdh.Curve, privs [][]byte) ([][]byte, error) {
	if b.gate != nil {
		<-b.gate
	}
	out := make([][]byte, len(privs))
	for i, p := range privs {
		if b.echo {
			out[i] = bytes.Clone(p)
		} else {
			out[i] = b.out
		}
	}
	return out, nil
}

func (b *stubBackend) SharedSecrets(c ecdh.Curve, privs, peers [][]byte) ([][]byte, error) {
	return b.PublicKeys(c, privs)
}

// Frames resubmitted as soon as they come back, by goroutines other
// than the one that submitted them last (a dispatcher's pattern), over a
// backend that answers at once, so that a frame may come back while the
// GoFrame that submitted it still runs: every call gets its own request's
// answer, every time. (GoFrame touches nothing of a frame after the
// completion that may send it back; a window that small is rarely hit,
// so this test cannot promise to catch a change that breaks that.)
func TestServerGoFrameResubmitted(t *testing.T) {
	s, err := ecdh.NewServerOver(batch.Options{MaxBatch: 64, MaxDelay: 50 * time.Microsecond}, &stubBackend{echo: true})
	require.NoError(t, err)
	defer s.Close()
	const frames, rounds = 8, 400
	done := make(chan *ecdh.Frame, frames)
	for k := range frames {
		f := &ecdh.Frame{Calls: make([]ecdh.Call, 16), Done: done}
		for i := range f.Calls {
			priv := make([]byte, 32)
			priv[0], priv[1] = byte(k), byte(i)
			f.Calls[i] = ecdh.Call{Curve: ecdh.X25519(), Priv: priv}
		}
		require.NoError(t, s.GoFrame(context.Background(), f))
	}
	var wg sync.WaitGroup
	for range 4 { // no other synchronisation between them than done
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				back := <-done
				for i, c := range back.Calls {
					if c.Err != nil || !bytes.Equal(c.Result, c.Priv) {
						t.Errorf("call %d: %x, %v", i, c.Result, c.Err)
					}
				}
				if err := s.GoFrame(context.Background(), back); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for range frames {
		<-done
	}
}

// A Frame submitted again before it came back is refused, and the frame
// in flight still comes back once, whole.
func TestServerGoFrameInFlight(t *testing.T) {
	gate := make(chan struct{})
	s, err := ecdh.NewServerOver(batch.Options{MaxDelay: time.Millisecond}, &stubBackend{gate: gate, out: []byte{7}})
	require.NoError(t, err)
	defer s.Close()
	done := make(chan *ecdh.Frame, 1)
	f := &ecdh.Frame{Calls: make([]ecdh.Call, 3), Done: done}
	for i := range f.Calls {
		f.Calls[i] = ecdh.Call{Curve: ecdh.X25519(), Priv: make([]byte, 32)}
	}
	require.NoError(t, s.GoFrame(context.Background(), f))
	require.Error(t, s.GoFrame(context.Background(), f), "in flight")
	close(gate)
	require.Same(t, f, <-done)
	for _, c := range f.Calls {
		require.NoError(t, c.Err)
		require.Equal(t, []byte{7}, c.Result)
	}
	require.Empty(t, done)
}

// The stand-ins are CPU-like backends to a Server: no device, no counts.
func (*blockingBackend) Device() *device.Device { return nil }
func (*blockingBackend) Stats() batch.Stats     { return batch.Stats{} }
func (*blockingBackend) Close() error           { return nil }
func (*stubBackend) Device() *device.Device     { return nil }
func (*stubBackend) Stats() batch.Stats         { return batch.Stats{} }
func (*stubBackend) Close() error               { return nil }
