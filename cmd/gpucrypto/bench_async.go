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
	// submitFrame submits the calls of slots together (Server.GoMany);
	// an error for a Server without that form.
	submitFrame(ctx context.Context, slots []int) error
	// next waits for a completed call and returns its slot and error.
	next() (slot int, err error)
}

// frameSize is the number of calls that the async-frames form submits at
// once (Server.GoMany): the frame of a gateway that decodes many requests
// from one read.
const frameSize = 64

// callSubmitter is a submitter over a Server's Call type C: a window of
// Calls, submitted with submitCall and received back on done.
type callSubmitter[C any] struct {
	calls      []C
	slots      map[*C]int
	done       chan *C
	submitCall func(ctx context.Context, c *C) error
	// submitCalls submits a frame of calls (nil: the Server has no such
	// form)
	submitCalls func(ctx context.Context, c []*C) error
	frame       []*C
	errOf       func(c *C) error
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

func (s *callSubmitter[C]) submitFrame(ctx context.Context, slots []int) error {
	if s.submitCalls == nil {
		return fmt.Errorf("no form that submits a frame of calls")
	}
	s.frame = s.frame[:0]
	for _, slot := range slots {
		s.frame = append(s.frame, &s.calls[slot])
	}
	return s.submitCalls(ctx, s.frame)
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

// newECDHSubmitter submits X25519 shared secrets through Server.Go, or
// in frames through Server.GoMany.
func newECDHSubmitter(server *ecdh.Server, priv, peer []byte, window int) submitter {
	s := newCallSubmitter(window, func(done chan *ecdh.Call) ecdh.Call {
		return ecdh.Call{Curve: ecdh.X25519(), Priv: priv, Peer: peer, Done: done}
	}, server.Go, func(c *ecdh.Call) error { return c.Err })
	s.submitCalls = server.GoMany
	return s
}

// runAsyncLoad keeps n calls in flight from submitters goroutines (n /
// submitters each, made by newSubmitter), for warm and then dur: each
// goroutine submits its window, then resubmits each call as it comes
// back. It returns the calls completed within the window and their
// latencies (submission to receipt); edge runs at the window's start and
// end. The first error is returned.
func runAsyncLoad(n, submitters, frame int, warm, dur time.Duration, newSubmitter func(window int) submitter, edge func(start bool)) (loadWindow, error) {
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
			// with frame > 1, calls go in frames of that many (the last
			// of the window smaller), and completed ones wait until a
			// frame is full or nothing else is in flight
			var pending []int
			flush := func() bool {
				if len(pending) == 0 {
					return true
				}
				var err error
				if frame > 1 {
					err = s.submitFrame(ctx, pending)
				} else {
					err = s.submit(ctx, pending[0])
				}
				if err != nil {
					fail(err)
					pending = pending[:0]
					return false
				}
				inFlight += len(pending)
				pending = pending[:0]
				return true
			}
			step := max(frame, 1)
			for slot := range window {
				sent[slot] = time.Now()
				pending = append(pending, slot)
				if len(pending) == step && !flush() {
					break
				}
			}
			flush()
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
					pending = append(pending, slot)
					if len(pending) == step || inFlight == 0 {
						flush()
					}
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
