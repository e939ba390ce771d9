// Package latency keeps a histogram of durations that many goroutines add
// to at once and that answers percentiles: the latencies of an Engine's
// calls and a Server's requests.
package latency

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// stepBits is the number of bits below a duration's leading one that pick
// its bucket within a doubling: steps buckets per doubling, each spanning
// 3–6% (1/16 of the doubling's start), fine enough to tell whether a p99 is
// within twice a p50.
const (
	stepBits = 4
	steps    = 1 << stepBits
)

// buckets covers 1 ns to 2^41 ns (about 36 minutes): 1 to steps-1 ns
// alone, then steps buckets per doubling; longer durations count in the
// last bucket.
const buckets = steps + (41-stepBits)*steps

// Histogram counts durations in buckets of 1/16 of a doubling.
// The zero value is empty and ready; it is safe for concurrent use.
type Histogram struct {
	counts [buckets]atomic.Int64
}

// bucket is the index of the bucket that holds d.
func bucket(d time.Duration) int {
	ns := uint64(max(d, 1))
	if ns < steps {
		return int(ns)
	}
	e := bits.Len64(ns) - 1 // 2^e ≤ ns < 2^(e+1), e ≥ stepBits
	// the stepBits bits below the leading one pick the step
	i := steps + (e-stepBits)*steps + int(ns>>(e-stepBits)&(steps-1))
	return min(i, buckets-1)
}

// upper is the largest duration that bucket i holds.
func upper(i int) time.Duration {
	if i < steps {
		return time.Duration(i)
	}
	e, step := (i-steps)/steps+stepBits, (i-steps)%steps
	return time.Duration((steps+step+1)<<(e-stepBits)) - 1
}

// Add counts d.
func (h *Histogram) Add(d time.Duration) { h.counts[bucket(d)].Add(1) }

// Percentile returns the upper bound of the bucket that holds the p-th
// percentile (0 < p ≤ 100) of the durations counted, or 0 when none is.
func (h *Histogram) Percentile(p float64) time.Duration {
	var snap [buckets]int64
	var total int64
	for i := range h.counts {
		snap[i] = h.counts[i].Load()
		total += snap[i]
	}
	if total == 0 {
		return 0
	}
	rank := int64(p / 100 * float64(total))
	rank = min(max(rank, 1), total)
	var seen int64
	for i, n := range snap {
		if seen += n; seen >= rank {
			return upper(i)
		}
	}
	return upper(buckets - 1)
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	for i := range o.counts {
		if n := o.counts[i].Load(); n != 0 {
			h.counts[i].Add(n)
		}
	}
}

// Count is the number of durations counted.
func (h *Histogram) Count() int64 {
	var n int64
	for i := range h.counts {
		n += h.counts[i].Load()
	}
	return n
}
