package main

import (
	"context"
	"crypto"
	stded25519 "crypto/ed25519"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/ecdsa"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/internal/latency"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// submitter is one goroutine's side of the asynchronous form of a
// Server's operation: a window of units of submission (single calls, or
// frames of calls), each submitted (Signer.Go, Server.Go, Server.GoFrame)
// and received back from its Done channel.
type submitter interface {
	// units is the number of units of the window; size, the calls of each.
	units() int
	size() int
	// submit submits unit u of the window.
	submit(ctx context.Context, u int) error
	// next waits for a completed unit and returns it and its error (the
	// first of its calls' errors).
	next() (u int, err error)
}

// frameSize is the number of calls that the async-frames form submits at
// once (Server.GoFrame): the frame of a gateway that decodes many requests
// from one read.
const frameSize = 64

// callSubmitter is a submitter of single calls over a Server's Call type
// C: a window of Calls, submitted with submitCall and received back on
// done.
type callSubmitter[C any] struct {
	calls      []C
	done       chan *C
	submitCall func(ctx context.Context, c *C) error
	errOf      func(c *C) error
}

// newCallSubmitter makes a window of calls, each made by newCall with the
// window's Done channel.
func newCallSubmitter[C any](window int, newCall func(done chan *C) C, submitCall func(context.Context, *C) error, errOf func(*C) error) *callSubmitter[C] {
	s := &callSubmitter[C]{calls: make([]C, window), done: make(chan *C, window), submitCall: submitCall, errOf: errOf}
	for i := range s.calls {
		s.calls[i] = newCall(s.done)
	}
	return s
}

func (s *callSubmitter[C]) units() int { return len(s.calls) }
func (s *callSubmitter[C]) size() int  { return 1 }

func (s *callSubmitter[C]) submit(ctx context.Context, u int) error {
	return s.submitCall(ctx, &s.calls[u])
}

func (s *callSubmitter[C]) next() (int, error) {
	c := <-s.done
	return indexOf(s.calls, c), s.errOf(c)
}

// indexOf is the index of p, a pointer to an element of s, in s: the
// window's slot of a call that came back, without a lookup.
func indexOf[T any](s []T, p *T) int {
	var zero T
	return int((uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(unsafe.SliceData(s)))) / unsafe.Sizeof(zero))
}

// newRSASubmitter submits signatures of digest through Signer.Go.
func newRSASubmitter(signer *rsa.Signer, digest []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *rsa.Call) rsa.Call {
		return rsa.Call{Digest: digest, Opts: crypto.SHA256, Done: done}
	}, signer.Go, func(c *rsa.Call) error { return c.Err })
}

// newECDHSubmitter submits X25519 shared secrets through Server.Go.
func newECDHSubmitter(server *ecdh.Server, priv, peer []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *ecdh.Call) ecdh.Call {
		return ecdh.Call{Curve: ecdh.X25519(), Priv: priv, Peer: peer, Done: done}
	}, server.Go, func(c *ecdh.Call) error { return c.Err })
}

// newEd25519Submitter submits Ed25519 signings of msg under key, or with
// a nil key verifications of sig under pub, through ed25519.Server.Go.
func newEd25519Submitter(server *ed25519.Server, key stded25519.PrivateKey, pub stded25519.PublicKey, msg, sig []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *ed25519.Call) ed25519.Call {
		return ed25519.Call{Key: key, Pub: pub, Message: msg, Signature: sig, Done: done}
	}, server.Go, func(c *ed25519.Call) error {
		if c.Err == nil && c.Key == nil && !c.Valid {
			return fmt.Errorf("ed25519-verify: %w", errRejected)
		}
		return c.Err
	})
}

// newECDSASubmitter submits the calls that call makes (a signing, a
// verification or an ECDH of ecdsa.Server.Go, or through submit a
// Signer's signing) for the P-256 operations.
func newECDSASubmitter(call func(done chan *ecdsa.Call) ecdsa.Call, submit func(context.Context, *ecdsa.Call) error, window int) submitter {
	return newCallSubmitter(window, call, submit, func(c *ecdsa.Call) error {
		if c.Err == nil && c.Pub != nil && !c.Valid {
			return fmt.Errorf("ecdsa-p256-verify: %w", errRejected)
		}
		return c.Err
	})
}

// newAESSubmitter submits AES-GCM Seals of plaintext through
// aes.Server.Go, each call of the window into an output buffer of its
// own.
func newAESSubmitter(server *aes.Server, key *aes.Key, nonce, plaintext []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *aes.Call) aes.Call {
		dst := make([]byte, 0, len(plaintext)+aes.TagSize)
		return aes.Call{Key: key, Dst: dst, Nonce: nonce, Data: plaintext, Done: done}
	}, server.Go, func(c *aes.Call) error { return c.Err })
}

// frameSubmitter submits X25519 shared secrets in frames of frameSize
// calls through Server.GoFrame.
type frameSubmitter struct {
	server *ecdh.Server
	frames []ecdh.Frame
	done   chan *ecdh.Frame
}

// newFrameSubmitter makes a window of frames, about window calls in all.
func newFrameSubmitter(server *ecdh.Server, priv, peer []byte, window int) submitter {
	s := &frameSubmitter{server: server, frames: make([]ecdh.Frame, max(1, (window+frameSize/2)/frameSize))}
	s.done = make(chan *ecdh.Frame, len(s.frames))
	for i := range s.frames {
		f := &s.frames[i]
		f.Calls, f.Done = make([]ecdh.Call, frameSize), s.done
		for k := range f.Calls {
			f.Calls[k] = ecdh.Call{Curve: ecdh.X25519(), Priv: priv, Peer: peer}
		}
	}
	return s
}

func (s *frameSubmitter) units() int { return len(s.frames) }
func (s *frameSubmitter) size() int  { return frameSize }

func (s *frameSubmitter) submit(ctx context.Context, u int) error {
	return s.server.GoFrame(ctx, &s.frames[u])
}

func (s *frameSubmitter) next() (int, error) {
	f := <-s.done
	for _, c := range f.Calls {
		if c.Err != nil {
			return indexOf(s.frames, f), c.Err
		}
	}
	return indexOf(s.frames, f), nil
}

// runAsyncLoad keeps about n calls in flight from submitters goroutines
// (n / submitters each, in the units of the submitters newSubmitter
// makes), for warm and then dur: each goroutine submits its window, then
// resubmits each unit as it comes back. It returns the calls completed
// within the window and their latencies (submission to receipt, one
// figure per unit: its calls share it), and the calls kept in flight (n,
// or more where the units are frames: whole frames); edge runs at the
// window's start and end. The first error is returned.
func runAsyncLoad(n, submitters int, warm, dur time.Duration, newSubmitter func(window int) submitter, edge func(start bool)) (loadWindow, int, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	submitters = max(1, min(submitters, n))
	var (
		mu        sync.Mutex
		completed int
		windowed  int // the calls of all windows
		hists     = make([]latency.Histogram, submitters)
		firstErr  error
		wg        sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	from := time.Now().Add(warm)
	to := from.Add(dur)
	for g := range submitters {
		window := n / submitters
		if g < n%submitters {
			window++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newSubmitter(window)
			sent := make([]time.Time, s.units())
			size := s.size()
			mu.Lock()
			windowed += len(sent) * size
			mu.Unlock()
			mine := &hists[g]
			done, inFlight := 0, 0
			defer func() {
				mu.Lock()
				completed += done
				mu.Unlock()
			}()
			for u := range sent {
				sent[u] = time.Now()
				if err := s.submit(ctx, u); err != nil {
					fail(err)
					break
				}
				inFlight++
			}
			for inFlight > 0 {
				u, err := s.next()
				inFlight--
				if err != nil {
					if ctx.Err() == nil {
						fail(err)
					}
					continue
				}
				t1 := time.Now()
				if !sent[u].Before(from) {
					mine.Add(t1.Sub(sent[u]))
				}
				if !t1.Before(from) && t1.Before(to) {
					done += size
				}
				if t1.Before(to) && ctx.Err() == nil {
					sent[u] = t1
					if err := s.submit(ctx, u); err != nil {
						fail(err)
						continue
					}
					inFlight++
				}
			}
		}()
	}
	timer := time.NewTimer(time.Until(from))
	select {
	case <-timer.C:
		if edge != nil {
			edge(true)
		}
		timer.Reset(time.Until(to))
		select {
		case <-timer.C:
			if edge != nil {
				edge(false)
			}
		case <-ctx.Done():
		}
	case <-ctx.Done():
	}
	timer.Stop()
	wg.Wait()
	if firstErr != nil {
		return loadWindow{}, 0, fmt.Errorf("asynchronous load: %w", firstErr)
	}
	return merge(completed, hists), windowed, nil
}
