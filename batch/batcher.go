package batch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrClosed is returned by Do after Close.
var ErrClosed = errors.New("batch: batcher closed")

// Options configure a Batcher. Zero values pick the defaults.
type Options struct {
	MaxBatch  int           // flush when this many requests wait (default 4096)
	MaxDelay  time.Duration // flush this long after the first request of a batch (default 2ms)
	QueueSize int           // requests that may wait; Do blocks beyond it (default 4·MaxBatch)
	// Pipeline is the number of batches each worker function may run at
	// once (default 2): while the device computes one batch, the next is
	// prepared and the previous one finished on the host. Worker functions
	// must then be safe for concurrent use (the engines are). 1 runs one
	// batch at a time per worker.
	Pipeline int
}

func (o Options) withDefaults() Options {
	if o.MaxBatch <= 0 {
		o.MaxBatch = 4096
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = 2 * time.Millisecond
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 4 * o.MaxBatch
	}
	if o.Pipeline <= 0 {
		o.Pipeline = 2
	}
	return o
}

// RunFunc computes one batch. It returns one result per request, and either
// nil, a *Error whose Errs has one entry per request (per-element
// failures), or any other error, which fails the whole batch.
type RunFunc[Q, R any] func(reqs []Q) ([]R, error)

// Batcher gathers single requests from many goroutines into batches and
// hands each batch to the first free worker (one worker per device, say).
// A full queue blocks callers (back-pressure); a caller's context cancels
// its wait, and cancelled requests are dropped before their batch runs.
type Batcher[Q, R any] struct {
	opts    Options
	queue   chan *item[Q, R]
	batches chan []*item[Q, R]
	mu      sync.RWMutex
	closed  bool
	wg      sync.WaitGroup
}

type item[Q, R any] struct {
	ctx  context.Context
	req  Q
	done chan outcome[R] // buffered: a worker never blocks on an abandoned request
}

type outcome[R any] struct {
	val R
	err error
}

// New starts a batcher with Options.Pipeline worker goroutines per RunFunc.
func New[Q, R any](opts Options, workers ...RunFunc[Q, R]) *Batcher[Q, R] {
	if len(workers) == 0 {
		panic("batch.New: no workers")
	}
	opts = opts.withDefaults()
	b := &Batcher[Q, R]{
		opts:    opts,
		queue:   make(chan *item[Q, R], opts.QueueSize),
		batches: make(chan []*item[Q, R]),
	}
	b.wg.Add(1)
	go b.collect()
	for _, w := range workers {
		for range opts.Pipeline {
			b.wg.Add(1)
			go b.work(w)
		}
	}
	return b
}

// Do submits one request and waits for its result.
func (b *Batcher[Q, R]) Do(ctx context.Context, req Q) (R, error) {
	var zero R
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	it := &item[Q, R]{ctx: ctx, req: req, done: make(chan outcome[R], 1)}
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return zero, ErrClosed
	}
	select {
	case b.queue <- it:
		b.mu.RUnlock()
	case <-ctx.Done():
		b.mu.RUnlock()
		return zero, ctx.Err()
	}
	select {
	case o := <-it.done:
		return o.val, o.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Close stops accepting requests, finishes the queued ones and waits for
// the workers to return.
func (b *Batcher[Q, R]) Close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *Batcher[Q, R]) collect() {
	defer b.wg.Done()
	defer close(b.batches)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		first, ok := <-b.queue
		if !ok {
			return
		}
		pending := []*item[Q, R]{first}
		timer.Reset(b.opts.MaxDelay)
	fill:
		for len(pending) < b.opts.MaxBatch {
			select {
			case it, ok := <-b.queue:
				if !ok {
					break fill
				}
				pending = append(pending, it)
			case <-timer.C:
				break fill
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		live := pending[:0]
		for _, it := range pending {
			if err := it.ctx.Err(); err != nil {
				it.done <- outcome[R]{err: err}
				continue
			}
			live = append(live, it)
		}
		if len(live) > 0 {
			b.batches <- live
		}
	}
}

func (b *Batcher[Q, R]) work(run RunFunc[Q, R]) {
	defer b.wg.Done()
	for items := range b.batches {
		reqs := make([]Q, len(items))
		for i, it := range items {
			reqs[i] = it.req
		}
		vals, err := safeRun(run, reqs)
		var per *Error
		if errors.As(err, &per) && len(per.Errs) != len(items) {
			per = nil
		}
		for i, it := range items {
			var o outcome[R]
			switch {
			case err != nil && per == nil:
				o.err = err
			case len(vals) != len(items):
				o.err = fmt.Errorf("batch: worker returned %d results for %d requests", len(vals), len(items))
			case per != nil:
				o.err = per.Errs[i]
				if o.err == nil {
					o.val = vals[i]
				}
			default:
				o.val = vals[i]
			}
			it.done <- o
		}
	}
}

func safeRun[Q, R any](run RunFunc[Q, R], reqs []Q) (vals []R, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("batch: worker panicked: %v", p)
		}
	}()
	return run(reqs)
}
