package batch

import (
	"runtime"
	"sync"
)

// Parallel splits [0, n) into one contiguous range per core, each at least
// minChunk long, and runs f on each range in its own goroutine; small n
// stays on the calling goroutine.
func Parallel(n, minChunk int, f func(lo, hi int)) {
	w := min(runtime.GOMAXPROCS(0), (n+max(minChunk, 1)-1)/max(minChunk, 1))
	if w <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := k*n/w, (k+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// Each computes f(i) for every i < n on all cores and returns the values
// and the per-element errors (nil, or an *Error).
func Each[T any](n int, f func(i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	errs := make([]error, n)
	Parallel(n, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i], errs[i] = f(i)
		}
	})
	return out, Collect(errs)
}
