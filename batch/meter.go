package batch

import (
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
	requests atomic.Int64
	// cpuRequests are requests computed on the CPU, counted once for both
	// of those (inline): one atomic add a request instead of two
	cpuRequests atomic.Int64
	latency     latency.Histogram
	_           [64]byte
}

// shard is the calling goroutine's shard: the one its stack's address
// picks. A goroutine that calls again (a handshake's goroutine, a worker
// of the CPU path) meets the cache line it wrote last, where a shard
// drawn at random for each request would most often be one another core
// wrote, its line to be fetched from there.
func (m *Meter) shard() *meterShard {
	return &m.shards[stackShard(meterShardBits)]
}

// Stats returns the Meter's counts: Calls (requests), CPUOps (requests the
// CPU path computed at once, NewWithCPU), QueueDepth and the latencies.
func (m *Meter) Stats() Stats {
	var st Stats
	var lat latency.Histogram
	for i := range m.shards {
		s := &m.shards[i]
		cpu := s.cpuRequests.Load()
		st.Calls += s.requests.Load() + cpu
		st.CPUOps += cpu
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

// one counts one request that started at start (a stamp) and ended now
// (refused, or failed before it was computed).
func (m *Meter) one(start int64) {
	if m != nil {
		m.shard().took(time.Duration(stampNow() - start))
	}
}

// cpuDone counts one request the CPU path computed, which started at
// start (a stamp), its latency sampled as DoInline's are (inlineTimed):
// a clock reading is not cheap everywhere, and a request on the CPU path
// otherwise read it several times.
func (m *Meter) cpuDone(start int64) {
	s, timed := m.inlineShard()
	s.inline(true, timed, start)
}

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
	return s, (s.requests.Load()+s.cpuRequests.Load())%inlineTimed == 0
}

// inline counts in s (inlineShard's; nil: no Meter) one request of
// DoInline: as an operation on the CPU too where onCPU, with the time
// since start where timed.
func (s *meterShard) inline(onCPU, timed bool, start int64) {
	if s == nil {
		return
	}
	if timed {
		s.latency.Add(time.Duration(stampNow() - start))
	}
	if onCPU {
		s.cpuRequests.Add(1)
	} else {
		s.requests.Add(1)
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
