package device

import (
	"sync"
	"time"
)

// idleSet keeps idle resources of varying sizes (device buffers, pinned
// host memory) for reuse by later batches: take hands out the smallest
// that fits, put keeps what comes back (freeing the smallest beyond a
// limit), and what stays idle for longer than the idle time is freed.
type idleSet[T any] struct {
	size     func(T) int // bytes
	free     func(T)
	maxIdle  int
	idleTime time.Duration // 0: keep until drain

	mu       sync.Mutex
	idle     []T
	lastUse  time.Time
	idleStop *time.Timer
}

// take returns the smallest idle resource of at least n bytes that is
// less than four times as large (a small request must not take a large
// one that the next batch will need), or false.
func (s *idleSet[T]) take(n int) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := -1
	for i, r := range s.idle {
		if size := s.size(r); size >= n && size/4 < n && (best < 0 || size < s.size(s.idle[best])) {
			best = i
		}
	}
	if best < 0 {
		var zero T
		return zero, false
	}
	r := s.idle[best]
	s.idle = append(s.idle[:best], s.idle[best+1:]...)
	return r, true
}

// put keeps rs, frees the smallest idle resources beyond maxIdle, and arms
// the idle timer.
func (s *idleSet[T]) put(rs ...T) {
	s.mu.Lock()
	s.idle = append(s.idle, rs...)
	var drop []T
	for len(s.idle) > s.maxIdle {
		small := 0
		for i, r := range s.idle {
			if s.size(r) < s.size(s.idle[small]) {
				small = i
			}
		}
		drop = append(drop, s.idle[small])
		s.idle = append(s.idle[:small], s.idle[small+1:]...)
	}
	s.lastUse = time.Now()
	if s.idleTime > 0 && s.idleStop == nil {
		s.idleStop = time.AfterFunc(s.idleTime, s.releaseIdle)
	}
	s.mu.Unlock()
	for _, r := range drop {
		s.free(r)
	}
}

// releaseIdle frees the idle resources once none was used for idleTime.
func (s *idleSet[T]) releaseIdle() {
	s.mu.Lock()
	if wait := s.idleTime - time.Since(s.lastUse); wait > 0 {
		s.idleStop.Reset(wait)
		s.mu.Unlock()
		return
	}
	s.idleStop = nil
	s.mu.Unlock()
	s.drain()
}

// drain frees every idle resource.
func (s *idleSet[T]) drain() {
	s.mu.Lock()
	idle := s.idle
	s.idle = nil
	s.mu.Unlock()
	for _, r := range idle {
		s.free(r)
	}
}

// list returns the idle resources now (they stay in the set, but a drain
// may free them: for tests and checks while nothing else runs).
func (s *idleSet[T]) list() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]T(nil), s.idle...)
}

// each runs f on every idle resource, under the set's lock: none is freed
// meanwhile.
func (s *idleSet[T]) each(f func(T)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.idle {
		f(r)
	}
}

// stats is the number of idle resources and their total size in bytes.
func (s *idleSet[T]) stats() (count, bytes int) {
	s.mu.Lock() // sizes under the lock: drain frees what it takes out
	defer s.mu.Unlock()
	for _, r := range s.idle {
		bytes += s.size(r)
	}
	return len(s.idle), bytes
}
