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

// rsaSubmitter submits signatures through Signer.Go.
type rsaSubmitter struct {
	signer *rsa.Signer
	calls  []rsa.Call
	slots  map[*rsa.Call]int
	done   chan *rsa.Call
}

func newRSASubmitter(signer *rsa.Signer, digest []byte, window int) *rsaSubmitter {
	s := &rsaSubmitter{signer: signer, calls: make([]rsa.Call, window), slots: map[*rsa.Call]int{}, done: make(chan *rsa.Call, window)}
	for i := range s.calls {
		s.calls[i] = rsa.Call{Digest: digest, Opts: crypto.SHA256, Done: s.done}
		s.slots[&s.calls[i]] = i
	}
	return s
}

func (s *rsaSubmitter) submit(ctx context.Context, slot int) error {
	return s.signer.Go(ctx, &s.calls[slot])
}

func (s *rsaSubmitter) next() (int, error) {
	c := <-s.done
	return s.slots[c], c.Err
}

// ecdhSubmitter submits shared secrets through Server.Go.
type ecdhSubmitter struct {
	server *ecdh.Server
	calls  []ecdh.Call
	slots  map[*ecdh.Call]int
	done   chan *ecdh.Call
}

func newECDHSubmitter(server *ecdh.Server, priv, peer []byte, window int) *ecdhSubmitter {
	s := &ecdhSubmitter{server: server, calls: make([]ecdh.Call, window), slots: map[*ecdh.Call]int{}, done: make(chan *ecdh.Call, window)}
	for i := range s.calls {
		s.calls[i] = ecdh.Call{Curve: ecdh.X25519(), Priv: priv, Peer: peer, Done: s.done}
		s.slots[&s.calls[i]] = i
	}
	return s
}

func (s *ecdhSubmitter) submit(ctx context.Context, slot int) error {
	return s.server.Go(ctx, &s.calls[slot])
}

func (s *ecdhSubmitter) next() (int, error) {
	c := <-s.done
	return s.slots[c], c.Err
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
