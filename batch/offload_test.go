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

// sleepy returns a RunFunc that doubles each request after sleeping d per
// call, counting its calls and the requests it saw.
func sleepy(d time.Duration, calls, reqs *atomic.Int64) batch.RunFunc[int, int] {
	return func(in []int) ([]int, error) {
		calls.Add(1)
		reqs.Add(int64(len(in)))
		time.Sleep(d)
		out := make([]int, len(in))
		for i, v := range in {
			out[i] = 2 * v
		}
		return out, nil
	}
}

// computing returns a RunFunc that doubles each request after computing
// (spinning) for d per call: a CPU path's cost, which its CPU time
// measures (a sleep takes none of it).
func computing(d time.Duration, calls, reqs *atomic.Int64) batch.RunFunc[int, int] {
	return func(in []int) ([]int, error) {
		calls.Add(1)
		reqs.Add(int64(len(in)))
		for start := time.Now(); time.Since(start) < d; {
		}
		out := make([]int, len(in))
		for i, v := range in {
			out[i] = 2 * v
		}
		return out, nil
	}
}

func TestOffloadLoneRequestsRunOnTheCPU(t *testing.T) {
	var devCalls, devReqs, cpuCalls, cpuReqs atomic.Int64
	b := batch.NewWithCPU(batch.Options{MaxDelay: time.Millisecond},
		computing(time.Millisecond, &cpuCalls, &cpuReqs), sleepy(20*time.Millisecond, &devCalls, &devReqs))
	defer b.Close()
	for i := range 40 {
		v, err := b.Do(context.Background(), i)
		require.NoError(t, err)
		require.Equal(t, 2*i, v)
	}
	// the batched wait (≥ 20 ms) is above the CPU's 1 ms once both are
	// measured: at most the first request or two, and a probe, go to batches
	require.LessOrEqual(t, devReqs.Load(), int64(3), "device requests")
	require.Equal(t, int64(40)-devReqs.Load(), b.OnCPU())
	require.Equal(t, b.OnCPU(), cpuReqs.Load())
}

func TestOffloadSlowCPUIsLeftAlone(t *testing.T) {
	var devCalls, devReqs, cpuCalls, cpuReqs atomic.Int64
	b := batch.NewWithCPU(batch.Options{MaxDelay: time.Millisecond},
		computing(30*time.Millisecond, &cpuCalls, &cpuReqs), sleepy(time.Millisecond, &devCalls, &devReqs))
	defer b.Close()
	for i := range 60 {
		v, err := b.Do(context.Background(), i)
		require.NoError(t, err)
		require.Equal(t, 2*i, v)
	}
	// once the CPU is measured slower, requests are batched (a probe per
	// staleAfter at most renews the CPU's estimate)
	require.LessOrEqual(t, cpuReqs.Load(), int64(4), "CPU requests")
	require.Equal(t, int64(60), devReqs.Load()+cpuReqs.Load())
}

func TestOffloadSlotsBoundTheCPU(t *testing.T) {
	var devCalls, devReqs atomic.Int64
	var onCPU, most atomic.Int32
	cpu := func(in []int) ([]int, error) {
		n := onCPU.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		onCPU.Add(-1)
		return []int{2 * in[0]}, nil
	}
	b := batch.NewWithCPU(batch.Options{MaxDelay: time.Millisecond, CPUOffload: 2}, cpu, sleepy(10*time.Millisecond, &devCalls, &devReqs))
	defer b.Close()
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				v, err := b.Do(context.Background(), g*100+i)
				require.NoError(t, err)
				require.Equal(t, 2*(g*100+i), v)
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, most.Load(), int32(2), "requests on the CPU at once")
	require.Positive(t, devReqs.Load(), "under load requests are batched")
	require.Greater(t, devReqs.Load(), devCalls.Load(), "batches hold several requests")
	require.Equal(t, int64(640), devReqs.Load()+b.OnCPU())
}

func TestOffloadOff(t *testing.T) {
	var devCalls, devReqs, cpuCalls, cpuReqs atomic.Int64
	b := batch.NewWithCPU(batch.Options{MaxDelay: time.Millisecond, CPUOffload: -1},
		sleepy(0, &cpuCalls, &cpuReqs), sleepy(5*time.Millisecond, &devCalls, &devReqs))
	defer b.Close()
	for i := range 10 {
		_, err := b.Do(context.Background(), i)
		require.NoError(t, err)
	}
	require.Zero(t, cpuCalls.Load())
	require.Zero(t, b.OnCPU())
}

func TestOffloadErrorsAndPanics(t *testing.T) {
	bad := errors.New("bad element")
	var devCalls, devReqs atomic.Int64
	cpu := func(in []int) ([]int, error) {
		switch in[0] {
		case 1:
			return []int{0}, &batch.Error{Errs: []error{bad}}
		case 2:
			panic("boom")
		case 3:
			return nil, nil // the wrong number of results
		}
		return []int{2 * in[0]}, nil
	}
	b := batch.NewWithCPU(batch.Options{MaxDelay: time.Millisecond}, cpu, sleepy(0, &devCalls, &devReqs))
	defer b.Close()
	for _, tc := range []struct {
		in   int
		want string
	}{{1, "bad element"}, {2, "panicked"}, {3, "results"}} {
		for devReqs.Load()+b.OnCPU() < 1000 { // until this one runs on the CPU
			before := b.OnCPU()
			v, err := b.Do(context.Background(), tc.in)
			if b.OnCPU() == before {
				require.NoError(t, err) // batched: the device computes it
				require.Equal(t, 2*tc.in, v)
				continue
			}
			require.ErrorContains(t, err, tc.want)
			break
		}
	}
	require.Less(t, devReqs.Load()+b.OnCPU(), int64(1000), "the CPU path was never taken")
}

// Under load (more requests wait for batches than the CPU slots could
// finish in a batch's time) requests are batched, not offloaded. Only the
// steady state is counted: while the callers start and after the first one
// stops, few requests wait and the CPU is the right place for some.
func TestOffloadUnderLoadGoesToBatches(t *testing.T) {
	var devCalls, devReqs, cpuCalls, cpuReqs atomic.Int64
	b := batch.NewWithCPU(batch.Options{MaxDelay: time.Millisecond, CPUOffload: 2},
		computing(2*time.Millisecond, &cpuCalls, &cpuReqs), sleepy(20*time.Millisecond, &devCalls, &devReqs))
	defer b.Close()
	var wg sync.WaitGroup
	var stop atomic.Bool
	var answered atomic.Int64
	const callers = 256
	for g := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				_, err := b.Do(context.Background(), g+i)
				require.NoError(t, err)
				answered.Add(1)
			}
		}()
	}
	time.Sleep(100 * time.Millisecond) // the callers start
	cpuBefore, answeredBefore := b.OnCPU(), answered.Load()
	time.Sleep(400 * time.Millisecond)
	cpu, all := b.OnCPU()-cpuBefore, answered.Load()-answeredBefore
	stop.Store(true)
	wg.Wait()
	t.Logf("%d of %d requests on the CPU in the steady state, %d batches in all", cpu, all, devCalls.Load())
	require.Greater(t, all, int64(callers), "the device path answered too few requests to judge")
	// both CPU slots busy the whole time would take about 7% of the
	// requests (1,000/s against 256 per 20 ms); the load rule keeps them
	// busy a fraction of it, which a loaded machine's scheduling moves
	// (1-2% of the requests, at times near 3%)
	require.Less(t, cpu, all/25)
}

// One slow CPU request (a first use that builds something, say) does not
// shut the CPU path: it counts as at most four times the average, and the
// path stays open for the requests after it.
func TestOffloadOutlierDoesNotShutTheCPU(t *testing.T) {
	var devCalls, devReqs atomic.Int64
	var cpuCalls atomic.Int64
	cpu := func(in []int) ([]int, error) {
		if cpuCalls.Add(1) == 3 {
			time.Sleep(200 * time.Millisecond) // one outlier
		} else {
			time.Sleep(time.Millisecond)
		}
		return []int{2 * in[0]}, nil
	}
	b := batch.NewWithCPU(batch.Options{MaxDelay: time.Millisecond}, cpu, sleepy(20*time.Millisecond, &devCalls, &devReqs))
	defer b.Close()
	for i := range 40 {
		v, err := b.Do(context.Background(), i)
		require.NoError(t, err)
		require.Equal(t, 2*i, v)
	}
	require.LessOrEqual(t, devReqs.Load(), int64(3), "device requests")
}

// NewWithCPUOne's CPU path computes each request with its OneFunc: the
// function's value, its error as the request's own, a panic in it as an
// error (not a crash); NewDirectCPU's likewise, every request at once and
// counted in the Meter as on the CPU, GoMany's too.
func TestCPUPathOfOneFunc(t *testing.T) {
	bad := errors.New("bad element")
	one := func(in int) (int, error) {
		switch in {
		case 1:
			return 0, bad
		case 2:
			panic("boom")
		}
		return 2 * in, nil
	}
	var devCalls, devReqs atomic.Int64
	offloaded := batch.NewWithCPUOne(batch.Options{MaxDelay: time.Millisecond}, one, sleepy(0, &devCalls, &devReqs))
	defer offloaded.Close()
	for _, tc := range []struct {
		in   int
		want string
	}{{1, "bad element"}, {2, "panicked"}, {5, ""}} {
		for devReqs.Load()+offloaded.OnCPU() < 1000 { // until this one runs on the CPU
			before := offloaded.OnCPU()
			v, err := offloaded.Do(context.Background(), tc.in)
			if offloaded.OnCPU() == before {
				require.NoError(t, err) // batched: the device computes it
				require.Equal(t, 2*tc.in, v)
				continue
			}
			if tc.want == "" {
				require.NoError(t, err)
				require.Equal(t, 10, v)
			} else {
				require.ErrorContains(t, err, tc.want)
			}
			break
		}
	}
	require.Less(t, devReqs.Load()+offloaded.OnCPU(), int64(1000), "the CPU path was never taken")

	var meter batch.Meter
	direct := batch.NewDirectCPU(batch.Options{Meter: &meter}, one)
	defer direct.Close()
	_, err := direct.Do(context.Background(), 1)
	require.ErrorIs(t, err, bad)
	_, err = direct.Do(context.Background(), 2)
	require.ErrorContains(t, err, "panicked")
	v, err := direct.Do(context.Background(), 4)
	require.NoError(t, err)
	require.Equal(t, 8, v)
	done := make(chanCompleter, 3)
	require.NoError(t, direct.GoMany(context.Background(), []int{3, 1, 6}, []batch.Completer[int]{done, done, done}))
	got := map[any]any{}
	for range 3 {
		o := <-done
		got[o[0]] = o[1]
	}
	require.Equal(t, map[any]any{6: nil, 0: bad, 12: nil}, got)
	require.Equal(t, int64(6), meter.Stats().CPUOps, "every request counted as an operation on the CPU")
}
