package batch

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/internal/latency"
)

// ErrClosed is the error of a request after Close (of a Batcher, or of
// an Engine or Server: their errors wrap it).
var ErrClosed = errors.New("batch: closed")

var (
	errNilContext = errors.New("batch: nil context")
	errNilDone    = errors.New("batch: Go without a completion")
)

// Options configure a Batcher, and the Servers of the packages built on
// it. A zero field means one thing everywhere: the default. The defaults
// are the batch package's below, except where a package's Server names
// its algorithm's own (ecdh: four batches in flight and answers in pieces
// of 128; rsa: answers in pieces of 128 beside the worker over one engine,
// with Parallel over several), chosen for that algorithm's batches.
type Options struct {
	// MaxBatch is the most requests in one batch (default 16384): large
	// batches amortize a device call's fixed costs (RSA's kernels run at
	// their rate only from thousands of elements).
	MaxBatch int
	// MaxDelay is how long the oldest waiting request may wait for others
	// to join it while every worker is idle and the last batch taken was
	// larger than what waits, or none was taken yet (default 2ms): under a
	// load that filled the last batch, more requests are on their way;
	// under a light one (the last batch no larger) none is, and what waits
	// goes at once. A worker that is free while another is busy takes what
	// waits at once (under load the wait for a free worker gathers the
	// batch, not a timer), unless it is fewer than the engine's running
	// batches hold: then it waits for more, at most MaxDelay and half the
	// engine's last batch time.
	MaxDelay time.Duration
	// QueueSize is about the most requests that may wait for a batch; Do
	// and Go block beyond, until their context ends (default 4·MaxBatch).
	// The limit is kept by the shards of the intake, each of which sums
	// the others only once it holds its share: up to twice QueueSize may
	// wait. The blocked callers wait in turn, each shard's in a queue of
	// its own, and a batch taken from a shard wakes as many as it took.
	QueueSize int
	// Pipeline is the number of batches each worker function may run at
	// once (default 2): while the device computes one batch, the next is
	// prepared and the previous one finished on the host. Worker functions
	// must then be safe for concurrent use (the engines are). 1 runs one
	// batch at a time per worker.
	Pipeline int
	// CPUOffload is the most requests a Batcher made by NewWithCPU
	// computes on the CPU at once instead of batching them for the
	// workers (negative: none, every request is batched, also where
	// NewDirect would compute it). The default (zero) is GOMAXPROCS, one
	// per core, while the batched path has requests; while it is idle (none
	// batched, and none answered within a batch's wait) the CPU path then
	// takes as many at once as it finishes before a batch would, as many
	// goroutines calling crypto/* would, up to 32 a core. A request goes
	// to the CPU only where it finishes there first: in a free slot, or
	// after the requests waiting for one, while that ends before the
	// measured wait of the batched path and the CPU path holds fewer than
	// 32 requests a core (or CPUOffload, where more). See NewWithCPU.
	CPUOffload int
	// AnswerPiece is how a batch's requests are answered: positive, in
	// pieces of that many, each piece by a goroutine of its own; negative,
	// on all cores, the worker's included, in parts of 1,024 (Parallel);
	// zero, the default (Parallel for a Batcher; a Server's own, see
	// above). Answering a blocked caller makes its goroutine runnable, and
	// the Go runtime queues it on the core that answers it, what overflows
	// that core's queue (256) in the global queue, under a lock that every
	// idle core takes to look for work: pieces of 128 keep a batch's
	// callers in the queues of the cores that run the pieces, which pays
	// for tens of thousands of blocking callers of light batches. Where the
	// batches' host work keeps every core busy, the pieces wait for a core
	// while the worker waits for them: AnswerAlongside has the worker
	// answer them itself meanwhile.
	AnswerPiece int
	// AnswerAlongside, with a positive AnswerPiece, has the batch's worker
	// answer pieces too, beside the goroutines started for them: each
	// piece goes to whichever comes for it first, and the worker waits
	// only for the pieces taken, not for every goroutine to start. Where
	// the cores are busy with the batches' host work (RSA's checks of its
	// results), the worker then answers what the goroutines have not yet
	// come for instead of waiting for a core for them; where the cores are
	// free (X25519) it slows the blocking callers.
	AnswerAlongside bool
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
		o.CPUOffload = runtime.GOMAXPROCS(0)
	}
	return o
}

// RunFunc computes one batch. It returns one result per request, and either
// nil, a *Error whose Errs has one entry per request (per-element
// failures), or any other error, which fails the whole batch. reqs is the
// Batcher's, valid during the call only.
type RunFunc[Q, R any] func(reqs []Q) ([]R, error)

// OneFunc computes one request on the CPU (crypto/* called for it): the
// CPU path of NewWithCPUOne and NewDirectCPU, which then puts no slice
// around a lone request. Its error is the request's own.
type OneFunc[Q, R any] func(req Q) (R, error)

// batched is f as a RunFunc: each request in turn, their errors in a
// *Error.
func (f OneFunc[Q, R]) batched() RunFunc[Q, R] {
	return func(reqs []Q) ([]R, error) {
		out := make([]R, len(reqs))
		errs := make([]error, len(reqs))
		for i, r := range reqs {
			out[i], errs[i] = f(r)
		}
		return out, Collect(errs)
	}
}

// one is f for one request: the request's result, or the error of the
// batch f fails or of a panic in f.
func (f RunFunc[Q, R]) one(req Q) (R, error) {
	vals, err := safeRun(f, []Q{req})
	out := results(vals, err, 1).of(0)
	return out.val, out.err
}

// safe is f(req), with a panic in f as its error.
func (f OneFunc[Q, R]) safe(req Q) (val R, err error) {
	defer func() {
		if p := recover(); p != nil {
			var zero R
			val, err = zero, fmt.Errorf("batch: CPU path panicked: %v", p)
		}
	}()
	return f(req)
}

// Batcher gathers single requests from many goroutines into batches and
// hands each batch to a free worker (one worker per device, say). A batch
// is formed when a worker is free to take it, from everything waiting (up
// to MaxBatch): while the workers are busy, requests gather, so batches
// grow with the load. Only when every worker is idle does a batch wait,
// at most MaxDelay after its oldest request arrived, for more to join;
// and a worker whose engine runs larger batches than what waits holds it
// for a while, since it would wait behind them on the device anyway.
// A full queue blocks callers (back-pressure); a caller's context cancels
// its wait, and cancelled requests are dropped before their batch runs.
//
// The requests wait in an intake of several shards, each with its own
// lock, that a free worker empties into its batch: no channel or lock is
// crossed by every request, and no goroutine handles the requests one by
// one (intake.go).
type Batcher[Q, R any] struct {
	opts    Options
	intake  intake[Q, R]
	engines []engineWorkers
	idle    atomic.Int32 // workers asleep, waiting to be woken
	// inBatches is the number of requests in the batches running now (one
	// add per batch taken and one per batch done)
	inBatches atomic.Int64
	taking    sync.Mutex // held by the worker deciding on and taking a batch
	closed    atomic.Bool
	done      chan struct{} // closed by Close: the workers drain the intake and return
	wg        sync.WaitGroup

	offload *offload[Q, R] // NewWithCPU; nil: every request is batched
	direct  *direct[Q, R]  // NewDirect; nil: requests go to the workers
	// cpuPool computes the requests of Go on the CPU (goCPU, NewDirect),
	// and Close waits for its goroutines; cpuMu orders their start against
	// Close (read-locked to start one, locked by Close)
	cpuPool cpuPool
	cpuMu   sync.RWMutex
	answers sync.Pool // of chan outcome[R], the blocking callers' (Do)
	// lastTaken is the size of the last batch a worker took (0: none
	// yet): an idle worker holds what waits for company only while it is
	// below that (share)
	lastTaken atomic.Int64
}

// engineWorkers are the workers of one RunFunc (engine).
type engineWorkers struct {
	busy atomic.Int32 // its workers running a batch
	// running is the number of requests in its batches running now;
	// lastRun the time its last batch took (ns)
	running, lastRun atomic.Int64
	wake             chan struct{} // a token wakes one of its idle workers
	_                [64]byte      // apart from the next engine's counters
}

// item is one request, kept by value in the intake and the batches (no
// allocation per request), in as few bytes as it takes: a worker copies
// a batch's items out of the intake under the lock that every worker
// takes in turn. A blocking one (Do) is answered on its channel
// (answerChan), one submitted with Go by its Completer.
type item[Q, R any] struct {
	ctx      context.Context
	req      Q
	complete Completer[R]
	start    int64 // when it was submitted (stamp; the Meter's latency)
}

// answerChan is a blocking caller's channel (Do), buffered: a worker
// never blocks on an abandoned request.
type answerChan[R any] chan outcome[R]

func (c answerChan[R]) Complete(val R, err error) { c <- outcome[R]{val, err} }

// clockBase is the origin of stamp's readings.
var clockBase = time.Now()

// stamp is t in nanoseconds since clockBase, on the monotonic clock: an
// item's time in 8 bytes instead of a time.Time's 24.
func stamp(t time.Time) int64 { return int64(t.Sub(clockBase)) }

// stampNow is stamp(time.Now()) from the monotonic clock alone: time.Now
// reads the wall clock too, which a stamp does not keep.
func stampNow() int64 { return int64(time.Since(clockBase)) }

// unstamp is the time of a stamp.
func unstamp(ns int64) time.Time { return clockBase.Add(time.Duration(ns)) }

type outcome[R any] struct {
	val R
	err error
}

// Completer receives the outcome of a request submitted with Batcher.Go.
type Completer[R any] interface {
	// Complete is called once, on one of the Batcher's goroutines, with
	// the request's result or error. It must not block for long: the
	// requests that goroutine answers after it (the rest of its part of
	// the batch, Options.AnswerPiece) wait for it, and the batch's worker
	// waits for all of them.
	Complete(val R, err error)
}

// New starts a batcher with Options.Pipeline worker goroutines per RunFunc.
func New[Q, R any](opts Options, workers ...RunFunc[Q, R]) *Batcher[Q, R] {
	if len(workers) == 0 {
		panic("batch.New: no workers")
	}
	opts = opts.withDefaults()
	b := &Batcher[Q, R]{
		opts:    opts,
		engines: make([]engineWorkers, len(workers)),
		done:    make(chan struct{}),
	}
	b.intake.init()
	b.cpuPool.init()
	for e := range b.engines {
		b.engines[e].wake = make(chan struct{}, opts.Pipeline)
	}
	b.answers.New = func() any { return make(chan outcome[R], 1) }
	opts.Meter.addQueue(b.intake.waiting)
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
//
// While it waits, a context that can end (ctx.Done() not nil) is watched
// with a select beside the answer's channel. One such context shared by
// thousands of concurrent callers makes each of them lock its channel,
// which costs more than the device work. Pass context.Background(), or a
// context per request.
func (b *Batcher[Q, R]) Do(ctx context.Context, req Q) (R, error) {
	var zero R
	if ctx == nil {
		return zero, errNilContext
	}
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	start := stampNow() // the one clock reading of a request on the CPU path but those sampled
	if d := b.direct; d != nil {
		return d.do(b, req, start)
	}
	if o := b.offload; o != nil {
		switch o.take(start) {
		case toCPUQueue:
			if err := o.waitSlot(ctx); err != nil {
				b.opts.Meter.one(start)
				return zero, err
			}
			fallthrough
		case toCPU:
			if b.closed.Load() { // the batched path checks for Close itself; the CPU path here
				o.unreserve()
				b.opts.Meter.one(start)
				return zero, ErrClosed
			}
			return o.run(req, start, b.opts.Meter)
		}
	}
	return b.batched(ctx, req, start)
}

// batched queues one request for a batch and waits for its result. (The
// worker that answers it counts it in the Meter, or submit when it
// refuses it.)
//
// The wait selects on ctx.Done() beside the answer when ctx can end: a
// context shared by many callers then has every one of them lock its
// channel, which costs them more than the device work. A crypto.Signer's
// Sign has context.Background(), which never ends: no select.
func (b *Batcher[Q, R]) batched(ctx context.Context, req Q, start int64) (R, error) {
	var zero R
	done := b.answers.Get().(chan outcome[R])
	if err := b.submit(ctx, item[Q, R]{ctx: ctx, req: req, start: start, complete: answerChan[R](done)}); err != nil {
		b.answers.Put(done)
		return zero, err
	}
	if ctx.Done() == nil { // a context that never ends: no select
		o := <-done
		b.answers.Put(done) // its answer is taken: nothing else refers to it
		return o.val, o.err
	}
	select {
	case o := <-done:
		b.answers.Put(done)
		return o.val, o.err
	case <-ctx.Done():
		return zero, ctx.Err() // a worker may still answer on it: not reused
	}
}

// Go submits one request and returns without waiting for it:
// done.Complete receives its result, or its error (the context's, if it
// ends before the request's batch runs). Go itself fails, and done is not
// called, for a nil context or done, an ended context (also while Go
// waits for room in a full queue: Options.QueueSize) and a closed
// Batcher. Like Do, a request may be computed on the CPU path of
// NewWithCPU (on a goroutine of the CPU path, where the CPU would finish it
// before a batch: few requests in flight) or at once by NewDirect's.
func (b *Batcher[Q, R]) Go(ctx context.Context, req Q, done Completer[R]) error {
	if ctx == nil {
		return errNilContext
	}
	if done == nil {
		return errNilDone
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if d := b.direct; d != nil {
		return d.goOne(b, req, done)
	}
	o := b.offload
	if o == nil {
		return b.submit(ctx, item[Q, R]{ctx: ctx, req: req, complete: done, start: stampNow()})
	}
	now := stampNow() // one reading for the verdict and the request's stamp
	if v := o.take(now); v != toBatch {
		if !b.goCPU(ctx, o, v == toCPUQueue, req, done, now) {
			return ErrClosed
		}
		return nil
	}
	return b.submit(ctx, item[Q, R]{ctx: ctx, req: req, complete: done, start: now})
}

// goCPU computes req on the CPU path on a goroutine of cpuPool, in the
// slot that take reserved or, where queue, once one is free (or ctx
// ends: its error completes done), and completes done with it; false
// after Close (the slot given back). Close waits for the pool's
// goroutines, and so for the request.
func (b *Batcher[Q, R]) goCPU(ctx context.Context, o *offload[Q, R], queue bool, req Q, done Completer[R], start int64) bool {
	b.cpuMu.RLock()
	defer b.cpuMu.RUnlock()
	if b.closed.Load() {
		if !queue {
			o.unreserve()
		}
		return false
	}
	b.cpuPool.run(func() {
		if queue {
			if err := o.waitSlot(ctx); err != nil {
				b.opts.Meter.one(start)
				var zero R
				done.Complete(zero, err)
				return
			}
		}
		val, err := o.run(req, start, b.opts.Meter)
		done.Complete(val, err)
	})
	return true
}

// GoMany is Go for several requests at once: done[i] receives the
// outcome of reqs[i]. They enter the intake together, with one clock
// reading, one check of the queue's limit (Options.QueueSize) and one
// lock, which costs a caller that holds a frame of requests (a gateway, a
// queue consumer) a part of what as many calls of Go would. It fails, and
// submits none of them, where Go would (a nil done among them included),
// and when the lengths differ.
func (b *Batcher[Q, R]) GoMany(ctx context.Context, reqs []Q, done []Completer[R]) error {
	if ctx == nil {
		return errNilContext
	}
	if len(done) != len(reqs) {
		return fmt.Errorf("batch: GoMany with %d requests and %d completions", len(reqs), len(done))
	}
	for _, d := range done {
		if d == nil {
			return errNilDone
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(reqs) == 0 {
		return nil
	}
	if d := b.direct; d != nil {
		return d.goMany(b, reqs, done)
	}
	start := stampNow()
	s := b.intake.pick()
	err := b.waitRoom(ctx, s, start)
	var n int64
	if err == nil {
		n, err = s.putMany(ctx, reqs, done, start)
	}
	if err != nil {
		for range reqs {
			b.opts.Meter.one(start)
		}
		return err
	}
	b.wakeIfIdle(n-int64(len(reqs)) == 0)
	return nil
}

// submit puts it into the intake, waiting while the queue is full; a
// request it refuses is counted in the Meter.
func (b *Batcher[Q, R]) submit(ctx context.Context, it item[Q, R]) error {
	err := b.put(ctx, it)
	if err != nil {
		b.opts.Meter.one(it.start)
	}
	return err
}

func (b *Batcher[Q, R]) put(ctx context.Context, it item[Q, R]) error {
	s := b.intake.pick()
	if err := b.waitRoom(ctx, s, it.start); err != nil {
		return err
	}
	n, err := s.put(it)
	if err != nil {
		return err
	}
	b.wakeIfIdle(n == 1)
	return nil
}

// waitRoom waits while the queue is full for a request to shard s
// (Options.QueueSize) that arrived at now (a stamp), until ctx ends or
// the Batcher closes: in s's queue of waiting callers, which a take from
// s wakes as many of as it took requests, and Close all of. (The wait is
// not a select on the Batcher's done channel: one channel that every
// waiting caller selects on has each of them lock it, as a shared context
// does; see Do.) The first look takes the intake's total from its recent
// sum (roughlyFull); the queueing, under s's lock, sums the shards.
func (b *Batcher[Q, R]) waitRoom(ctx context.Context, s *intakeShard[Q, R], now int64) error {
	limit := int64(b.opts.QueueSize)
	if !b.intake.roughlyFull(s, limit, now) {
		return nil
	}
	w := b.intake.waiter()
	defer b.intake.release(w)
	for again := false; ; again = true {
		// woken again and still full: its turn was taken, it goes first
		queued, err := s.enqueue(w, again, &b.intake, limit)
		if !queued {
			return err
		}
		if ctx.Done() == nil { // a context that never ends: no select
			<-w.ready
			continue
		}
		select {
		case <-w.ready:
		case <-ctx.Done():
			s.leave(w)
			return ctx.Err()
		}
	}
}

// wakeIfIdle follows a put: for the first requests of a shard (first), or
// a full batch, an idle worker decides whether a batch goes now. (A
// worker counts itself idle before it looks at the shards a last time and
// sleeps, and this looks at idle after the put: one of the two sees the
// other. Under load no worker sleeps, and the shards are not summed. The
// sum is exact: a put that fills a batch after a recent sum must wake
// the worker, which may sleep until MaxDelay.)
func (b *Batcher[Q, R]) wakeIfIdle(first bool) {
	if b.idle.Load() > 0 && (first || b.intake.waiting() >= int64(b.opts.MaxBatch)) {
		b.wakeOne()
	}
}

// Close stops accepting requests, finishes the queued ones and waits for
// the workers to return.
func (b *Batcher[Q, R]) Close() {
	b.cpuMu.Lock()
	first := !b.closed.Swap(true)
	b.cpuMu.Unlock()
	if first {
		b.intake.close()
		if b.done != nil {
			close(b.done)
		}
		b.cpuPool.close()
	}
	b.wg.Wait()
	b.cpuPool.wait()
}

// wakeOne wakes an idle worker of the engine running the fewest batches
// (one per device, say: an idle device gets the work first).
func (b *Batcher[Q, R]) wakeOne() {
	best := 0
	for e := 1; e < len(b.engines); e++ {
		if b.engines[e].busy.Load() < b.engines[best].busy.Load() {
			best = e
		}
	}
	select {
	case b.engines[best].wake <- struct{}{}:
	default: // a wake-up is pending there already
	}
}

// share is how many of the waiting requests the worker of engine e takes
// now (0: none yet), given how many wait and since when, and since when
// the worker is free: all of them (up to MaxBatch) while another worker
// is busy or a batch is full or due; else nothing, and wait says how long
// until the oldest is due. While several engines are idle each takes an
// equal share, and an engine running more batches than another one that
// has a free worker leaves the work to it.
//
// A worker whose engine is running batches larger than what waits holds
// it for a while (matchRunning): such a batch would only wait behind them
// on the engine's device. Where several engines share the requests, a
// worker whose engine is running a batch takes no more than a fair share
// of them (fairShare).
func (b *Batcher[Q, R]) share(e int, waiting int64, oldest, free time.Time) (n int, wait time.Duration) {
	busy, idle, anyBusy, fewer := b.engines[e].busy.Load(), 0, false, false
	for k := range b.engines {
		kb := b.engines[k].busy.Load()
		if kb == 0 {
			idle++
		}
		anyBusy = anyBusy || kb > 0
		fewer = fewer || kb < busy
	}
	if fewer && !b.closed.Load() {
		return 0, -1 // an engine with less work takes it
	}
	n = int(min(waiting, int64(b.opts.MaxBatch)))
	if b.closed.Load() {
		return n, 0
	}
	if last := b.lastTaken.Load(); !anyBusy && n < b.opts.MaxBatch && (last == 0 || last > int64(n)) {
		if wait = b.opts.MaxDelay - time.Since(oldest); wait > 0 {
			return 0, wait
		}
	}
	if idle > 1 && busy == 0 {
		n = min(n, int(waiting+int64(idle)-1)/idle)
	}
	if len(b.engines) > 1 && busy > 0 {
		n = min(n, b.fairShare(waiting))
	}
	if wait := b.matchRunning(e, busy, n, free); wait > 0 {
		return 0, wait
	}
	return n, 0
}

// matchRunning is how much longer the worker of engine e, free since
// free, holds the n requests it could take while the engine runs busy
// batches (0: it takes them now). A batch smaller than the mean of those
// running waits in the intake until it is as large, for at most MaxDelay
// and half the engine's last batch time since the worker was freed (so
// that it is on its way before the device runs dry), then goes as it is.
// Callers that each wait for their answer before sending the next request
// (blocking callers: a closed loop) otherwise form batches of uneven
// size, small ones taken the moment a worker is free while the rest of
// the callers are still being answered; a device whose batch takes about
// as long at half the size (RSA's: half a batch does not fill the
// device) then loses throughput (BenchmarkSimulatedDevice).
func (b *Batcher[Q, R]) matchRunning(e int, busy int32, n int, free time.Time) time.Duration {
	w := &b.engines[e]
	if busy <= 0 || n >= b.opts.MaxBatch || int64(n)*int64(busy) >= w.running.Load() {
		return 0
	}
	hold := min(b.opts.MaxDelay, time.Duration(w.lastRun.Load())/2) - time.Since(free)
	if hold <= 0 {
		return 0
	}
	return min(hold, matchPoll) // arrivals do not wake a worker with requests waiting: it looks again
}

// fairShare bounds a batch where several engines share the requests and
// the worker's engine is running one already (share): the worker takes at
// most the requests in the system (waiting and in running batches) over
// two batches per engine, and no less than MaxBatch over the same (a
// light load goes as it is). Two batches in flight keep a device busy,
// one running while the other is packed or answered; a deeper Pipeline
// is there to hide host work, not to split the load further. An idle
// engine takes what it can: its device waits. Callers that each wait for
// their answer before sending again (a closed loop) otherwise leave the
// engines uneven batches: one worker takes most of what waits while
// another engine's takes the rest, and the engines' pipelines are not both
// full. With the share, 16,384 such callers over two engines run even
// batches of 4,096, as a MaxBatch of 4,096 set by hand would; under a
// heavier load the share exceeds MaxBatch and changes nothing. One
// engine is left to matchRunning, whose batches even out the same way.
func (b *Batcher[Q, R]) fairShare(waiting int64) int {
	batches := int64(2 * len(b.engines))
	total := waiting + b.inBatches.Load()
	return int(max((total+batches-1)/batches, int64(b.opts.MaxBatch)/batches, 1))
}

// matchPoll is how often a worker holding requests (matchRunning) looks
// whether enough have arrived.
const matchPoll = 100 * time.Microsecond

// work is one worker of engine e: it waits for requests, takes a batch of
// them from the intake when share says so, and runs it.
func (b *Batcher[Q, R]) work(e int, run RunFunc[Q, R]) {
	defer b.wg.Done()
	w := &b.engines[e]
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var items []item[Q, R] // the batch, reused
	var reqs []Q
	var woken []*roomWaiter // callers blocked on a full queue, reused
	free := time.Now()      // since when the worker has had no batch
	for {
		// one worker at a time decides and takes: two that saw the same
		// requests would split them
		b.taking.Lock()
		// read before the intake's counts: once Close has closed the
		// intake (and then done), no request arrives after them
		drained := isClosed(b.done)
		waiting := b.intake.waiting()
		var n int
		wait := time.Duration(-1) // -1: until woken
		if waiting > 0 {
			n, wait = b.share(e, waiting, b.intake.oldest(), free)
		}
		if n > 0 {
			w.busy.Add(1)
			items, woken = b.intake.take(items[:0], n, woken)
			w.running.Add(int64(len(items)))
			b.lastTaken.Store(int64(len(items)))
		}
		b.taking.Unlock()
		if n == 0 {
			if drained && waiting == 0 {
				// closed, and the intake with it: no request comes any more.
				// (b.closed alone is set before the intake refuses puts:
				// one that lands between them would wait for ever.)
				return
			}
			if wait < 0 && waiting > 0 {
				b.wakeOne() // an engine with less work takes it
			}
			b.idle.Add(1)
			if wait < 0 && waiting == 0 && b.intake.waiting() > 0 {
				b.idle.Add(-1) // arrived meanwhile (see put)
				continue
			}
			if wait > 0 {
				timer.Reset(wait)
			}
			select {
			case <-w.wake:
			case <-timer.C:
			case <-b.done:
			}
			b.idle.Add(-1)
			if wait > 0 {
				stopTimer(timer)
			}
			continue
		}
		left := b.intake.waiting()
		b.intake.noteWaiting(left, stampNow())
		if left > 0 {
			b.wakeOne() // the rest: another worker (or engine) may take it at once
		}
		// the callers blocked on a full queue that the batch made room
		// for (take dequeued them), woken out of the taking lock
		woken = wake(woken)
		b.inBatches.Add(int64(len(items)))
		if len(items) > 0 {
			start := time.Now()
			reqs = b.runBatch(run, items, reqs)
			w.lastRun.Store(int64(time.Since(start)))
		}
		b.inBatches.Add(-int64(len(items)))
		w.running.Add(-int64(len(items)))
		w.busy.Add(-1)
		free = time.Now()
		clear(items) // the items may go back to the pool: no references here
	}
}

// isClosed reports whether ch is closed (a channel that is only ever
// closed, never sent on).
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func stopTimer(t *time.Timer) {
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
}

// runBatch runs one batch and answers each of its requests; those whose
// context has ended are dropped before it runs. reqs is the worker's
// buffer for the requests, returned for the next batch.
func (b *Batcher[Q, R]) runBatch(run RunFunc[Q, R], items []item[Q, R], reqs []Q) []Q {
	live := items[:0]
	var lat latency.Histogram
	var dropped []item[Q, R]
	now := stampNow()
	for _, it := range items {
		if it.ctx.Err() != nil {
			lat.Add(time.Duration(now - it.start))
			dropped = append(dropped, it)
			continue
		}
		live = append(live, it)
	}
	b.opts.Meter.answered(len(dropped), &lat) // before the callers learn of it
	var zero R
	for _, it := range dropped {
		it.complete.Complete(zero, it.ctx.Err())
	}
	if len(live) == 0 {
		return reqs
	}
	reqs = reqs[:0]
	var since int64 // sum of the requests' stamps after the first's, for their mean wait
	for _, it := range live {
		reqs = append(reqs, it.req)
		since += it.start - live[0].start
	}
	vals, err := safeRun(run, reqs)
	res := results(vals, err, len(live))
	if o := b.offload; o != nil && res.err == nil {
		// the batched path's wait, as a request of it sees it: from its
		// submission to its answer, about now
		o.batchedWait.observe(time.Duration(stampNow() - live[0].start - since/int64(len(live))))
	}
	b.answer(live, res)
	clear(reqs) // the requests may hold keys: no reference kept
	return reqs
}

// answer gives each of live its outcome in res: in pieces of
// Options.AnswerPiece, each answered by a goroutine of its own, or with
// Parallel.
func (b *Batcher[Q, R]) answer(live []item[Q, R], res batchResults[R]) {
	piece := b.opts.AnswerPiece
	if piece <= 0 {
		Parallel(len(live), 1024, func(lo, hi int) { b.answerRange(live, res, lo, hi) })
		return
	}
	if b.opts.AnswerAlongside {
		b.answerAlongside(live, res, piece)
		return
	}
	var wg sync.WaitGroup
	for lo := 0; lo < len(live); lo += piece {
		hi := min(lo+piece, len(live))
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.answerRange(live, res, lo, hi)
		}()
	}
	wg.Wait()
}

// answerAlongside answers live in pieces of piece, taken in turn by the
// calling worker and by goroutines started for all but one of them
// (Options.AnswerAlongside). It returns once every piece is answered; a
// goroutine that comes after the last piece was taken finds none and
// returns, touching neither live nor res.
func (b *Batcher[Q, R]) answerAlongside(live []item[Q, R], res batchResults[R], piece int) {
	pieces := (len(live) + piece - 1) / piece
	var next atomic.Int32         // the next piece to take
	var unanswered sync.WaitGroup // the pieces not yet answered
	unanswered.Add(pieces)
	take := func() {
		for {
			k := int(next.Add(1)) - 1
			if k >= pieces {
				return
			}
			lo := k * piece
			b.answerRange(live, res, lo, min(lo+piece, len(live)))
			unanswered.Done()
		}
	}
	for range pieces - 1 {
		go take()
	}
	take()
	unanswered.Wait()
}

// answerRange answers live[lo:hi], counted in the Meter first.
func (b *Batcher[Q, R]) answerRange(live []item[Q, R], res batchResults[R], lo, hi int) {
	var lat latency.Histogram
	now := stampNow()
	for i := lo; i < hi; i++ {
		lat.Add(time.Duration(now - live[i].start))
	}
	b.opts.Meter.answered(hi-lo, &lat) // before the callers learn of it
	for i := lo; i < hi; i++ {
		o := res.of(i)
		live[i].complete.Complete(o.val, o.err)
	}
}

// batchResults are a RunFunc's answer for n requests: its results, and
// its error as a whole (err) or per request (per).
type batchResults[R any] struct {
	vals []R
	err  error
	per  *Error
}

// results reads a RunFunc's answer for n requests.
func results[R any](vals []R, err error, n int) batchResults[R] {
	var per *Error
	if errors.As(err, &per) && len(per.Errs) != n {
		per = nil
	}
	switch {
	case err != nil && per == nil:
	case len(vals) != n:
		err = fmt.Errorf("batch: worker returned %d results for %d requests", len(vals), n)
	default:
		err = nil
	}
	return batchResults[R]{vals: vals, err: err, per: per}
}

// of is the outcome of request i.
func (r batchResults[R]) of(i int) outcome[R] {
	switch {
	case r.err != nil:
		return outcome[R]{err: r.err}
	case r.per != nil && r.per.Errs[i] != nil:
		return outcome[R]{err: r.per.Errs[i]}
	}
	return outcome[R]{val: r.vals[i]}
}

func safeRun[Q, R any](run RunFunc[Q, R], reqs []Q) (vals []R, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("batch: worker panicked: %v", p)
		}
	}()
	return run(reqs)
}
