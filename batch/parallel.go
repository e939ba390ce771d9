package batch

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Parallel runs f over [0, n) on all cores: [0, n) is cut into contiguous
// pieces of at least minChunk (n below 2·minChunk stays on the calling
// goroutine), a few per core, and the calling goroutine and one more per
// core take the next piece until none is left. Cores woken for the work
// start one after another, tens of microseconds apart: with one piece per
// core the last one started held up the whole pass, while here the
// running ones take its share. A panic of f in any piece is raised
// again in the calling goroutine once every piece has returned (where
// the caller's recover sees it: an engine then recomputes the batch on
// the CPU), instead of ending the process from a goroutine of its own.
func Parallel(n, minChunk int, f func(lo, hi int)) {
	pieces := min(n/max(minChunk, 1), piecesPerCore*runtime.GOMAXPROCS(0))
	if pieces <= 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		panicked bool
		value    any
	)
	run := func(p int) {
		defer func() {
			if v := recover(); v != nil {
				mu.Lock()
				if !panicked {
					panicked, value = true, v
				}
				mu.Unlock()
			}
		}()
		f(p*n/pieces, (p+1)*n/pieces)
	}
	work := func() {
		for p := int(next.Add(1) - 1); p < pieces; p = int(next.Add(1) - 1) {
			run(p)
		}
	}
	for range min(runtime.GOMAXPROCS(0), pieces) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	if panicked {
		panic(value)
	}
}

// piecesPerCore is the number of pieces per core that Parallel cuts a
// pass into.
const piecesPerCore = 4

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

// Chunks cuts [0, n) into consecutive ranges of chunk elements (the last
// one shorter) and runs f on them, at most depth at once, in order of
// their start: while one range's device work runs, the host prepares the
// next and finishes the previous one, so a single large call keeps the
// device busy as pipelined callers would. It returns the error of the
// first range that failed (the others still run).
func Chunks(n, chunk, depth int, f func(lo, hi int) error) error {
	chunk, depth = max(chunk, 1), max(depth, 1)
	if n <= chunk {
		return f(0, n)
	}
	ranges := (n + chunk - 1) / chunk
	errs := make([]error, ranges)
	slots := make(chan struct{}, depth)
	var wg sync.WaitGroup
	for r := range ranges {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			errs[r] = f(r*chunk, min((r+1)*chunk, n))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// EvenChunk is the size of the chunks when n elements are cut into as few
// chunks of at most most elements as possible, all about equal (for
// Chunks: 65,537 elements at most 65,536 make two chunks of 32,769, not
// one of 65,536 and one of 1).
func EvenChunk(n, most int) int {
	most = max(most, 1)
	if n <= most {
		return max(n, 1)
	}
	parts := (n + most - 1) / most
	return (n + parts - 1) / parts
}
