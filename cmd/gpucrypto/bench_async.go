package main

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/gpucrypto/gpucrypto/internal/latency"
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
