package batch_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
)

func TestParallelCoversEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000, 100003} {
		seen := make([]atomic.Int32, n)
		batch.Parallel(n, 64, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			require.Equal(t, int32(1), seen[i].Load(), "n=%d i=%d", n, i)
		}
	}
}

func TestEach(t *testing.T) {
	odd := errors.New("odd")
	vals, err := batch.Each(9, func(i int) (string, error) {
		if i%2 == 1 {
			return "", odd
		}
		return fmt.Sprint(i), nil
	})
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	require.Equal(t, 4, be.Failed())
	for i, v := range vals {
		if i%2 == 1 {
			require.ErrorIs(t, be.Errs[i], odd)
			continue
		}
		require.NoError(t, be.Errs[i])
		require.Equal(t, fmt.Sprint(i), v)
	}
	_, err = batch.Each(3, func(i int) (int, error) { return i, nil })
	require.NoError(t, err)
}

func TestChunks(t *testing.T) {
	for _, tc := range []struct{ n, chunk, depth int }{{0, 4, 2}, {3, 4, 2}, {4, 4, 2}, {17, 4, 2}, {100, 7, 3}, {10, 1, 1}, {9, 0, 0}} {
		seen := make([]atomic.Int32, tc.n)
		var running, most atomic.Int32
		err := batch.Chunks(tc.n, tc.chunk, tc.depth, func(lo, hi int) error {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			require.LessOrEqual(t, hi-lo, max(tc.chunk, 1))
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
			time.Sleep(time.Millisecond)
			return nil
		})
		require.NoError(t, err)
		for i := range seen {
			require.Equal(t, int32(1), seen[i].Load(), "element %d of %+v", i, tc)
		}
		require.LessOrEqual(t, most.Load(), int32(max(tc.depth, 1)))
	}
	bad := errors.New("range failed")
	var ran atomic.Int32
	err := batch.Chunks(10, 2, 2, func(lo, hi int) error {
		ran.Add(1)
		if lo == 4 {
			return bad
		}
		return nil
	})
	require.ErrorIs(t, err, bad)
	require.Equal(t, int32(5), ran.Load(), "the other ranges still run")
}

func TestEvenChunk(t *testing.T) {
	for _, tc := range []struct{ n, most, want int }{{0, 8, 1}, {5, 8, 5}, {8, 8, 8}, {9, 8, 5}, {65537, 65536, 32769}, {262144, 65536, 65536}, {262145, 65536, 52429}, {3, 0, 1}} {
		got := batch.EvenChunk(tc.n, tc.most)
		require.Equal(t, tc.want, got, "%+v", tc)
		if tc.n > 0 {
			parts := (tc.n + got - 1) / got
			require.LessOrEqual(t, got, max(tc.most, 1))
			require.Equal(t, (tc.n+max(tc.most, 1)-1)/max(tc.most, 1), parts, "as few chunks as possible")
		}
	}
}

// A panic in a worker's range reaches the caller's goroutine (where an
// engine recovers it), after every range has returned.
func TestParallelPanicReachesCaller(t *testing.T) {
	var done atomic.Int64
	got := func() (p any) {
		defer func() { p = recover() }()
		batch.Parallel(1<<16, 1, func(lo, hi int) {
			defer done.Add(int64(hi - lo))
			if lo <= 40000 && 40000 < hi {
				panic("range of 40000")
			}
		})
		return nil
	}()
	require.Equal(t, "range of 40000", got)
	require.Equal(t, int64(1<<16), done.Load())
}

// Every range Parallel gives f is at least minChunk long (where n holds
// two), and a pass over many elements is cut into several ranges per core.
func TestParallelRanges(t *testing.T) {
	for _, c := range []struct{ n, minChunk int }{{1, 64}, {127, 64}, {128, 64}, {5000, 64}, {1 << 20, 1024}} {
		var mu sync.Mutex
		var ranges [][2]int
		batch.Parallel(c.n, c.minChunk, func(lo, hi int) {
			mu.Lock()
			ranges = append(ranges, [2]int{lo, hi})
			mu.Unlock()
		})
		total := 0
		for _, r := range ranges {
			total += r[1] - r[0]
			if c.n >= 2*c.minChunk {
				require.GreaterOrEqual(t, r[1]-r[0], c.minChunk, "n=%d: range %v", c.n, r)
			}
		}
		require.Equal(t, c.n, total)
		if c.n == 1<<20 && runtime.GOMAXPROCS(0) > 1 {
			require.Greater(t, len(ranges), runtime.GOMAXPROCS(0), "several ranges per core")
		}
	}
}
