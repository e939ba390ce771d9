package batch

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gpucrypto/gpucrypto/internal/latency"
)

// Meter counts the requests of one or more Batchers (Options.Meter): how
// many, how many wait for a batch now, how many the CPU path took, and how
// long each took. A Server shares one among its Batchers and reports it
// in its Stats. Safe for concurrent use; the zero value is ready.
//
// Its counts are kept in shards, each goroutine's picked by its stack
// (shard), so that requests on many cores do not all update one cache
// line.
type Meter struct {
	shards [meterShards]meterShard
	mu     sync.Mutex
	queues []func() int64 // the Batchers' waiting requests
}

// meterShards is enough shards that requests on dozens of cores, a few
// million a second each (AES-GCM of a record on crypto/cipher), seldom
// meet on one.
const (
	meterShardBits = 5
	meterShards    = 1 << meterShardBits
)

type meterShard struct {
	requests, onCPU atomic.Int64
	latency         latency.Histogram
	_               [64]byte
}

// shard is the calling goroutine's shard: the one its stack's address
// picks. A goroutine that calls again (a handshake's goroutine, a worker
// of the CPU path) meets the cache line it wrote last, where a shard
// drawn at random for each request would most often be one another core
// wrote, its line to be fetched from there.
func (m *Meter) shard() *meterShard {
	var here byte
	addr := uint64(uintptr(unsafe.Pointer(&here)))
	// a goroutine's stack spans a few kilobytes: its bits above them,
	// mixed (Fibonacci hashing), pick the shard
	return &m.shards[(addr>>12)*0x9e3779b97f4a7c15>>(64-meterShardBits)]
}

// Stats returns the Meter's counts: Calls (requests), CPUOps (requests the
// CPU path computed at once, NewWithCPU), QueueDepth and the latencies.
func (m *Meter) Stats() Stats {
	var st Stats
	var lat latency.Histogram
	for i := range m.shards {
		s := &m.shards[i]
		st.Calls += s.requests.Load()
		st.CPUOps += s.onCPU.Load()
		lat.Merge(&s.latency)
	}
	m.mu.Lock()
	for _, q := range m.queues {
		st.QueueDepth += max(q(), 0)
	}
	m.mu.Unlock()
	st.LatencyP50, st.LatencyP99 = lat.Percentile(50), lat.Percentile(99)
	return st
}

// one counts one request that started at start and ended now (on the
// CPU path, or refused).
func (m *Meter) one(start time.Time) {
	if m != nil {
		m.shard().request(start)
	}
}

// onCPU counts one request the CPU path computed (one), in one shard.
func (m *Meter) onCPU(start time.Time) {
	if m != nil {
		s := m.shard()
		s.onCPU.Add(1)
		s.request(start)
	}
}

// request counts one request that started at start and ended now.
func (s *meterShard) request(start time.Time) { s.took(time.Since(start)) }

// took counts one request that took d.
func (s *meterShard) took(d time.Duration) {
	s.requests.Add(1)
	s.latency.Add(d)
}

// inlineShard is the shard that counts a request of DoInline (shard),
// and whether to time it: one request in inlineTimed, by the shard's
// count so far.
func (m *Meter) inlineShard() (s *meterShard, timed bool) {
	if m == nil {
		return nil, false
	}
	s = m.shard()
	return s, s.requests.Load()%inlineTimed == 0
}

// inline counts in s (inlineShard's; nil: no Meter) one request of
// DoInline: as an operation on the CPU too where onCPU, with the time
// since start where timed.
func (s *meterShard) inline(onCPU, timed bool, start int64) {
	if s == nil {
		return
	}
	if onCPU {
		s.onCPU.Add(1)
	}
	if timed {
		s.took(time.Duration(stampNow() - start))
		return
	}
	s.requests.Add(1)
}

// answered counts n requests answered by a worker, with their latencies
// lat.
func (m *Meter) answered(n int, lat *latency.Histogram) {
	if m != nil && n > 0 {
		s := m.shard()
		s.requests.Add(int64(n))
		s.latency.Merge(lat)
	}
}

// addQueue adds a Batcher's count of waiting requests to QueueDepth.
func (m *Meter) addQueue(waiting func() int64) {
	if m != nil {
		m.mu.Lock()
		m.queues = append(m.queues, waiting)
		m.mu.Unlock()
	}
}
