package batch_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
)

// MaxBatch waiting requests make a batch at once, without the delay: with
// every worker idle and an hour's MaxDelay, only the full batch can start
// (a partial batch is cut only while a worker is busy, and its remainder
// then waits for a worker or the delay, so rounds of exactly MaxBatch keep
// the test deterministic).
func TestFlushAtMaxBatch(t *testing.T) {
	var sizes []int
	var mu sync.Mutex
	b := batch.New(batch.Options{MaxBatch: 8, MaxDelay: time.Hour}, func(reqs []int) ([]int, error) {
		mu.Lock()
		sizes = append(sizes, len(reqs))
		mu.Unlock()
		out := make([]int, len(reqs))
		for i, r := range reqs {
			out[i] = r * 2
		}
		return out, nil
	})
	defer b.Close()
	for round := range 3 {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				v, err := b.Do(context.Background(), 8*round+i)
				require.NoError(t, err)
				require.Equal(t, 2*(8*round+i), v)
			}()
		}
		wg.Wait() // would hang for an hour if batches only flushed on the delay
	}
	require.Equal(t, []int{8, 8, 8}, sizes)
}

func TestFlushAfterDelay(t *testing.T) {
	b := batch.New(batch.Options{MaxBatch: 1000, MaxDelay: 5 * time.Millisecond}, func(reqs []string) ([]string, error) {
		return reqs, nil
	})
	defer b.Close()
	t0 := time.Now()
	v, err := b.Do(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, "x", v)
	require.Less(t, time.Since(t0), 2*time.Second)
}

func TestPerElementAndBatchErrors(t *testing.T) {
	bad := errors.New("odd")
	b := batch.New(batch.Options{MaxBatch: 4, MaxDelay: time.Millisecond}, func(reqs []int) ([]int, error) {
		errs := make([]error, len(reqs))
		for i, r := range reqs {
			if r%2 == 1 {
				errs[i] = bad
			}
			if r == 100 {
				panic("boom")
			}
		}
		return reqs, batch.Collect(errs)
	})
	defer b.Close()
	v, err := b.Do(context.Background(), 4)
	require.NoError(t, err)
	require.Equal(t, 4, v)
	_, err = b.Do(context.Background(), 3)
	require.ErrorIs(t, err, bad)
	_, err = b.Do(context.Background(), 100)
	require.ErrorContains(t, err, "panicked")
}

func TestBackPressure(t *testing.T) {
	gate := make(chan struct{})
	var meter batch.Meter
	const queue = 16
	b := batch.New(batch.Options{MaxBatch: 1, MaxDelay: time.Millisecond, QueueSize: queue, Pipeline: 1, Meter: &meter}, func(reqs []int) ([]int, error) {
		<-gate
		return reqs, nil
	})
	// One batch runs; the queue takes at least QueueSize requests and at
	// most about twice as many (its shards keep the limit), and a few
	// more from callers that passed the unlocked check for room at the
	// same time before their requests counted: the other callers block.
	var wg sync.WaitGroup
	for i := range 4 * queue {
		wg.Add(1)
		go func() { defer wg.Done(); b.Do(context.Background(), i) }()
	}
	time.Sleep(50 * time.Millisecond)
	depth := meter.Stats().QueueDepth
	require.GreaterOrEqual(t, depth, int64(queue))
	require.LessOrEqual(t, depth, int64(2*queue+16), "callers blocked beyond")
	// a blocked caller's context ends its wait
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := b.Do(ctx, 99)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	close(gate)
	wg.Wait()
	b.Close()
}

// Callers blocked on a full queue end their wait when their context ends
// (and the others all get in and are answered: a caller that gives up
// does not take another's turn) or when the Batcher closes, while its
// worker is still busy (the queued ones are answered).
func TestBackPressureEnds(t *testing.T) {
	const queue, callers = 8, 200
	start := func(meter *batch.Meter) (*batch.Batcher[int, int], chan struct{}) {
		gate := make(chan struct{})
		return batch.New(batch.Options{MaxBatch: 1, MaxDelay: time.Millisecond, QueueSize: queue, Pipeline: 1, Meter: meter}, func(reqs []int) ([]int, error) {
			<-gate
			return reqs, nil
		}), gate
	}
	// count runs n callers of b with ctx and counts their outcomes
	count := func(b *batch.Batcher[int, int], ctx context.Context, n int, wg *sync.WaitGroup) (answered, closed, cancelled *atomic.Int32) {
		answered, closed, cancelled = new(atomic.Int32), new(atomic.Int32), new(atomic.Int32)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := b.Do(ctx, i)
				switch {
				case err == nil:
					answered.Add(1)
				case errors.Is(err, batch.ErrClosed):
					closed.Add(1)
				case errors.Is(err, context.Canceled):
					cancelled.Add(1)
				default:
					t.Error(err)
				}
			}()
		}
		return answered, closed, cancelled
	}

	t.Run("context", func(t *testing.T) {
		var meter batch.Meter
		b, gate := start(&meter)
		defer b.Close()
		var wg sync.WaitGroup
		answered, _, _ := count(b, context.Background(), callers, &wg)
		require.Eventually(t, func() bool { return meter.Stats().QueueDepth >= queue }, 5*time.Second, time.Millisecond)
		ctx, cancel := context.WithCancel(context.Background())
		var gone sync.WaitGroup
		_, _, cancelled := count(b, ctx, callers, &gone)
		cancel()
		gone.Wait()
		require.EqualValues(t, callers, cancelled.Load())
		close(gate)
		wg.Wait()
		require.EqualValues(t, callers, answered.Load())
	})

	t.Run("close", func(t *testing.T) {
		var meter batch.Meter
		b, gate := start(&meter)
		var wg sync.WaitGroup
		answered, closed, _ := count(b, context.Background(), callers, &wg)
		require.Eventually(t, func() bool { return meter.Stats().QueueDepth >= queue }, 5*time.Second, time.Millisecond)
		closing := make(chan struct{})
		go func() { b.Close(); close(closing) }()
		// every caller is in the running batch, queued, or has ended
		require.Eventually(t, func() bool { return 1+meter.Stats().QueueDepth+int64(closed.Load()) == callers }, 5*time.Second, time.Millisecond)
		require.Zero(t, answered.Load())
		close(gate)
		wg.Wait()
		<-closing
		require.EqualValues(t, callers, answered.Load()+closed.Load())
		require.Positive(t, closed.Load())
	})
}

func TestErrorFormatting(t *testing.T) {
	require.NoError(t, batch.Collect([]error{nil, nil}))
	err := batch.Collect([]error{nil, errors.New("a"), errors.New("b"), errors.New("c"), errors.New("d")})
	require.EqualError(t, err, "4 of 5 batch elements failed; element 1: a; element 2: b; element 3: c; ...")
}

// Pipeline batches run at once per worker function, never more.
func TestPipeline(t *testing.T) {
	for _, depth := range []int{1, 2, 3} {
		var running, peak atomic.Int32
		release := make(chan struct{})
		b := batch.New(batch.Options{MaxBatch: 1, MaxDelay: time.Millisecond, Pipeline: depth}, func(reqs []int) ([]int, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			<-release
			running.Add(-1)
			return reqs, nil
		})
		var wg sync.WaitGroup
		for i := range 2 * depth {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := b.Do(context.Background(), i)
				require.NoError(t, err)
			}()
		}
		require.Eventually(t, func() bool { return running.Load() == int32(depth) }, 5*time.Second, time.Millisecond)
		time.Sleep(20 * time.Millisecond) // no further batch may start
		require.Equal(t, int32(depth), peak.Load())
		close(release)
		wg.Wait()
		b.Close()
	}
}

// TestBatchesGrowUnderLoad: while the only worker is busy, requests gather,
// and the worker takes all of them as soon as it is free (not batches of
// what arrived within MaxDelay).
func TestBatchesGrowUnderLoad(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	first := make(chan struct{})
	var once sync.Once
	var meter batch.Meter
	b := batch.New(batch.Options{MaxBatch: 1000, MaxDelay: time.Millisecond, Pipeline: 1, Meter: &meter}, func(reqs []int) ([]int, error) {
		mu.Lock()
		sizes = append(sizes, len(reqs))
		mu.Unlock()
		once.Do(func() { <-first }) // the first batch holds the worker
		return reqs, nil
	})
	defer b.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); b.Do(context.Background(), -1) }()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(sizes) == 1 }, 5*time.Second, time.Millisecond)
	for i := range 200 {
		wg.Add(1)
		go func() { defer wg.Done(); b.Do(context.Background(), i) }()
	}
	// all 200 wait (far longer than MaxDelay), however late their goroutines run
	require.Eventually(t, func() bool { return meter.Stats().QueueDepth == 200 }, 5*time.Second, time.Millisecond)
	close(first)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []int{1, 200}, sizes, "the second batch takes everything that waited")
}

// TestFreeWorkerTakesAtOnce: with one worker busy, a free one takes a
// request at once instead of waiting MaxDelay for company.
func TestFreeWorkerTakesAtOnce(t *testing.T) {
	hold, held := make(chan struct{}), make(chan struct{})
	var once sync.Once
	b := batch.New(batch.Options{MaxBatch: 2, MaxDelay: time.Hour, Pipeline: 2}, func(reqs []int) ([]int, error) {
		if reqs[0] < 2 {
			once.Do(func() { close(held) })
			<-hold
		}
		return reqs, nil
	})
	defer func() { close(hold); b.Close() }()
	for i := range 2 { // a full batch: goes at once, and holds a worker
		go b.Do(context.Background(), i)
	}
	<-held
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t0 := time.Now()
	v, err := b.Do(ctx, 7)
	require.NoError(t, err)
	require.Equal(t, 7, v)
	require.Less(t, time.Since(t0), 2*time.Second, "waited for MaxDelay although a worker was busy")
}

// TestIdleWaitsMaxDelay: with every worker idle, a lone request waits up
// to MaxDelay for others to join it.
func TestIdleWaitsMaxDelay(t *testing.T) {
	var sizes []int
	var mu sync.Mutex
	const maxDelay = 300 * time.Millisecond // the three requests 10 ms apart arrive within it, however late
	b := batch.New(batch.Options{MaxBatch: 100, MaxDelay: maxDelay}, func(reqs []int) ([]int, error) {
		mu.Lock()
		sizes = append(sizes, len(reqs))
		mu.Unlock()
		return reqs, nil
	})
	defer b.Close()
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); b.Do(context.Background(), i) }()
		time.Sleep(10 * time.Millisecond)
	}
	wg.Wait()
	require.GreaterOrEqual(t, time.Since(t0), maxDelay)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []int{3}, sizes, "the three requests within MaxDelay form one batch")
}

// With two engines idle, what waits is shared between them: one engine
// does not take every request while the other idles.
func TestIdleEnginesShare(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]int{}
	var both sync.WaitGroup // each engine's batch runs until the other's has started (5 s at most)
	both.Add(2)
	engine := func(name string) batch.RunFunc[int, int] {
		return func(reqs []int) ([]int, error) {
			mu.Lock()
			seen[name] = append(seen[name], len(reqs))
			mu.Unlock()
			both.Done()
			started := make(chan struct{})
			go func() { both.Wait(); close(started) }()
			select {
			case <-started:
			case <-time.After(5 * time.Second): // one engine took everything: the test fails below
			}
			return reqs, nil
		}
	}
	b := batch.New(batch.Options{MaxBatch: 64, MaxDelay: time.Hour}, engine("a"), engine("b"))
	defer b.Close()
	var wg sync.WaitGroup
	for i := range 64 { // a full batch: it goes at once, in two shares
		wg.Add(1)
		go func() { defer wg.Done(); b.Do(context.Background(), i) }()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []int{32}, seen["a"], "engine a's batches")
	require.Equal(t, []int{32}, seen["b"], "engine b's batches")
}

// completions is a Completer that sends each outcome on a channel.
type completions chan [2]any

func (c completions) Complete(v int, err error) { c <- [2]any{v, err} }

// Go submits without waiting; each request's outcome reaches its
// Completer once, the per-element errors and the context's included.
func TestGo(t *testing.T) {
	bad := errors.New("odd")
	b := batch.New(batch.Options{MaxBatch: 64, MaxDelay: time.Millisecond}, func(reqs []int) ([]int, error) {
		out := make([]int, len(reqs))
		errs := make([]error, len(reqs))
		for i, r := range reqs {
			out[i] = 2 * r
			if r%7 == 0 {
				errs[i] = bad
			}
		}
		return out, batch.Collect(errs)
	})
	done := make(completions, 1000)
	for i := range 1000 {
		require.NoError(t, b.Go(context.Background(), i+1, done))
	}
	got := map[int]bool{}
	for range 1000 {
		o := <-done
		v, err := o[0].(int), o[1]
		if err != nil {
			require.ErrorIs(t, err.(error), bad)
			continue
		}
		require.Zero(t, v%2)
		require.NotZero(t, (v/2)%7)
		require.False(t, got[v], "answered twice")
		got[v] = true
	}
	require.Len(t, got, 1000-1000/7)

	require.Error(t, b.Go(nil, 1, done)) //nolint:staticcheck // a nil context is an error
	require.Error(t, b.Go(context.Background(), 1, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, b.Go(ctx, 1, done), context.Canceled)
	b.Close()
	require.ErrorIs(t, b.Go(context.Background(), 1, done), batch.ErrClosed)
	require.Empty(t, done, "no completion for a request Go refused")
}

// GoMany submits a frame at once: each request's outcome reaches its own
// Completer; a refused frame submits none of its requests.
func TestGoMany(t *testing.T) {
	b := batch.New(batch.Options{MaxBatch: 64, MaxDelay: time.Millisecond}, func(reqs []int) ([]int, error) {
		out := make([]int, len(reqs))
		for i, r := range reqs {
			out[i] = 2 * r
		}
		return out, nil
	})
	const frames, frame = 50, 37
	sinks := make([]completions, frame) // one per position, to check who gets what
	done := make([]batch.Completer[int], frame)
	for k := range sinks {
		sinks[k] = make(completions, frames)
		done[k] = sinks[k]
	}
	for f := range frames {
		reqs := make([]int, frame)
		for k := range reqs {
			reqs[k] = 1000*k + f
		}
		require.NoError(t, b.GoMany(context.Background(), reqs, done))
	}
	for k := range sinks {
		got := map[int]bool{}
		for range frames {
			o := <-sinks[k]
			require.Nil(t, o[1])
			v := o[0].(int)
			require.Equal(t, k, v/2/1000, "position %d got another's result", k)
			got[v] = true
		}
		require.Len(t, got, frames)
	}
	one := completions(make(chan [2]any, 4))
	require.NoError(t, b.GoMany(context.Background(), nil, nil))
	require.Error(t, b.GoMany(context.Background(), []int{1, 2}, []batch.Completer[int]{one}))
	require.Error(t, b.GoMany(context.Background(), []int{1, 2}, []batch.Completer[int]{one, nil}))
	require.Error(t, b.GoMany(nil, []int{1}, []batch.Completer[int]{one})) //nolint:staticcheck // a nil context is an error
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, b.GoMany(ctx, []int{1}, []batch.Completer[int]{one}), context.Canceled)
	b.Close()
	require.ErrorIs(t, b.GoMany(context.Background(), []int{1, 2}, []batch.Completer[int]{one, one}), batch.ErrClosed)
	require.Empty(t, one, "no completion for a frame GoMany refused")
}

// A request submitted with Go whose context ends before its batch runs
// completes with the context's error.
func TestGoCancelled(t *testing.T) {
	hold, held := make(chan struct{}), make(chan struct{})
	b := batch.New(batch.Options{MaxBatch: 1, MaxDelay: time.Millisecond, Pipeline: 1}, func(reqs []int) ([]int, error) {
		if reqs[0] == 0 {
			close(held)
			<-hold
		}
		return reqs, nil
	})
	defer b.Close()
	done := make(completions, 2)
	require.NoError(t, b.Go(context.Background(), 0, done)) // holds the only worker
	<-held
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, b.Go(ctx, 1, done))
	cancel()
	close(hold)
	first, second := <-done, <-done
	require.Equal(t, [2]any{0, nil}, first)
	require.ErrorIs(t, second[1].(error), context.Canceled)
}

// Many callers on several engines: every request is answered with its
// own result, and Close answers all that were queued.
func TestManyCallers(t *testing.T) {
	double := func(reqs []int) ([]int, error) {
		out := make([]int, len(reqs))
		for i, r := range reqs {
			out[i] = 2 * r
		}
		return out, nil
	}
	b := batch.New(batch.Options{MaxBatch: 256, MaxDelay: 100 * time.Microsecond, QueueSize: 512}, double, double, double)
	var wg sync.WaitGroup
	var bad atomic.Int32
	for g := range 2000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				v, err := b.Do(context.Background(), 1000*g+i)
				if err != nil || v != 2*(1000*g+i) {
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	b.Close()
	require.Zero(t, bad.Load())
}
