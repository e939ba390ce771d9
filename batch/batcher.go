package batch

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is the error of a request after Close (of a Batcher, or of
// an Engine or Server: their errors wrap it).
var ErrClosed = errors.New("batch: closed")

var errNilContext = errors.New("batch: nil context")

// Options configure a Batcher. Zero values pick the defaults.
type Options struct {
	// MaxBatch is the most requests in one batch (default 16384: on an
	// H100, rsa.Server at 16,384 callers did 336K signatures/s with it
	// against 285K with 4096, and at 65,536 callers 478K against 262K).
	MaxBatch int
	// MaxDelay is how long the oldest waiting request may wait for others
	// to join it while every worker is idle (default 2ms). A worker that is
	// free while another is busy takes what waits at once: under load the
	// wait for a free worker gathers the batch, not a timer.
	MaxDelay  time.Duration
	QueueSize int // requests that may wait besides the batch being formed; Do blocks beyond (default 4·MaxBatch)
	// Pipeline is the number of batches each worker function may run at
	// once (default 2): while the device computes one batch, the next is
	// prepared and the previous one finished on the host. Worker functions
	// must then be safe for concurrent use (the engines are). 1 runs one
	// batch at a time per worker.
	Pipeline int
	// CPUOffload is the most requests a Batcher made by NewWithCPU
	// computes on the CPU at once, in the callers' goroutines, instead of
	// batching them for the workers (default GOMAXPROCS/2; negative: none).
	// A request goes to the CPU only while fewer than that many are there
	// and the CPU's measured time for one request is below the measured
	// wait of the batched path: a lone request does not wait for a batch,
	// and under load, when the CPU slots are taken, requests gather into
	// batches. See NewWithCPU.
	CPUOffload int
	// Meter, when set, counts the requests (a Server shares one among its
	// Batchers and reports it in its Stats).
	Meter *Meter
}

func (o Options) withDefaults() Options {
	if o.MaxBatch <= 0 {
		o.MaxBatch = 16384
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
	if o.CPUOffload == 0 {
		o.CPUOffload = max(1, runtime.GOMAXPROCS(0)/2)
	}
	return o
}

// RunFunc computes one batch. It returns one result per request, and either
// nil, a *Error whose Errs has one entry per request (per-element
// failures), or any other error, which fails the whole batch.
type RunFunc[Q, R any] func(reqs []Q) ([]R, error)

// Batcher gathers single requests from many goroutines into batches and
// hands each batch to a free worker (one worker per device, say). A batch
// is formed when a worker is free to take it, from everything waiting (up
// to MaxBatch): while the workers are busy, requests gather, so batches
// grow with the load. Only when every worker is idle does a batch wait,
// at most MaxDelay after its oldest request arrived, for more to join.
// A full queue blocks callers (back-pressure); a caller's context cancels
// its wait, and cancelled requests are dropped before their batch runs.
type Batcher[Q, R any] struct {
	opts    Options
	queue   chan *item[Q, R]
	batches []chan []*item[Q, R] // per RunFunc (engine): its workers take batches there
	busy    []atomic.Int32       // per RunFunc: its workers running a batch
	// assigned is per RunFunc the batches handed to its workers and not
	// finished: counted from the hand-off, so the choice of engine sees a
	// batch at once (busy, counted from the start, decides when to offer:
	// counting from the hand-off there made batches smaller, see
	// docs/BENCHMARKS.md)
	assigned []atomic.Int32
	finished chan struct{} // a worker finished a batch (buffered, one slot)
	mu       sync.RWMutex
	closed   bool
	wg       sync.WaitGroup

	offload *offload[Q, R] // NewWithCPU; nil: every request is batched
	items   sync.Pool      // of *item[Q, R], with their channels (putItem)
}

type item[Q, R any] struct {
	ctx     context.Context
	req     Q
	done    chan outcome[R] // buffered: a worker never blocks on an abandoned request
	arrived time.Time       // when the collector took it from the queue
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
		opts:     opts,
		queue:    make(chan *item[Q, R], opts.QueueSize),
		batches:  make([]chan []*item[Q, R], len(workers)),
		busy:     make([]atomic.Int32, len(workers)),
		assigned: make([]atomic.Int32, len(workers)),
		finished: make(chan struct{}, 1),
	}
	for e := range b.batches {
		b.batches[e] = make(chan []*item[Q, R])
	}
	b.items.New = func() any { return &item[Q, R]{done: make(chan outcome[R], 1)} }
	b.wg.Add(1)
	go b.collect()
	for e, w := range workers {
		for range opts.Pipeline {
			b.wg.Add(1)
			go b.work(e, w)
		}
	}
	return b
}

// Do submits one request and waits for its result. With NewWithCPU it
// may compute it on the CPU instead, at once (see Options.CPUOffload).
func (b *Batcher[Q, R]) Do(ctx context.Context, req Q) (R, error) {
	var zero R
	if ctx == nil {
		return zero, errNilContext
	}
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	defer b.opts.Meter.done(b.opts.Meter.start())
	if o := b.offload; o != nil {
		if o.take() {
			// the batched path checks for Close itself; the CPU path here
			b.mu.RLock()
			closed := b.closed
			b.mu.RUnlock()
			if closed {
				o.unreserve()
				return zero, ErrClosed
			}
			b.opts.Meter.cpu()
			return o.run(req)
		}
		start := time.Now()
		o.batched.Add(1)
		val, err := b.batched(ctx, req)
		o.batched.Add(-1)
		if err == nil {
			o.batchedWait.observe(time.Since(start))
		}
		return val, err
	}
	return b.batched(ctx, req)
}

// batched queues one request for a batch and waits for its result.
func (b *Batcher[Q, R]) batched(ctx context.Context, req Q) (R, error) {
	var zero R
	it := b.items.Get().(*item[Q, R])
	it.ctx, it.req = ctx, req
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		b.putItem(it)
		return zero, ErrClosed
	}
	b.opts.Meter.queued(1)
	if ctx.Done() == nil {
		// a context that never ends: plain channel operations, not
		// selects, which lock both channels (with tens of thousands of
		// callers on one queue, that contention shows)
		b.queue <- it
		b.mu.RUnlock()
		o := <-it.done
		b.putItem(it) // its answer is taken: nothing else refers to it
		return o.val, o.err
	}
	select {
	case b.queue <- it:
		b.mu.RUnlock()
	case <-ctx.Done():
		b.mu.RUnlock()
		b.opts.Meter.queued(-1)
		return zero, ctx.Err()
	}
	select {
	case o := <-it.done:
		b.putItem(it)
		return o.val, o.err
	case <-ctx.Done():
		return zero, ctx.Err() // a worker may still answer it: not reused
	}
}

// putItem clears it and keeps it, with its channel, for another request
// (allocating both per request costs the garbage collector, with tens of
// thousands of callers, more than the device work). Only an item whose
// answer has been taken may come back.
func (b *Batcher[Q, R]) putItem(it *item[Q, R]) {
	var zero Q
	it.ctx, it.req, it.arrived = nil, zero, time.Time{}
	b.items.Put(it)
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

// collect moves requests from the queue into pending and offers a batch
// of them to the workers whenever one may go: at once when MaxBatch wait,
// when a worker is busy (the device has work, so a free worker should take
// what waits), or when the oldest has waited MaxDelay. The offer is a send
// that only a free worker receives, so a batch is cut when a worker takes
// it, from everything waiting then.
//
// With several RunFuncs (engines: one per GPU, say) the offer goes to the
// engine running the fewest batches, and while several engines are idle
// each is offered an equal share of what waits, so that one engine does
// not take every waiting request while another idles.
func (b *Batcher[Q, R]) collect() {
	defer b.wg.Done()
	defer func() {
		for _, ch := range b.batches {
			close(ch)
		}
	}()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var pending []*item[Q, R]
	due := false  // the oldest pending request has waited MaxDelay
	next := 0     // where the search for the least busy engine starts (round robin among equals)
	owed := false // the last offer was a share: the rest goes out at once too
	for {
		var out chan []*item[Q, R]
		var offer []*item[Q, R]
		target := -1
		if len(pending) > 0 && (due || owed || len(pending) >= b.opts.MaxBatch || b.anyBusy()) {
			var idle int
			target, idle = b.leastBusy(next)
			if target >= 0 {
				n := min(len(pending), b.opts.MaxBatch)
				if idle > 1 {
					n = min(n, (len(pending)+idle-1)/idle)
				}
				out, offer = b.batches[target], pending[:n]
			}
		}
		// The collector holds at most one batch; beyond it requests wait in
		// the queue, and beyond QueueSize callers block (back-pressure).
		in := b.queue
		if len(pending) >= b.opts.MaxBatch {
			in = nil
		}
		select {
		case it, ok := <-in:
			if !ok {
				// closed: everything left goes out, in batches
				for e := 0; len(pending) > 0; e = (e + 1) % len(b.batches) {
					n := min(len(pending), b.opts.MaxBatch)
					b.assigned[e].Add(1)
					b.opts.Meter.queued(-n)
					b.batches[e] <- pending[:n]
					pending = pending[n:]
				}
				return
			}
			it.arrived = time.Now()
			if len(pending) == 0 {
				due = false
				timer.Reset(b.opts.MaxDelay)
			}
			pending = append(pending, it)
			// take what else waits now, without a trip round the loop each
			for drained := false; !drained && len(pending) < b.opts.MaxBatch; {
				select {
				case more, ok := <-b.queue:
					if !ok {
						drained = true // closed: the next receive says so
						break
					}
					more.arrived = it.arrived
					pending = append(pending, more)
				default:
					drained = true
				}
			}
		case out <- offer:
			b.assigned[target].Add(1)
			b.opts.Meter.queued(-len(offer))
			next = (target + 1) % len(b.batches)
			owed = len(offer) < len(pending) && len(offer) < b.opts.MaxBatch
			pending = append([]*item[Q, R](nil), pending[len(offer):]...)
			stopTimer(timer)
			due = false
			if len(pending) > 0 {
				// the next batch's clock starts at its oldest request
				wait := b.opts.MaxDelay - time.Since(pending[0].arrived)
				if wait <= 0 {
					due = true
				} else {
					timer.Reset(wait)
				}
			}
		case <-timer.C:
			due = true
		case <-b.idle():
			// a worker finished: look again (busy changed)
		}
	}
}

// anyBusy reports whether a worker of any engine is running a batch.
func (b *Batcher[Q, R]) anyBusy() bool {
	for e := range b.busy {
		if b.busy[e].Load() > 0 {
			return true
		}
	}
	return false
}

// leastBusy returns the engine with the fewest batches assigned that has a
// free worker (the first from start among equals; -1 when every worker is
// busy) and the number of engines with none.
func (b *Batcher[Q, R]) leastBusy(start int) (engine, idle int) {
	engine, least := -1, int32(b.opts.Pipeline)
	for k := range b.assigned {
		e := (start + k) % len(b.assigned)
		n := b.assigned[e].Load()
		if n == 0 {
			idle++
		}
		if n < least {
			engine, least = e, n
		}
	}
	return engine, idle
}

// idle returns a channel that is ready when a worker has finished a batch
// since the last call.
func (b *Batcher[Q, R]) idle() <-chan struct{} { return b.finished }

// dropCancelled answers the requests whose context has ended and returns
// the others (a new slice: items may be shared with the collector's).
func dropCancelled[Q, R any](items []*item[Q, R]) []*item[Q, R] {
	live := make([]*item[Q, R], 0, len(items))
	for _, it := range items {
		if err := it.ctx.Err(); err != nil {
			it.done <- outcome[R]{err: err}
			continue
		}
		live = append(live, it)
	}
	return live
}

func stopTimer(t *time.Timer) {
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
}

func (b *Batcher[Q, R]) work(engine int, run RunFunc[Q, R]) {
	defer b.wg.Done()
	for items := range b.batches[engine] {
		b.busy[engine].Add(1)
		b.runBatch(run, items)
		b.busy[engine].Add(-1)
		b.assigned[engine].Add(-1)
		select {
		case b.finished <- struct{}{}:
		default: // the collector has a wake-up pending already
		}
	}
}

// runBatch runs one batch and answers each of its requests; those whose
// context has ended are dropped before it runs.
func (b *Batcher[Q, R]) runBatch(run RunFunc[Q, R], items []*item[Q, R]) {
	if items = dropCancelled(items); len(items) == 0 {
		return
	}
	reqs := make([]Q, len(items))
	for i, it := range items {
		reqs[i] = it.req
	}
	vals, err := safeRun(run, reqs)
	// answering wakes each caller's goroutine: thousands per batch, on all
	// cores rather than one after the other
	Parallel(len(items), 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			items[i].done <- answer(vals, err, i, len(items))
		}
	})
}

// answer is the outcome of request i of n from a RunFunc's answer.
func answer[R any](vals []R, err error, i, n int) outcome[R] {
	var per *Error
	if errors.As(err, &per) && len(per.Errs) != n {
		per = nil
	}
	var o outcome[R]
	switch {
	case err != nil && per == nil:
		o.err = err
	case len(vals) != n:
		o.err = fmt.Errorf("batch: worker returned %d results for %d requests", len(vals), n)
	case per != nil:
		o.err = per.Errs[i]
		if o.err == nil {
			o.val = vals[i]
		}
	default:
		o.val = vals[i]
	}
	return o
}

func safeRun[Q, R any](run RunFunc[Q, R], reqs []Q) (vals []R, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("batch: worker panicked: %v", p)
		}
	}()
	return run(reqs)
}
