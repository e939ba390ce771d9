package batch

import (
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/internal/latency"
)

// Meter counts the requests of one or more Batchers (Options.Meter): how
// many, how many wait for a batch now, how many the CPU path took, and how
// long each took. A Server shares one among its Batchers and reports it
// in its Stats. Safe for concurrent use; the zero value is ready.
type Meter struct {
	requests, onCPU, waiting atomic.Int64
	latency                  latency.Histogram
}

// Stats returns the Meter's counts: Calls (requests), CPUOps (requests the
// CPU path computed at once, NewWithCPU), QueueDepth and the latencies.
func (m *Meter) Stats() Stats {
	return Stats{
		Calls:      m.requests.Load(),
		CPUOps:     m.onCPU.Load(),
		QueueDepth: max(m.waiting.Load(), 0),
		LatencyP50: m.latency.Percentile(50),
		LatencyP99: m.latency.Percentile(99),
	}
}

// start counts a request and returns its start time, for done.
func (m *Meter) start() time.Time {
	if m == nil {
		return time.Time{}
	}
	m.requests.Add(1)
	return time.Now()
}

// done counts the end of a request that started at t.
func (m *Meter) done(t time.Time) {
	if m != nil {
		m.latency.Add(time.Since(t))
	}
}

// queued adds n requests (negative: removes) to those waiting for a batch.
func (m *Meter) queued(n int) {
	if m != nil {
		m.waiting.Add(int64(n))
	}
}

func (m *Meter) cpu() {
	if m != nil {
		m.onCPU.Add(1)
	}
}
