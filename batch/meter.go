package batch

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/internal/latency"
)

// Meter counts the requests of one or more Batchers (Options.Meter): how
// many, how many wait for a batch now, how many the CPU path took, and how
// long each took. A Server shares one among its Batchers and reports it
// in its Stats. Safe for concurrent use; the zero value is ready.
//
// Its counts are kept in shards that callers pick at random, so that
// requests on many cores do not all update one cache line.
type Meter struct {
	shards [meterShards]meterShard
	mu     sync.Mutex
	queues []func() int64 // the Batchers' waiting requests
}

// meterShards is enough shards that requests on dozens of cores, a few
// million a second each (AES-GCM of a record on crypto/cipher), seldom
// meet on one.
const meterShards = 32

type meterShard struct {
	requests, onCPU atomic.Int64
	latency         latency.Histogram
	_               [64]byte
}

func (m *Meter) shard() *meterShard { return &m.shards[rand.Uint32()%meterShards] }

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

// tookOnCPU counts one request that the CPU path computed in d, where
// onCPU would count it from a start time (its caller reads the monotonic
// clock alone: stampNow).
func (m *Meter) tookOnCPU(d time.Duration) {
	if m != nil {
		s := m.shard()
		s.onCPU.Add(1)
		s.took(d)
	}
}

// took is one's tookOnCPU.
func (m *Meter) took(d time.Duration) {
	if m != nil {
		m.shard().took(d)
	}
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
