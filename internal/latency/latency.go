// Package latency keeps a histogram of durations that many goroutines add
// to at once and that answers percentiles: the latencies of an Engine's
// calls and a Server's requests.
package latency

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// steps is the number of buckets per doubling: a bucket spans about 19%.
const steps = 4

// buckets covers 1 ns to 2^41 ns (about 36 minutes): 1, 2 and 3 ns alone,
// then four buckets per doubling; longer durations count in the last
// bucket.
const buckets = 4 + 39*steps

// Histogram counts durations in buckets whose bounds grow by 2^(1/4). The
// zero value is empty and ready; it is safe for concurrent use.
type Histogram struct {
	counts [buckets]atomic.Int64
}

// bucket is the index of the bucket that holds d.
func bucket(d time.Duration) int {
	ns := uint64(max(d, 1))
	if ns < 4 {
		return int(ns)
	}
	e := bits.Len64(ns) - 1                 // 2^e ≤ ns < 2^(e+1), e ≥ 2
	i := 4 + (e-2)*steps + int(ns>>(e-2)&3) // the two bits below the leading one pick the step
	return min(i, buckets-1)
}

// upper is the largest duration that bucket i holds.
func upper(i int) time.Duration {
	if i < 4 {
		return time.Duration(i)
	}
	e, step := (i-4)/steps+2, (i-4)%steps
	return time.Duration((4+step+1)<<(e-2)) - 1
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
