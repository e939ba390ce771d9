package batch

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// intake is where a Batcher's requests wait for a batch: shards of
// requests, each behind its own lock and with its own count, so that
// callers on many cores rarely meet (no lock, counter or cache line that
// every request writes); a worker that takes a batch empties shard after
// shard. The totals that the workers and the back-pressure need are sums
// over the shards.
type intake[Q, R any] struct {
	shards []intakeShard[Q, R]
	// next is the shard where the next take starts: where the last one
	// stopped (take)
	next atomic.Uint32
	// waiters is a pool of *roomWaiter: the callers blocked on a full
	// queue wait in the shards' queues
	waiters sync.Pool
	hints   sync.Pool // of *shardHint
	_       [64]byte  // the recent sum apart from next, which every take writes
	// sum is the number of requests in the intake at sumAt (a stamp): the
	// last sum of the shards that a put or a worker made (recentWaiting)
	sum, sumAt atomic.Int64
}

// sumFresh is how long a sum of the shards stands for the intake's total
// in the checks of every put (recentWaiting): at millions of requests a
// second it moves by a few hundred in that time, against limits of tens
// of thousands, while a sum for each put reads every shard's line, most
// of them last written by other cores.
const sumFresh = int64(20 * time.Microsecond)

// roughLimit is the least queue limit (Options.QueueSize) that a recent
// sum checks: callers that all start between two sums read the same one
// and all get in, a few hundred at most in sumFresh on a few dozen cores,
// which a limit of thousands absorbs and a limit of a few dozen does not
// (those sum the shards, as full does).
const roughLimit = 4096

type intakeShard[Q, R any] struct {
	mu     sync.Mutex
	items  []item[Q, R]
	closed bool
	count  atomic.Int64 // len(items), for readers without the lock
	oldest atomic.Int64 // when the shard's oldest request arrived (stamp)
	// head and tail of the callers waiting for room in the shard, first
	// come first served (under mu). A take from the shard wakes as many
	// as it took requests; each woken caller looks again whether there
	// is room. Waking every waiting caller at each batch instead had all
	// of them, most of whom only found the queue full again, contend for
	// one lock, the taking worker among them while the other workers
	// waited for it to take: with blocking callers many times QueueSize,
	// the device idled between batches (BenchmarkSimulatedCallers).
	head, tail *roomWaiter
	_          [64]byte // apart from the next shard
}

func (in *intake[Q, R]) init() {
	in.shards = make([]intakeShard[Q, R], max(4, 2*runtime.GOMAXPROCS(0)))
}

// pick returns a shard for a new request: the one that the pool of
// hints gives the caller's core (a sync.Pool keeps a value per P, until a
// collection empties it), at first one at random. Callers on one core
// then meet on its shard's lock only, and a batch, taken shard after
// shard, holds runs of requests from the same callers, whose completions
// (Server.Go's Done channels) its answering goroutines then send to one
// after another instead of all contending for every one, which answers
// asynchronous callers faster than a shard at random for each request.
func (in *intake[Q, R]) pick() *intakeShard[Q, R] {
	h, ok := in.hints.Get().(*shardHint)
	if !ok {
		h = &shardHint{in.randomShard()}
	}
	s := &in.shards[h.shard]
	in.hints.Put(h)
	return s
}

// shardHint is a core's shard (see pick).
type shardHint struct{ shard uint32 }

// randomShard is the index of a shard at random.
func (in *intake[Q, R]) randomShard() uint32 {
	return rand.Uint32() % uint32(len(in.shards))
}

// put adds it to s and returns how many wait in s now (ErrClosed after
// close).
func (s *intakeShard[Q, R]) put(it item[Q, R]) (int64, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return 0, ErrClosed
	}
	s.items = append(s.items, it)
	n := int64(len(s.items))
	if n == 1 {
		s.oldest.Store(it.start)
	}
	s.count.Store(n)
	s.mu.Unlock()
	return n, nil
}

// putMany adds the requests reqs, completed by done, that arrived at
// start to s, and returns how many wait in s now (ErrClosed after close).
func (s *intakeShard[Q, R]) putMany(ctx context.Context, reqs []Q, done []Completer[R], at int64) (int64, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return 0, ErrClosed
	}
	if len(s.items) == 0 {
		s.oldest.Store(at)
	}
	for i, req := range reqs {
		s.items = append(s.items, item[Q, R]{ctx: ctx, req: req, complete: done[i], start: at})
	}
	n := int64(len(s.items))
	s.count.Store(n)
	s.mu.Unlock()
	return n, nil
}

// waiting is the number of requests in the intake.
func (in *intake[Q, R]) waiting() int64 {
	var n int64
	for i := range in.shards {
		n += in.shards[i].count.Load()
	}
	return n
}

// recentWaiting is the number of requests in the intake at most
// sumFresh before now (a stamp): the last sum, or a new one where it is
// older.
func (in *intake[Q, R]) recentWaiting(now int64) int64 {
	if now-in.sumAt.Load() < sumFresh {
		return in.sum.Load()
	}
	n := in.waiting()
	in.noteWaiting(n, now)
	return n
}

// noteWaiting records n, a sum of the shards made at now, for
// recentWaiting.
func (in *intake[Q, R]) noteWaiting(n, now int64) {
	in.sum.Store(n)
	in.sumAt.Store(now)
}

// estimate is about the number of requests in the intake, from one
// shard picked at random, at the cost of one read: under load from many
// cores their shards hold about equal shares. (Where few cores submit it
// reads low or high; offload takes it with the workers' own count, which
// bounds it below.)
func (in *intake[Q, R]) estimate() int64 {
	return in.shards[in.randomShard()].count.Load() * int64(len(in.shards))
}

// oldest is about when the oldest waiting request arrived (zero when
// none waits).
func (in *intake[Q, R]) oldest() time.Time {
	var t int64
	found := false
	for i := range in.shards {
		s := &in.shards[i]
		if s.count.Load() > 0 {
			if o := s.oldest.Load(); !found || o < t {
				t, found = o, true
			}
		}
	}
	if !found {
		return time.Time{}
	}
	return unstamp(t)
}

// full reports whether a new request for s would pass limit: when s
// holds its share of the limit and the intake the limit. (Summing the
// shards for each request would read every shard's count; a shard below
// its share may still take requests past the limit, up to about twice
// it.)
func (in *intake[Q, R]) full(s *intakeShard[Q, R], limit int64) bool {
	return in.atShare(s, limit) && in.waiting() >= limit
}

// roughlyFull is full with the intake's total from recentWaiting at now
// (for a limit of at least roughLimit): the first look of every put, the
// exact one (full) coming before a caller waits.
func (in *intake[Q, R]) roughlyFull(s *intakeShard[Q, R], limit, now int64) bool {
	if limit < roughLimit {
		return in.full(s, limit)
	}
	return in.atShare(s, limit) && in.recentWaiting(now) >= limit
}

// atShare reports whether s holds its share of limit.
func (in *intake[Q, R]) atShare(s *intakeShard[Q, R], limit int64) bool {
	return s.count.Load() >= in.share(limit)
}

// share is a shard's share of limit, rounded up.
func (in *intake[Q, R]) share(limit int64) int64 {
	return (limit + int64(len(in.shards)) - 1) / int64(len(in.shards))
}

// take appends up to n waiting requests to items and returns it, and
// appends to woken as many callers blocked on a full queue as it took
// requests from their shards (the caller wakes them, out of its locks).
//
// It takes shard after shard, each shard's requests in the order they
// came, starting where the last take stopped: at the shard it left
// requests in, else the one after the last it emptied. Every shard's
// oldest requests then go within a turn of the ring, whatever the load.
// (Starting each take one shard after the last one's start instead took
// the requests that had just arrived in the first shards while older
// ones waited in the shards that the takes reached last: a long tail of
// waits under blocking callers.)
func (in *intake[Q, R]) take(items []item[Q, R], n int, woken []*roomWaiter) ([]item[Q, R], []*roomWaiter) {
	start := int(in.next.Load())
	next := start
	for k := 0; k < len(in.shards) && n > 0; k++ {
		i := (start + k) % len(in.shards)
		s := &in.shards[i]
		if s.count.Load() == 0 {
			continue
		}
		s.mu.Lock()
		m := min(n, len(s.items))
		items = append(items, s.items[:m]...)
		rest := copy(s.items, s.items[m:])
		clear(s.items[rest:])
		s.items = s.items[:rest]
		if rest > 0 {
			s.oldest.Store(s.items[0].start)
		}
		s.count.Store(int64(rest))
		woken = s.dequeue(m, woken)
		s.mu.Unlock()
		n -= m
		next = i // left requests in it
		if rest == 0 {
			next = (i + 1) % len(in.shards)
		}
	}
	in.next.Store(uint32(next))
	return items, woken
}

// close refuses further requests and wakes the callers blocked on a full
// queue (they find it closed).
func (in *intake[Q, R]) close() {
	var woken []*roomWaiter
	for i := range in.shards {
		s := &in.shards[i]
		s.mu.Lock()
		s.closed = true
		woken = s.dequeue(-1, woken)
		s.mu.Unlock()
	}
	wake(woken)
}

// roomWaiter is a caller waiting for room in a shard of a full queue.
type roomWaiter struct {
	ready      chan struct{} // buffered: its token, sent once it is dequeued
	prev, next *roomWaiter
	queued     bool
}

// waiter returns a roomWaiter for one caller's wait, to be given back with
// release once it no longer waits (its token, if one was sent, taken).
func (in *intake[Q, R]) waiter() *roomWaiter {
	if w, ok := in.waiters.Get().(*roomWaiter); ok {
		return w
	}
	return &roomWaiter{ready: make(chan struct{}, 1)}
}

func (in *intake[Q, R]) release(w *roomWaiter) { in.waiters.Put(w) }

// enqueue queues w in s, at the tail, or at the head for a caller that
// was woken and found no room after all (its turn was taken by a caller
// that did not wait), unless there is room for a request to s now (false)
// or s is closed (ErrClosed). It looks under s's lock, which take holds
// as it frees room in s and dequeues s's waiters: one of the two sees the
// other.
func (s *intakeShard[Q, R]) enqueue(w *roomWaiter, head bool, in *intake[Q, R], limit int64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, ErrClosed
	}
	if !in.full(s, limit) {
		return false, nil
	}
	w.queued = true
	switch {
	case s.head == nil:
		s.head, s.tail = w, w
	case head:
		w.next, s.head.prev, s.head = s.head, w, w
	default:
		w.prev, s.tail.next, s.tail = s.tail, w, w
	}
	return true, nil
}

// unlink takes w out of s's queue (under mu).
func (s *intakeShard[Q, R]) unlink(w *roomWaiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		s.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		s.tail = w.prev
	}
	w.prev, w.next, w.queued = nil, nil, false
}

// dequeue appends up to n of s's waiters (n < 0: all), the first queued,
// to woken and returns it (under mu); wake sends them their tokens.
func (s *intakeShard[Q, R]) dequeue(n int, woken []*roomWaiter) []*roomWaiter {
	for ; n != 0 && s.head != nil; n-- {
		w := s.head
		s.unlink(w)
		woken = append(woken, w)
	}
	return woken
}

// leave ends w's wait in s before it took its token (its caller's
// context ended): it takes w out of the queue, or, where take dequeued it
// meanwhile, takes its token and gives its turn to the next waiter.
func (s *intakeShard[Q, R]) leave(w *roomWaiter) {
	s.mu.Lock()
	if w.queued {
		s.unlink(w)
		s.mu.Unlock()
		return
	}
	var next []*roomWaiter
	if s.head != nil {
		next = s.dequeue(1, make([]*roomWaiter, 0, 1))
	}
	s.mu.Unlock()
	<-w.ready // sent, or about to be
	wake(next)
}

// wake sends the dequeued waiters their tokens and returns woken emptied
// (for reuse). Each send readies a goroutine: many are sent from all
// cores.
func wake(woken []*roomWaiter) []*roomWaiter {
	Parallel(len(woken), 1024, func(lo, hi int) {
		for _, w := range woken[lo:hi] {
			w.ready <- struct{}{}
		}
	})
	clear(woken) // the waiters go back to the pool once woken
	return woken[:0]
}
