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
	next   atomic.Uint32 // where the next take starts, round robin
	room   roomSignal    // callers blocked on a full queue wait here
}

type intakeShard[Q, R any] struct {
	mu     sync.Mutex
	items  []item[Q, R]
	closed bool
	count  atomic.Int64 // len(items), for readers without the lock
	oldest atomic.Int64 // when the shard's oldest request arrived, Unix ns
	_      [64]byte     // apart from the next shard
}

func (in *intake[Q, R]) init() {
	in.shards = make([]intakeShard[Q, R], max(4, 2*runtime.GOMAXPROCS(0)))
}

// pick returns a shard for a new request: one at random.
func (in *intake[Q, R]) pick() *intakeShard[Q, R] {
	return &in.shards[rand.Uint32()%uint32(len(in.shards))]
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
		s.oldest.Store(it.start.UnixNano())
	}
	s.count.Store(n)
	s.mu.Unlock()
	return n, nil
}

// putMany adds the requests reqs, completed by done, that arrived at
// start to s, and returns how many wait in s now (ErrClosed after close).
func (s *intakeShard[Q, R]) putMany(ctx context.Context, reqs []Q, done []Completer[R], start time.Time) (int64, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return 0, ErrClosed
	}
	if len(s.items) == 0 {
		s.oldest.Store(start.UnixNano())
	}
	for i, req := range reqs {
		s.items = append(s.items, item[Q, R]{ctx: ctx, req: req, complete: done[i], start: start})
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

// estimate is about the number of requests in the intake, from one
// shard picked at random (requests go to shards at random: under load
// they hold about equal shares), at the cost of one read.
func (in *intake[Q, R]) estimate() int64 {
	return in.pick().count.Load() * int64(len(in.shards))
}

// oldest is about when the oldest waiting request arrived (zero when
// none waits).
func (in *intake[Q, R]) oldest() time.Time {
	var t int64
	for i := range in.shards {
		s := &in.shards[i]
		if s.count.Load() > 0 {
			if o := s.oldest.Load(); t == 0 || o < t {
				t = o
			}
		}
	}
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(0, t)
}

// full reports whether a new request for s would pass limit: when s
// holds its share of the limit and the intake the limit. (Summing the
// shards for each request would read every shard's count; a shard below
// its share may still take requests past the limit, up to about twice
// it.)
func (in *intake[Q, R]) full(s *intakeShard[Q, R], limit int64) bool {
	share := (limit + int64(len(in.shards)) - 1) / int64(len(in.shards))
	return s.count.Load() >= share && in.waiting() >= limit
}

// take appends up to n waiting requests to items and returns it, and
// wakes the callers blocked on a full queue.
func (in *intake[Q, R]) take(items []item[Q, R], n int) []item[Q, R] {
	start := int(in.next.Add(1))
	for k := 0; k < len(in.shards) && n > 0; k++ {
		s := &in.shards[(start+k)%len(in.shards)]
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
			s.oldest.Store(s.items[0].start.UnixNano())
		}
		s.count.Store(int64(rest))
		s.mu.Unlock()
		n -= m
	}
	in.room.signal()
	return items
}

// close refuses further requests.
func (in *intake[Q, R]) close() {
	for i := range in.shards {
		s := &in.shards[i]
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
	}
	in.room.signal()
}

// roomSignal wakes the callers that wait for room in a full queue: each
// gets the current channel (wait), which signal closes.
type roomSignal struct {
	waiters atomic.Bool
	mu      sync.Mutex
	ch      chan struct{}
}

func (r *roomSignal) wait() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ch == nil {
		r.ch = make(chan struct{})
	}
	r.waiters.Store(true)
	return r.ch
}

func (r *roomSignal) signal() {
	if !r.waiters.Load() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ch != nil {
		close(r.ch)
		r.ch = nil
	}
	r.waiters.Store(false)
}
