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

// chanCompleter sends each outcome on a channel.
type chanCompleter chan [2]any

func (c chanCompleter) Complete(v int, err error) { c <- [2]any{v, err} }

// A direct Batcher computes every request at once, alone (never in a
// batch), Do in the caller's goroutine: as many callers, as many requests
// computed at the same time; Go and GoMany complete each request; after
// Close every form fails with ErrClosed, and Close waits for what Go
// started.
func TestDirect(t *testing.T) {
	var calls, reqs atomic.Int64
	var running, most atomic.Int64
	run := func(in []int) ([]int, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		calls.Add(1)
		reqs.Add(int64(len(in)))
		time.Sleep(20 * time.Millisecond)
		out := make([]int, len(in))
		for i, v := range in {
			out[i] = 2 * v
		}
		return out, nil
	}
	var meter batch.Meter
	b := batch.NewDirect(batch.Options{Meter: &meter, MaxDelay: time.Hour}, run)

	const callers = 8
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := b.Do(context.Background(), i)
			require.NoError(t, err)
			require.Equal(t, 2*i, v)
		}()
	}
	wg.Wait()
	require.Equal(t, int64(callers), calls.Load(), "one call per request: nothing batched")
	require.Equal(t, int64(callers), most.Load(), "the callers' requests computed at the same time")

	done := make(chanCompleter, 4)
	require.NoError(t, b.Go(context.Background(), 5, done))
	require.NoError(t, b.GoMany(context.Background(), []int{1, 2, 3}, []batch.Completer[int]{done, done, done}))
	sum := 0
	for range 4 {
		o := <-done
		require.Nil(t, o[1])
		sum += o[0].(int)
	}
	require.Equal(t, 2*(5+1+2+3), sum)
	st := meter.Stats()
	require.Equal(t, int64(callers+4), st.Calls)
	require.Zero(t, st.CPUOps, "the operations are the engine's to count")

	// Close waits for a Go still computing; then every form fails
	slow := make(chanCompleter, 1)
	require.NoError(t, b.Go(context.Background(), 7, slow))
	b.Close()
	select {
	case o := <-slow:
		require.Equal(t, 14, o[0])
	default:
		t.Fatal("Close returned before the Go it had started completed")
	}
	_, err := b.Do(context.Background(), 1)
	require.ErrorIs(t, err, batch.ErrClosed)
	require.ErrorIs(t, b.Go(context.Background(), 1, done), batch.ErrClosed)
	require.ErrorIs(t, b.GoMany(context.Background(), []int{1}, []batch.Completer[int]{done}), batch.ErrClosed)
}

// A direct Batcher's per-element errors and panics are the request's own.
func TestDirectErrors(t *testing.T) {
	bad := errors.New("bad request")
	b := batch.NewDirect(batch.Options{}, func(in []int) ([]int, error) {
		if in[0] < 0 {
			panic("negative")
		}
		if in[0] == 0 {
			return nil, bad
		}
		return []int{in[0]}, nil
	})
	defer b.Close()
	_, err := b.Do(context.Background(), 0)
	require.ErrorIs(t, err, bad)
	_, err = b.Do(context.Background(), -1)
	require.ErrorContains(t, err, "panicked")
	v, err := b.Do(context.Background(), 3)
	require.NoError(t, err)
	require.Equal(t, 3, v)
}

// Requests of Go take the CPU path too while it finishes first (a slow
// device, a fast CPU, few requests in flight), each completed once; and
// Close waits for those still computing there.
func TestOffloadGoRunsOnTheCPU(t *testing.T) {
	var devCalls, devReqs, cpuCalls, cpuReqs atomic.Int64
	b := batch.NewWithCPU(batch.Options{MaxDelay: time.Millisecond},
		computing(time.Millisecond, &cpuCalls, &cpuReqs), sleepy(20*time.Millisecond, &devCalls, &devReqs))
	done := make(chanCompleter, 1)
	for i := range 40 {
		require.NoError(t, b.Go(context.Background(), i, done))
		o := <-done
		require.Nil(t, o[1])
		require.Equal(t, 2*i, o[0])
	}
	require.LessOrEqual(t, devReqs.Load(), int64(3), "device requests")
	require.Equal(t, int64(40)-devReqs.Load(), b.OnCPU())
	require.NoError(t, b.Go(context.Background(), 100, done))
	b.Close()
	select {
	case o := <-done:
		require.Equal(t, 200, o[0])
	default:
		t.Fatal("Close returned before a request on the CPU path completed")
	}
}

// Once the batches taken are small (a light load), a lone request is not
// held MaxDelay for company that is not coming.
func TestLightLoadIsNotHeld(t *testing.T) {
	var calls, reqs atomic.Int64
	b := batch.New(batch.Options{MaxDelay: 300 * time.Millisecond}, sleepy(0, &calls, &reqs))
	defer b.Close()
	_, err := b.Do(context.Background(), 1) // the first: held for company (no batch seen yet)
	require.NoError(t, err)
	for i := range 5 {
		start := time.Now()
		_, err := b.Do(context.Background(), i)
		require.NoError(t, err)
		require.Less(t, time.Since(start), 150*time.Millisecond, "request %d held for company after batches of one", i)
	}
}

// With every CPU slot taken, a request waits for one where that ends
// before a batch would (a slow device): more callers than slots all get
// the CPU, never more than the slots at once.
func TestOffloadQueuesForTheCPU(t *testing.T) {
	var devCalls, devReqs atomic.Int64
	var running, most atomic.Int64
	cpu := func(in []int) ([]int, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(time.Millisecond)
		return []int{2 * in[0]}, nil
	}
	const slots = 2
	b := batch.NewWithCPU(batch.Options{MaxDelay: time.Millisecond, CPUOffload: slots}, cpu, sleepy(40*time.Millisecond, &devCalls, &devReqs))
	defer b.Close()
	for i := range 3 { // both paths measured
		_, err := b.Do(context.Background(), i)
		require.NoError(t, err)
	}
	before := devReqs.Load()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				v, err := b.Do(context.Background(), 100*g+i)
				require.NoError(t, err)
				require.Equal(t, 2*(100*g+i), v)
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, devReqs.Load()-before, int64(8), "requests batched for the slow device")
	require.LessOrEqual(t, most.Load(), int64(slots), "more requests on the CPU at once than its slots")
}

// DoInline computes a request with the caller's function on a direct
// Batcher, counted in the Meter as an operation on the CPU (NewDirectCPU)
// or as a request (NewDirect); a panic is an error; after Close it
// computes nothing and fails with ErrClosed; on a Batcher that batches it
// computes nothing and fails.
func TestDoInline(t *testing.T) {
	var meter batch.Meter
	b := batch.NewDirectCPU(batch.Options{Meter: &meter}, func(v int) (int, error) { return v, nil })
	require.True(t, b.Direct())
	v, err := b.DoInline(func() (int, error) { return 7, nil })
	require.NoError(t, err)
	require.Equal(t, 7, v)
	_, err = b.DoInline(func() (int, error) { panic("broken") })
	require.ErrorContains(t, err, "broken")
	st := meter.Stats()
	require.Equal(t, int64(2), st.Calls)
	require.Equal(t, int64(2), st.CPUOps)
	// one request in 64 is timed: among 200 more, some are
	for range 200 {
		_, _ = b.DoInline(func() (int, error) { return 0, nil })
	}
	st = meter.Stats()
	require.Equal(t, int64(202), st.Calls)
	require.NotZero(t, st.LatencyP50)
	b.Close()
	ran := false
	_, err = b.DoInline(func() (int, error) { ran = true; return 0, nil })
	require.ErrorIs(t, err, batch.ErrClosed)
	require.False(t, ran)
	require.Equal(t, int64(203), meter.Stats().Calls)

	var plain batch.Meter
	d := batch.NewDirect(batch.Options{Meter: &plain}, func(in []int) ([]int, error) { return in, nil })
	defer d.Close()
	_, err = d.DoInline(func() (int, error) { return 1, nil })
	require.NoError(t, err)
	require.Equal(t, int64(1), plain.Stats().Calls)
	require.Zero(t, plain.Stats().CPUOps, "NewDirect's operations are its engine's to count")

	batched := batch.New(batch.Options{}, func(in []int) ([]int, error) { return in, nil })
	defer batched.Close()
	require.False(t, batched.Direct())
	ran = false
	_, err = batched.DoInline(func() (int, error) { ran = true; return 0, nil })
	require.Error(t, err)
	require.False(t, ran)
}
