package batch

import (
	"errors"
	"fmt"
)

// NewDirect is a Batcher that batches nothing: it computes each request
// at once with cpu (a RunFunc given the requests to compute), Do in the
// caller's goroutine and Go on a goroutine of the CPU path (cpuPool), as a caller of
// crypto/* would. For a Server whose engines all compute on the CPU: a
// batch there only adds its wait to the same work on the same cores.
// Options.Meter counts the requests and their latencies (their operations
// are the counts of the engine that cpu computes them on); the other
// Options do not apply. Close makes later requests fail with ErrClosed
// and waits for those of Go still computing.
func NewDirect[Q, R any](opts Options, cpu RunFunc[Q, R]) *Batcher[Q, R] {
	if cpu == nil {
		panic("batch.NewDirect: no function")
	}
	return newDirect(opts, &direct[Q, R]{cpu: cpu, one: cpu.one})
}

// NewDirectCPU is NewDirect for crypto/* called directly for each request
// (cpu), which no engine counts: the Meter counts each request as an
// operation on the CPU too.
func NewDirectCPU[Q, R any](opts Options, cpu OneFunc[Q, R]) *Batcher[Q, R] {
	if cpu == nil {
		panic("batch.NewDirectCPU: no function")
	}
	return newDirect(opts, &direct[Q, R]{cpu: cpu.batched(), one: cpu.safe, counts: true})
}

// Direct reports whether b batches nothing (NewDirect, NewDirectCPU):
// every request is computed at once, so a caller that can compute its
// request itself may do so through DoInline.
func (b *Batcher[Q, R]) Direct() bool { return b.direct != nil }

// DoInline is Do for a Batcher that batches nothing (Direct), with the
// request computed by f in the caller's goroutine: counted in the Meter
// as Do would count it (as an operation on the CPU too, for
// NewDirectCPU), ErrClosed after Close, a panic in f an error. It spares
// a caller that has crypto/* at hand the request value Do takes. On
// another Batcher it computes nothing and returns an error.
func (b *Batcher[Q, R]) DoInline(f func() (R, error)) (val R, err error) {
	d := b.direct
	if d == nil {
		return val, errors.New("batch: DoInline on a Batcher that batches")
	}
	shard, timed := b.opts.Meter.inlineShard()
	var start int64
	if timed {
		start = stampNow() // the monotonic clock alone: time.Now reads the wall clock too
	}
	if b.closed.Load() {
		shard.inline(false, timed, start)
		return val, ErrClosed
	}
	defer func() {
		if p := recover(); p != nil {
			var zero R
			val, err = zero, fmt.Errorf("batch: CPU path panicked: %v", p)
		}
		shard.inline(d.counts, timed, start)
	}()
	return f()
}

// inlineTimed is one over the share of the requests of DoInline and of
// the CPU path that are timed (Stats.LatencyP50): a timed request reads
// the clock twice, which on a virtual machine's cores can cost as much as
// an AES-GCM seal of a record (about a microsecond a reading with every
// core reading it), and a few hundred samples a second are enough for a
// median.
const inlineTimed = 64

// newDirect is the Batcher of d.
func newDirect[Q, R any](opts Options, d *direct[Q, R]) *Batcher[Q, R] {
	b := &Batcher[Q, R]{opts: opts.withDefaults(), direct: d}
	b.intake.init() // empty, for the intake's counts (waiting, QueueDepth)
	b.cpuPool.init()
	return b
}

// direct is NewDirect's path: every request computed at once on the CPU.
type direct[Q, R any] struct {
	cpu    RunFunc[Q, R]          // requests together (GoMany)
	one    func(req Q) (R, error) // one request (Do, Go)
	counts bool                   // NewDirectCPU: the Meter counts the operations too
}

// done counts a request that started at start in the Meter.
func (d *direct[Q, R]) done(b *Batcher[Q, R], start int64) {
	if d.counts {
		b.opts.Meter.cpuDone(start)
	} else {
		b.opts.Meter.one(start)
	}
}

// run computes reqs and gives each its outcome.
func (d *direct[Q, R]) run(reqs []Q) batchResults[R] {
	vals, err := safeRun(d.cpu, reqs)
	return results(vals, err, len(reqs))
}

// do computes one request of Do in the caller's goroutine.
func (d *direct[Q, R]) do(b *Batcher[Q, R], req Q, start int64) (R, error) {
	if b.closed.Load() {
		var zero R
		b.opts.Meter.one(start)
		return zero, ErrClosed
	}
	val, err := d.one(req)
	d.done(b, start)
	return val, err
}

// goOne computes one request of Go on a goroutine of the CPU path.
func (d *direct[Q, R]) goOne(b *Batcher[Q, R], req Q, done Completer[R]) error {
	return d.spawn(b, func() {
		start := stampNow()
		val, err := d.one(req)
		d.done(b, start)
		done.Complete(val, err)
	})
}

// goMany computes the requests of GoMany together, in a goroutine of
// their own (the CPU engine spreads them over the cores).
func (d *direct[Q, R]) goMany(b *Batcher[Q, R], reqs []Q, done []Completer[R]) error {
	reqs = append([]Q(nil), reqs...) // the caller may reuse its slice once GoMany returns
	done = append([]Completer[R](nil), done...)
	return d.spawn(b, func() {
		start := stampNow()
		res := d.run(reqs)
		for range reqs {
			d.done(b, start)
		}
		clear(reqs) // the requests may hold keys: no reference kept
		for i := range done {
			o := res.of(i)
			done[i].Complete(o.val, o.err)
		}
	})
}

// spawn starts f on a goroutine of b's CPU pool (which Close waits for),
// unless b is closed.
func (d *direct[Q, R]) spawn(b *Batcher[Q, R], f func()) error {
	b.cpuMu.RLock()
	defer b.cpuMu.RUnlock()
	if b.closed.Load() {
		return ErrClosed
	}
	b.cpuPool.run(f)
	return nil
}
