package engine

import (
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/latency"
)

// recorder keeps a Core's counts (batch.Stats); safe for concurrent use.
type recorder struct {
	calls, deviceOps, cpuOps atomic.Int64
	fallbacks, fallbackOps   atomic.Int64
	faults                   atomic.Int64
	batches                  atomic.Int64
	sizes                    [batch.BatchSizeBuckets]atomic.Int64
	deviceNs                 atomic.Int64
	batchNs, waitNs          atomic.Int64
	latency                  latency.Histogram
}

func (r *recorder) call(d time.Duration) {
	r.calls.Add(1)
	r.latency.Add(d)
}

func (r *recorder) cpu(n int) { r.cpuOps.Add(int64(n)) }

func (r *recorder) fallback(n int) {
	r.fallbacks.Add(1)
	r.fallbackOps.Add(int64(n))
}

// batch counts a device batch of n elements that completed.
func (r *recorder) batch(n int) {
	r.deviceOps.Add(int64(n))
	r.batches.Add(1)
	r.sizes[min(bits.Len(uint(n))-1, batch.BatchSizeBuckets-1)].Add(1)
}

func (r *recorder) deviceTime(d time.Duration) { r.deviceNs.Add(int64(d)) }

// batchTime counts a device batch's wall time (its whole device step) and
// the time it waited for its device commands.
func (r *recorder) batchTime(whole, wait time.Duration) {
	r.batchNs.Add(int64(whole))
	r.waitNs.Add(int64(wait))
}

func (r *recorder) snapshot() batch.Stats {
	s := batch.Stats{
		Calls:       r.calls.Load(),
		DeviceOps:   r.deviceOps.Load(),
		CPUOps:      r.cpuOps.Load(),
		Fallbacks:   r.fallbacks.Load(),
		FallbackOps: r.fallbackOps.Load(),
		Faults:      r.faults.Load(),
		Batches:     r.batches.Load(),
		LatencyP50:  r.latency.Percentile(50),
		LatencyP99:  r.latency.Percentile(99),
		DeviceTime:  time.Duration(r.deviceNs.Load()),
		BatchTime:   time.Duration(r.batchNs.Load()),
		WaitTime:    time.Duration(r.waitNs.Load()),
	}
	for k := range s.BatchSizes {
		s.BatchSizes[k] = r.sizes[k].Load()
	}
	return s
}

// AddDistinct adds to s the counts of each of engines once, however often
// it appears there (a Server given one engine for two workers).
func AddDistinct[E interface {
	comparable
	Stats() batch.Stats
}](s *batch.Stats, engines []E) {
	seen := make(map[E]bool, len(engines))
	for _, e := range engines {
		if !seen[e] {
			seen[e] = true
			s.Add(e.Stats())
		}
	}
}
