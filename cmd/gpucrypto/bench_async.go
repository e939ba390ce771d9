package main

import (
	"context"
	"crypto"
	"fmt"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/latency"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// submitter is one goroutine's side of the asynchronous form of a
// Server's operation: a window of calls, each submitted (Signer.Go,
// Server.Go) and received back from their Done channel.
type submitter interface {
	// submit submits call slot of the window.
	submit(ctx context.Context, slot int) error
	// next waits for a completed call and returns its slot and error.
	next() (slot int, err error)
}

// callSubmitter is a submitter over a Server's Call type C: a window of
// Calls, submitted with submitCall and received back on done.
type callSubmitter[C any] struct {
	calls      []C
	slots      map[*C]int
	done       chan *C
	submitCall func(ctx context.Context, c *C) error
	errOf      func(c *C) error
}

// newCallSubmitter makes a window of calls, each made by newCall with the
// window's Done channel.
func newCallSubmitter[C any](window int, newCall func(done chan *C) C, submitCall func(context.Context, *C) error, errOf func(*C) error) *callSubmitter[C] {
	s := &callSubmitter[C]{calls: make([]C, window), slots: map[*C]int{}, done: make(chan *C, window), submitCall: submitCall, errOf: errOf}
	for i := range s.calls {
		s.calls[i] = newCall(s.done)
		s.slots[&s.calls[i]] = i
	}
	return s
}

func (s *callSubmitter[C]) submit(ctx context.Context, slot int) error {
	return s.submitCall(ctx, &s.calls[slot])
}

func (s *callSubmitter[C]) next() (int, error) {
	c := <-s.done
	return s.slots[c], s.errOf(c)
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

// runAsyncLoad keeps n calls in flight from submitters goroutines (n /
// submitters each, made by newSubmitter), for warm and then dur: each
// goroutine submits its window, then resubmits each call as it comes
// back. It returns the calls completed within the window and their
// latencies (submission to receipt); edge runs at the window's start and
// end. The first error is returned.
func runAsyncLoad(n, submitters int, warm, dur time.Duration, newSubmitter func(window int) submitter, edge func(start bool)) (loadWindow, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	submitters = max(1, min(submitters, n))
	var (
		mu        sync.Mutex
		completed int
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
			sent := make([]time.Time, window)
			mine := &hists[g]
			done, inFlight := 0, 0
			defer func() {
				mu.Lock()
				completed += done
				mu.Unlock()
			}()
			for slot := range window {
				sent[slot] = time.Now()
				if err := s.submit(ctx, slot); err != nil {
					fail(err)
					break
				}
				inFlight++
			}
			for inFlight > 0 {
				slot, err := s.next()
				inFlight--
				if err != nil {
					if ctx.Err() == nil {
						fail(err)
					}
					continue
				}
				t1 := time.Now()
				if !sent[slot].Before(from) {
					mine.Add(t1.Sub(sent[slot]))
				}
				if !t1.Before(from) && t1.Before(to) {
					done++
				}
				if t1.Before(to) && ctx.Err() == nil {
					sent[slot] = t1
					if err := s.submit(ctx, slot); err != nil {
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
		return loadWindow{}, fmt.Errorf("asynchronous load: %w", firstErr)
	}
	return merge(completed, hists), nil
}
