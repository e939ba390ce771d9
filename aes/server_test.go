package aes_test

import (
	"bytes"
	"context"
	"crypto/cipher"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
)

// newServer starts a Server on the test engine (twice: two workers per
// operation), with every request batched unless opts asks otherwise; t's
// cleanup closes it. The engine runs its batches on the device.
func newServer(t *testing.T, opts batch.Options) (*aes.Server, *aes.Engine) {
	t.Helper()
	e := engine(t, aes.LayoutCompact)
	if opts.CPUOffload == 0 {
		opts.CPUOffload = -1
	}
	s, err := aes.NewServer(opts, e, e)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, e
}

// newGCM is s.NewGCM that must succeed.
func newGCM(t testing.TB, s *aes.Server, k *aes.Key) cipher.AEAD {
	aead, err := s.NewGCM(k)
	require.NoError(t, err)
	return aead
}

// serverModes are the paths a request can take: a batch on the device, a
// batch on the CPU (the engine routed there), or crypto/cipher at once in
// the calling goroutine (NewServer's default, "cpu": the device's engines
// compute nothing of the Server's).
var serverModes = []struct {
	name    string
	route   batch.Route
	offload int
}{
	{"device", batch.RouteDevice, -1},
	{"batch-cpu", batch.RouteCPU, -1},
	{"cpu", batch.RouteDevice, 64},
}

// eachMode runs f on a server of every mode, checking that the device ran
// what it should.
func eachMode(t *testing.T, opts batch.Options, f func(t *testing.T, s *aes.Server)) {
	for _, m := range serverModes {
		t.Run(m.name, func(t *testing.T) {
			opts.CPUOffload = m.offload
			s, e := newServer(t, opts)
			e.SetRoute(m.route)
			defer e.SetRoute(batch.RouteDevice)
			before, calls := e.Stats().DeviceTime, e.Stats().Calls
			f(t, s)
			switch m.name {
			case "device":
				require.Greater(t, e.Stats().DeviceTime, before, "the device ran nothing")
			case "batch-cpu":
				require.Equal(t, before, e.Stats().DeviceTime, "the device ran work meant for the CPU")
			case "cpu":
				require.Equal(t, calls, e.Stats().Calls, "the engines got requests that crypto/cipher computes")
			}
		})
	}
}

// stdGCM is crypto/cipher's GCM under the same key bytes as k.
func stdGCM(t testing.TB, size int) (*aes.Key, cipher.AEAD) {
	k, block, _ := newKey(t, size)
	std, err := cipher.NewGCM(block)
	require.NoError(t, err)
	return k, std
}

// withSpare returns a copy of b with extra bytes of spare capacity.
func withSpare(b []byte, extra int) []byte {
	return append(make([]byte, 0, len(b)+extra), b...)
}

func panicValue(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// Many goroutines, each with its own key, seal and open random messages
// through the batches; every result matches crypto/cipher's GCM.
func TestServerConcurrent(t *testing.T) {
	s, e := newServer(t, batch.Options{MaxDelay: 5 * time.Millisecond})
	const workers, rounds = 64, 3
	before := e.Stats().DeviceTime
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := mrand.New(mrand.NewPCG(uint64(w), 99))
			k, std := stdGCM(t, []int{16, 24, 32}[w%3])
			aead := newGCM(t, s, k)
			for r := range rounds {
				msg := randBytes(rng.IntN(5001))
				aad := randBytes(rng.IntN(41))
				nonce := randBytes(aes.NonceSize)
				prefix := randBytes(rng.IntN(9))
				want := std.Seal(bytes.Clone(prefix), nonce, msg, aad)

				var sealed []byte
				if r%2 == 0 {
					sealed = aead.Seal(withSpare(prefix, rng.IntN(2)*(len(msg)+aes.TagSize)), nonce, msg, aad)
				} else {
					var err error
					if sealed, err = s.Seal(context.Background(), k, bytes.Clone(prefix), nonce, msg, aad); err != nil {
						t.Errorf("worker %d: Seal: %v", w, err)
						return
					}
				}
				if !bytes.Equal(want, sealed) {
					t.Errorf("worker %d round %d: sealed %d bytes (AAD %d) differ from crypto/cipher's", w, r, len(msg), len(aad))
					return
				}

				ct := sealed[len(prefix):]
				var opened []byte
				var err error
				if r%2 == 0 {
					opened, err = s.Open(context.Background(), k, nil, nonce, ct, aad)
				} else {
					opened, err = aead.Open(nil, nonce, ct, aad)
				}
				if err != nil || !bytes.Equal(msg, opened) {
					t.Errorf("worker %d round %d: open of %d bytes: %v", w, r, len(msg), err)
					return
				}

				bad := bytes.Clone(ct)
				bad[rng.IntN(len(bad))] ^= 1 << rng.IntN(8)
				if p, err := aead.Open(nil, nonce, bad, aad); !errors.Is(err, aes.ErrOpen) || p != nil {
					t.Errorf("worker %d round %d: tampered message opened: %v, %d bytes", w, r, err, len(p))
					return
				}
			}
		}()
	}
	wg.Wait()
	require.Greater(t, e.Stats().DeviceTime, before, "the device ran nothing")
	require.Zero(t, int(e.Stats().Fallbacks))
}

// A failed tag releases nothing, on every path, and leaves dst as
// crypto/cipher leaves it.
func TestServerTampered(t *testing.T) {
	eachMode(t, batch.Options{}, func(t *testing.T, s *aes.Server) {
		for _, n := range []int{0, 1, 16, 100, 4999} {
			k, std := stdGCM(t, 32)
			aead := newGCM(t, s, k)
			msg, aad, nonce := randBytes(n), randBytes(13), randBytes(12)
			sealed := aead.Seal(nil, nonce, msg, aad)
			require.Equal(t, std.Seal(nil, nonce, msg, aad), sealed)

			flip := func(b []byte, i int) []byte { b = bytes.Clone(b); b[i] ^= 0x80; return b }
			cases := map[string][3][]byte{ // nonce, ciphertext, aad
				"tag":        {nonce, flip(sealed, len(sealed)-1), aad},
				"nonce":      {flip(nonce, 0), sealed, aad},
				"aad":        {nonce, sealed, flip(aad, 5)},
				"no aad":     {nonce, sealed, nil},
				"short":      {nonce, sealed[:aes.TagSize-1], aad},
				"tag only":   {nonce, sealed[len(sealed)-aes.TagSize:], aad},
				"truncated":  {nonce, sealed[1:], aad},
				"extra byte": {nonce, append(bytes.Clone(sealed), 0), aad},
			}
			if n > 0 {
				cases["ciphertext"] = [3][]byte{nonce, flip(sealed, n/2), aad}
			}
			for name, c := range cases {
				if name == "tag only" && n == 0 {
					continue // that is the message itself
				}
				got, err := aead.Open(nil, c[0], c[1], c[2])
				require.ErrorIs(t, err, aes.ErrOpen, "%s, %d bytes", name, n)
				require.Nil(t, got, "%s, %d bytes", name, n)
				got, err = s.Open(context.Background(), k, nil, c[0], c[1], c[2])
				require.ErrorIs(t, err, aes.ErrOpen, "%s, %d bytes (context form)", name, n)
				require.Nil(t, got)

				// A dst with room: crypto/cipher zeroes what it would
				// have written; so does the server.
				room := 3 + len(c[1])
				dst, ref := bytes.Repeat([]byte{0xa5}, room), bytes.Repeat([]byte{0xa5}, room)
				_, err = aead.Open(dst[:3], c[0], c[1], c[2])
				require.ErrorIs(t, err, aes.ErrOpen)
				_, stdErr := std.Open(ref[:3], c[0], c[1], c[2])
				require.Error(t, stdErr)
				require.Equal(t, ref, dst, "%s, %d bytes: dst after a failed Open", name, n)
			}
		}
	})
}

// Seal and Open work in place, with and without a prefix in dst.
func TestServerInPlace(t *testing.T) {
	eachMode(t, batch.Options{}, func(t *testing.T, s *aes.Server) {
		for _, n := range []int{0, 15, 1000, 5000} {
			for _, p := range []int{0, 5} {
				k, std := stdGCM(t, 16)
				aead := newGCM(t, s, k)
				msg, aad, nonce := randBytes(n), randBytes(7), randBytes(12)
				want := std.Seal(nil, nonce, msg, aad)

				buf := make([]byte, p+n, p+n+aes.TagSize)
				copy(buf[p:], msg)
				sealed := aead.Seal(buf[:p], nonce, buf[p:], aad)
				require.Equal(t, want, sealed[p:], "%d bytes, prefix %d", n, p)
				require.Same(t, &buf[:1][0], &sealed[0], "sealed in place")

				opened, err := aead.Open(sealed[:p], nonce, sealed[p:], aad)
				require.NoError(t, err)
				require.Equal(t, msg, opened[p:], "%d bytes, prefix %d", n, p)
				require.Same(t, &buf[:1][0], &opened[:1][0], "opened in place")

				// context form
				copy(buf[p:], msg)
				sealed, err = s.Seal(context.Background(), k, buf[:p], nonce, buf[p:p+n], aad)
				require.NoError(t, err)
				require.Equal(t, want, sealed[p:])
				opened, err = s.Open(context.Background(), k, sealed[:p], nonce, sealed[p:], aad)
				require.NoError(t, err)
				require.Equal(t, msg, opened[p:])

				// a failed Open in place zeroes the ciphertext, as
				// crypto/cipher does
				sealed = aead.Seal(buf[:p], nonce, msg, aad)
				sealed[len(sealed)-1] ^= 1
				opened, err = aead.Open(sealed[:p], nonce, sealed[p:], aad)
				require.ErrorIs(t, err, aes.ErrOpen)
				require.Nil(t, opened)
				require.Equal(t, make([]byte, n), buf[p:p+n])
			}
		}
	})
}

// The three paths (device, CPU batch, calling goroutine) give identical
// results, concurrent requests of every size and key size; the server's
// Stats count them.
func TestServerPaths(t *testing.T) {
	type input struct {
		key             *aes.Key
		std             cipher.AEAD
		nonce, msg, aad []byte
	}
	var inputs []input
	for i, n := range []int{0, 1, 15, 16, 17, 100, 1023, 1024, 4095, 4096, 5000} {
		k, std := stdGCM(t, []int{16, 24, 32}[i%3])
		inputs = append(inputs, input{k, std, randBytes(12), randBytes(n), randBytes(i * 3)})
	}
	eachMode(t, batch.Options{}, func(t *testing.T, s *aes.Server) {
		before := s.Stats()
		var wg sync.WaitGroup
		for i, in := range inputs {
			wg.Add(1)
			go func() { // concurrent, so that the batch path gets batches
				defer wg.Done()
				aead, err := s.NewGCM(in.key)
				if err != nil {
					t.Error(err)
					return
				}
				sealed := aead.Seal(nil, in.nonce, in.msg, in.aad)
				if !bytes.Equal(in.std.Seal(nil, in.nonce, in.msg, in.aad), sealed) {
					t.Errorf("input %d (%d bytes): sealed differs from crypto/cipher's", i, len(in.msg))
				}
				opened, err := aead.Open(nil, in.nonce, sealed, in.aad)
				if err != nil || !bytes.Equal(in.msg, opened) {
					t.Errorf("input %d (%d bytes): open: %v", i, len(in.msg), err)
				}
			}()
		}
		wg.Wait()
		after := s.Stats()
		require.Equal(t, before.Calls+int64(2*len(inputs)), after.Calls)
		require.Equal(t, before.DeviceOps+before.CPUOps+int64(2*len(inputs)), after.DeviceOps+after.CPUOps)
		require.Zero(t, after.QueueDepth)
		require.NotZero(t, after.LatencyP99)
	})
}

// Close finishes what is queued; later calls fail with batch.ErrClosed
// (Seal of a cipher.AEAD, which cannot fail, computes on the CPU). Nothing
// panics or hangs.
func TestServerClose(t *testing.T) {
	e := engine(t, aes.LayoutCompact)
	s, err := aes.NewServer(batch.Options{MaxDelay: time.Millisecond, CPUOffload: -1}, e)
	require.NoError(t, err)
	k, std := stdGCM(t, 24)
	aead := newGCM(t, s, k)

	// Calls in flight while Close runs: each returns a correct result or
	// batch.ErrClosed.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				msg, nonce := randBytes((w*37+i)%3000), randBytes(12)
				got, err := s.Seal(context.Background(), k, nil, nonce, msg, nil)
				if errors.Is(err, batch.ErrClosed) {
					// the cipher.AEAD form still seals, on the CPU
					if !bytes.Equal(std.Seal(nil, nonce, msg, nil), aead.Seal(nil, nonce, msg, nil)) {
						t.Error("Seal after Close differs from crypto/cipher's")
					}
					return
				}
				if err != nil || !bytes.Equal(std.Seal(nil, nonce, msg, nil), got) {
					t.Errorf("Seal while closing: %v", err)
					return
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	s.Close()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		close(stop)
		t.Fatal("calls hang after Close")
	}

	nonce, msg := randBytes(12), randBytes(2000)
	sealed := std.Seal(nil, nonce, msg, nil)
	_, err = s.Seal(context.Background(), k, nil, nonce, msg, nil)
	require.ErrorIs(t, err, batch.ErrClosed)
	_, err = s.Open(context.Background(), k, nil, nonce, sealed, nil)
	require.ErrorIs(t, err, batch.ErrClosed)
	_, err = aead.Open(nil, nonce, sealed, nil)
	require.ErrorIs(t, err, batch.ErrClosed)
	require.Equal(t, sealed, aead.Seal(nil, nonce, msg, nil))
	_, err = s.NewGCM(k)
	require.ErrorIs(t, err, batch.ErrClosed, "an AEAD of a closed server fails at once")
	require.NotPanics(t, func() { require.NoError(t, s.Close()) })
}

// A context that ends before the batch starts ends the wait; the caller
// may reuse its buffers at once (the race detector watches).
func TestServerContext(t *testing.T) {
	s, _ := newServer(t, batch.Options{MaxDelay: time.Second})
	k, std := stdGCM(t, 16)
	msg, nonce := randBytes(3000), randBytes(12)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Seal(ctx, k, nil, nonce, msg, nil)
	require.ErrorIs(t, err, context.Canceled)

	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	buf := bytes.Clone(msg)
	_, err = s.Seal(ctx, k, buf[:0], nonce, buf, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 800*time.Millisecond, "the wait outlived the context (and waited for MaxDelay)")
	for i := range buf {
		buf[i] = 0 // reused while the batch that would have held it runs
	}

	// A context that does not end: the result comes.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := s.Seal(ctx, k, nil, nonce, msg, nil)
	require.NoError(t, err)
	require.Equal(t, std.Seal(nil, nonce, msg, nil), got)
}

// scribble overwrites b with a loop: the race detector sees these writes
// (it does not instrument clear).
func scribble(b []byte) {
	for i := range b {
		b[i] = 0xff
	}
}

// Contexts that end at every point of a request's life (queued, in a batch
// on the device): each call returns a correct result or the context's
// error, and the caller overwrites its buffers as soon as it returns; the
// race detector checks that no worker still reads them.
func TestServerCancelStress(t *testing.T) {
	s, _ := newServer(t, batch.Options{MaxDelay: time.Millisecond})
	k, std := stdGCM(t, 16)
	// The latency of a lone request sets the range of timeouts.
	latency := time.Duration(1 << 62)
	for range 3 {
		start := time.Now()
		_, err := s.Seal(context.Background(), k, nil, make([]byte, 12), make([]byte, 2000), nil)
		require.NoError(t, err)
		latency = min(latency, time.Since(start))
	}

	call := func(rng *mrand.Rand, timeout time.Duration, open bool) error {
		msg, aad, nonce := randBytes(1+rng.IntN(3000)), randBytes(rng.IntN(20)), randBytes(12)
		in, want := msg, std.Seal(nil, nonce, msg, aad)
		if open {
			in, want = want, msg
		}
		buf := withSpare(in, aes.TagSize)
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		var got []byte
		var err error
		if open {
			got, err = s.Open(ctx, k, buf[:0], nonce, buf, aad)
		} else {
			got, err = s.Seal(ctx, k, buf[:0], nonce, buf, aad)
		}
		switch {
		case err == nil && !bytes.Equal(want, got):
			err = fmt.Errorf("open %v: wrong result", open)
		case err != nil && !errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("open %v: %w", open, err)
		default:
			err = nil
		}
		scribble(buf[:cap(buf)])
		scribble(aad)
		scribble(nonce)
		return err
	}

	// One at a time, the deadline swept across the request's latency.
	rng := mrand.New(mrand.NewPCG(1, 1))
	for i := range 24 {
		for _, open := range []bool{false, true} {
			require.NoError(t, call(rng, latency*time.Duration(i+1)/12, open))
		}
	}
	// Many at once, random deadlines.
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := mrand.New(mrand.NewPCG(uint64(w), 7))
			for i := range 8 {
				if err := call(rng, time.Duration(rng.Int64N(int64(4*latency))), i%2 == 1); err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// Arguments that crypto/cipher's GCM panics on make the cipher.AEAD panic
// with the same message, and the context forms return errors.
func TestServerArguments(t *testing.T) {
	s, _ := newServer(t, batch.Options{})
	k, std := stdGCM(t, 16)
	aead := newGCM(t, s, k)
	require.Equal(t, 12, aead.NonceSize())
	require.Equal(t, 16, aead.Overhead())

	buf := make([]byte, 200)
	msg := buf[20:120]
	cases := []struct {
		name      string
		open      bool
		dst       []byte
		nonce     []byte
		input     []byte
		aad       []byte
		wantError error
	}{
		{"seal nonce 11", false, nil, make([]byte, 11), msg, nil, nil},
		{"seal nonce 16", false, nil, make([]byte, 16), msg, nil, nil},
		{"open nonce 0", true, nil, nil, make([]byte, 32), nil, nil},
		{"seal shifted", false, buf[:19], make([]byte, 12), msg, nil, aes.ErrOverlap},
		{"seal into aad", false, buf[:0], make([]byte, 12), buf[150:160], buf[10:20], aes.ErrOverlap},
		{"open shifted", true, buf[:21], make([]byte, 12), msg, nil, aes.ErrOverlap},
		{"open into aad", true, buf[:0], make([]byte, 12), buf[150:190], buf[5:10], aes.ErrOverlap},
	}
	for _, c := range cases {
		var want, got any
		if c.open {
			want = panicValue(func() { _, _ = std.Open(c.dst, c.nonce, c.input, c.aad) })
			got = panicValue(func() { _, _ = aead.Open(c.dst, c.nonce, c.input, c.aad) })
		} else {
			want = panicValue(func() { std.Seal(c.dst, c.nonce, c.input, c.aad) })
			got = panicValue(func() { aead.Seal(c.dst, c.nonce, c.input, c.aad) })
		}
		require.NotNil(t, want, c.name)
		require.Equal(t, want, got, c.name)

		var err error
		if c.open {
			_, err = s.Open(context.Background(), k, c.dst, c.nonce, c.input, c.aad)
		} else {
			_, err = s.Seal(context.Background(), k, c.dst, c.nonce, c.input, c.aad)
		}
		require.Error(t, err, c.name)
		if c.wantError != nil {
			require.ErrorIs(t, err, c.wantError, c.name)
		}
	}

	// Too short for a tag: an error, not a panic, as in crypto/cipher.
	for _, n := range []int{0, 15} {
		_, err := aead.Open(nil, make([]byte, 12), make([]byte, n), nil)
		require.ErrorIs(t, err, aes.ErrOpen)
		_, err = s.Open(context.Background(), k, nil, make([]byte, 12), make([]byte, n), nil)
		require.ErrorIs(t, err, aes.ErrOpen)
	}
}

// Keys: nil and destroyed keys fail as documented.
func TestServerKeys(t *testing.T) {
	e := engine(t, aes.LayoutCompact)
	_, err := aes.NewServer(batch.Options{})
	require.Error(t, err)
	_, err = aes.NewServer(batch.Options{}, e, nil)
	require.Error(t, err)

	s, _ := newServer(t, batch.Options{})
	_, err = s.NewGCM(nil)
	require.ErrorIs(t, err, aes.ErrNilKey)
	_, err = s.Seal(context.Background(), nil, nil, make([]byte, 12), nil, nil)
	require.ErrorIs(t, err, aes.ErrNilKey)

	k, _ := stdGCM(t, 32)
	aead := newGCM(t, s, k)
	sealed := aead.Seal(nil, make([]byte, 12), []byte("hello"), nil)
	k.Close()
	_, err = s.NewGCM(k)
	require.ErrorIs(t, err, aes.ErrKeyDestroyed)
	require.Equal(t, aes.ErrKeyDestroyed, panicValue(func() { aead.Seal(nil, make([]byte, 12), []byte("hello"), nil) }))
	_, err = aead.Open(nil, make([]byte, 12), sealed, nil)
	require.ErrorIs(t, err, aes.ErrKeyDestroyed)
	_, err = s.Seal(context.Background(), k, nil, make([]byte, 12), []byte("hello"), nil)
	require.ErrorIs(t, err, aes.ErrKeyDestroyed)
	_, err = s.Open(context.Background(), k, nil, make([]byte, 12), sealed, nil)
	require.ErrorIs(t, err, aes.ErrKeyDestroyed)
	//lint:ignore SA1012 a nil context is the case under test
	_, err = s.Seal(nil, k, nil, make([]byte, 12), []byte("hello"), nil) //nolint:staticcheck
	require.Error(t, err, "a nil context is an error, not a panic")
}

// A Call that Go computes at once (the CPU path) never blocks Go on a
// Done without room: it arrives once the caller drains Done.
func TestServerGoDoneFull(t *testing.T) {
	eachMode(t, batch.Options{}, func(t *testing.T, s *aes.Server) {
		defer s.Close()
		if !strings.HasSuffix(t.Name(), "/cpu") {
			t.Skip("a batched path needs room in Done for every Call in flight")
		}
		k, std := stdGCM(t, 16)
		done := make(chan *aes.Call, 1)
		nonce := make([]byte, 12)
		const calls = 8 // more than Done holds, none drained meanwhile
		for i := range calls {
			require.NoError(t, s.Go(context.Background(), &aes.Call{Key: k, Nonce: nonce, Data: []byte{byte(i)}, Done: done}))
		}
		for range calls {
			c := <-done
			require.NoError(t, c.Err)
			require.Equal(t, std.Seal(nil, nonce, c.Data, nil), c.Result)
		}
	})
}

// Go, the asynchronous form: calls of Seal and Open (in place, with a
// prefix in Dst, tampered) come back on their Done with crypto/cipher's
// answers; argument errors, a nil key, a nil Done, an ended context and a
// closed server are Go's own errors, and such calls do not come back.
func TestServerGo(t *testing.T) {
	eachMode(t, batch.Options{}, func(t *testing.T, s *aes.Server) {
		done := make(chan *aes.Call, 64)
		type want struct {
			out []byte
			err error
		}
		wants := map[*aes.Call]want{}
		for i, n := range []int{0, 1, 16, 100, 4999, 20000} {
			k, std := stdGCM(t, []int{16, 32}[i%2])
			msg, aad, nonce := randBytes(n), randBytes(i*5), randBytes(12)
			sealed := std.Seal(nil, nonce, msg, aad)
			prefix := []byte("prefix")
			seal := &aes.Call{Key: k, Dst: bytes.Clone(prefix), Nonce: nonce, Data: msg, AAD: aad, Done: done}
			inPlace := withSpare(msg, aes.TagSize)
			sealInPlace := &aes.Call{Key: k, Dst: inPlace[:0], Nonce: nonce, Data: inPlace, AAD: aad, Done: done}
			open := &aes.Call{Key: k, Open: true, Nonce: nonce, Data: sealed, AAD: aad, Done: done}
			tampered := bytes.Clone(sealed)
			tampered[len(tampered)-1] ^= 1
			bad := &aes.Call{Key: k, Open: true, Dst: make([]byte, 0, len(sealed)), Nonce: nonce, Data: tampered, AAD: aad, Done: done}
			wants[seal] = want{out: append(bytes.Clone(prefix), sealed...)}
			wants[sealInPlace] = want{out: sealed}
			wants[open] = want{out: msg}
			wants[bad] = want{err: aes.ErrOpen}
			for _, c := range []*aes.Call{seal, sealInPlace, open, bad} {
				require.NoError(t, s.Go(context.Background(), c))
			}
		}
		for range len(wants) {
			c := <-done
			w, ok := wants[c]
			require.True(t, ok, "a call came back twice")
			delete(wants, c)
			if w.err != nil {
				require.ErrorIs(t, c.Err, w.err)
				require.Nil(t, c.Result)
				require.Equal(t, make([]byte, cap(c.Dst)), c.Dst[:cap(c.Dst)], "a failed Open zeroes Dst's room")
				continue
			}
			require.NoError(t, c.Err)
			require.True(t, bytes.Equal(w.out, c.Result), "open %v, %d bytes", c.Open, len(c.Data))
		}

		k, _ := stdGCM(t, 16)
		ok := func() *aes.Call { return &aes.Call{Key: k, Nonce: make([]byte, 12), Done: done} }
		c := ok()
		c.Nonce = c.Nonce[:11]
		require.Error(t, s.Go(context.Background(), c), "short nonce")
		c = ok()
		c.Open, c.Data = true, make([]byte, aes.TagSize-1)
		require.ErrorIs(t, s.Go(context.Background(), c), aes.ErrOpen, "shorter than the tag")
		c = ok()
		c.Key = nil
		require.ErrorIs(t, s.Go(context.Background(), c), aes.ErrNilKey)
		c = ok()
		c.Done = make(chan *aes.Call)
		require.Error(t, s.Go(context.Background(), c), "unbuffered Done")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		require.ErrorIs(t, s.Go(ctx, ok()), context.Canceled)
		require.Error(t, s.Go(nil, ok())) //nolint:staticcheck // a nil context is an error
		require.NoError(t, s.Close())
		require.ErrorIs(t, s.Go(context.Background(), ok()), batch.ErrClosed)
		require.Empty(t, done, "a refused call does not come back")
	})
}
