package latency

import (
	"testing"
	"time"
)

// Every duration lies in its bucket: above the bound of the bucket
// before, at most the bound of its own.
func TestBucketBounds(t *testing.T) {
	for _, d := range []time.Duration{1, 2, 3, 4, 5, 7, 8, 9, 100, 1000, 12345, time.Millisecond, 3 * time.Second, time.Hour} {
		i := bucket(d)
		if d > upper(i) && i != buckets-1 {
			t.Errorf("%v: bucket %d ends at %v", d, i, upper(i))
		}
		if i > 0 && d <= upper(i-1) {
			t.Errorf("%v: bucket %d, but the one before ends at %v", d, i, upper(i-1))
		}
	}
	for i := 1; i < buckets; i++ {
		if upper(i) <= upper(i-1) {
			t.Fatalf("bucket %d ends at %v, not above bucket %d's %v", i, upper(i), i-1, upper(i-1))
		}
	}
}

func TestPercentile(t *testing.T) {
	var h Histogram
	if got := h.Percentile(50); got != 0 {
		t.Fatalf("empty histogram: p50 %v, want 0", got)
	}
	for range 98 {
		h.Add(time.Millisecond)
	}
	h.Add(time.Second)
	h.Add(time.Second)
	p50, p99 := h.Percentile(50), h.Percentile(99)
	if p50 < time.Millisecond || p50 > 1200*time.Microsecond {
		t.Errorf("p50 %v, want about 1ms", p50)
	}
	if p99 < time.Second || p99 > 1200*time.Millisecond {
		t.Errorf("p99 %v, want about 1s", p99)
	}
}

// Each bucket spans at most 1/16 of its lower bound: a percentile (its
// bucket's upper bound) is at most 6.25% above the truth.
func TestBucketWidth(t *testing.T) {
	for i := steps; i < buckets; i++ {
		lo, hi := upper(i-1)+1, upper(i)
		if float64(hi-lo+1) > float64(lo)/16 {
			t.Fatalf("bucket %d spans %v to %v", i, lo, hi)
		}
	}
	if got := upper(buckets - 1); got < 30*time.Minute {
		t.Fatalf("the last bucket ends at %v", got)
	}
}
