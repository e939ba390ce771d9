package engine

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// fakeDevice is a device value for the routing and fallback tests: its
// jobs compute on the host and never reach a driver.
func fakeDevice() *device.Device {
	return &device.Device{Info: device.Info{Name: "fake GPU", Type: device.TypeGPU}}
}

// squares is a Job: out[i] = in[i]², recording where each element was
// computed.
type squares struct {
	in, out            []int
	where              []string
	mu                 sync.Mutex
	batches            [][2]int // device batches, in the order they ran
	wrong              int      // the device's result of this element is off by one (-1: none)
	prepared, finished atomic.Int32
	prepareErr         error
}

func newSquares(n int) *squares {
	j := &squares{in: make([]int, n), out: make([]int, n), where: make([]string, n), wrong: -1}
	for i := range j.in {
		j.in[i] = i + 1
	}
	return j
}

func (j *squares) Device(c *Chunk) error {
	j.mu.Lock()
	j.batches = append(j.batches, [2]int{c.Lo, c.Hi})
	j.mu.Unlock()
	for i := c.Lo; i < c.Hi; i++ {
		j.out[i], j.where[i] = j.in[i]*j.in[i], "device"
		if i == j.wrong {
			j.out[i]++
		}
	}
	return Check(c.Sample(), func(i int) bool { return j.out[i] == j.in[i]*j.in[i] })
}

func (j *squares) CPU(lo, hi int) {
	for i := lo; i < hi; i++ {
		j.out[i], j.where[i] = j.in[i]*j.in[i], "cpu"
	}
}

func (j *squares) Prepare(lo, hi int) error { j.prepared.Add(1); return j.prepareErr }
func (j *squares) Finish(failed bool)       { j.finished.Add(1) }

func (j *squares) requireRight(t *testing.T) {
	t.Helper()
	for i := range j.in {
		require.Equal(t, j.in[i]*j.in[i], j.out[i], "element %d", i)
	}
}

func (j *squares) count(where string) int {
	n := 0
	for _, w := range j.where {
		if w == where {
			n++
		}
	}
	return n
}

func TestCPUCore(t *testing.T) {
	c := New("test", nil)
	j := newSquares(1000)
	require.NoError(t, c.Run(Plan{Op: "square", N: 1000}, j))
	j.requireRight(t)
	require.Equal(t, 1000, j.count("cpu"))
	s := c.Stats()
	require.EqualValues(t, 1, s.Calls)
	require.EqualValues(t, 1000, s.CPUOps)
	require.Zero(t, s.DeviceOps)
	require.Error(t, c.Run(Plan{N: 1, Resident: true}, j), "a resident call on the CPU")
}

func TestBatches(t *testing.T) {
	c := New("test", fakeDevice())
	c.SetRoute(batch.RouteDevice)
	j := newSquares(1000)
	require.NoError(t, c.Run(Plan{Op: "square", N: 1000, Chunk: 300}, j))
	j.requireRight(t)
	require.Equal(t, 1000, j.count("device"))
	require.Len(t, j.batches, 4) // 4 batches of 250, not 300+300+300+100
	for _, b := range j.batches {
		require.Equal(t, 250, b[1]-b[0])
	}
	require.EqualValues(t, 1, j.prepared.Load())
	require.EqualValues(t, 1, j.finished.Load())
	s := c.Stats()
	require.EqualValues(t, 1000, s.DeviceOps)
	require.EqualValues(t, 4, s.Batches)
	require.EqualValues(t, 4, s.BatchSizes[7]) // 128 ≤ 250 < 256
	require.NotZero(t, s.LatencyP50)
	require.Positive(t, s.BatchTime)
	require.Zero(t, s.WaitTime) // the fake device's batches run no commands
}

func TestFallback(t *testing.T) {
	c := New("test", fakeDevice())
	c.SetRoute(batch.RouteDevice)
	var reported []error
	var mu sync.Mutex
	c.OnFallback(func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() })
	var calls atomic.Int32
	c.SetHooks(&Hooks{BeforeDevice: func(lo, hi int) error {
		if calls.Add(1) == 2 {
			return errors.New("injected fault")
		}
		return nil
	}})
	j := newSquares(900)
	require.NoError(t, c.Run(Plan{Op: "square", N: 900, Chunk: 300, Depth: 1}, j))
	j.requireRight(t)
	require.Equal(t, 600, j.count("device"))
	require.Equal(t, 300, j.count("cpu"), "the failed batch, recomputed")
	require.Len(t, reported, 1)
	require.ErrorContains(t, reported[0], "injected fault")
	require.ErrorContains(t, reported[0], "fake GPU")
	s := c.Stats()
	require.EqualValues(t, 1, s.Fallbacks)
	require.EqualValues(t, 300, s.FallbackOps)
	require.EqualValues(t, 300, s.CPUOps)
	require.EqualValues(t, 600, s.DeviceOps)

	// a logger, when asked for, gets the fallback too
	var buf bytes.Buffer
	c.SetLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	c.OnFallback(nil)
	calls.Store(1)
	require.NoError(t, c.Run(Plan{Op: "square", N: 10}, newSquares(10)))
	require.Contains(t, buf.String(), "injected fault")

	// a failed Prepare sends the call's device part to the CPU
	c.SetHooks(nil)
	j = newSquares(50)
	j.prepareErr = errors.New("no tables")
	require.NoError(t, c.Run(Plan{Op: "square", N: 50}, j))
	j.requireRight(t)
	require.Equal(t, 50, j.count("cpu"))
	require.EqualValues(t, 1, j.finished.Load())
}

func TestResultCheck(t *testing.T) {
	c := New("test", fakeDevice())
	c.SetRoute(batch.RouteDevice)
	var reported atomic.Int32
	c.OnFallback(func(err error) {
		if strings.Contains(err.Error(), "result check") {
			reported.Add(1)
		}
	})
	j := newSquares(100)
	j.wrong = 0 // the first element of a batch is always checked
	require.NoError(t, c.Run(Plan{Op: "square", N: 100}, j))
	require.Equal(t, 1, j.out[0]-j.in[0]*j.in[0], "no check by default")
	c.SetResultCheck(1_000_000)
	j = newSquares(100)
	j.wrong = 0
	require.NoError(t, c.Run(Plan{Op: "square", N: 100}, j))
	j.requireRight(t)
	require.EqualValues(t, 1, reported.Load())
	require.Equal(t, 100, j.count("cpu"))
}

// The route follows the measured times: a slow device loses to the CPU,
// a slow CPU to the device.
func TestRouting(t *testing.T) {
	run := func(c *Core, n int) *squares {
		j := newSquares(n)
		require.NoError(t, c.Run(Plan{Op: "square", Size: 1, N: n}, j))
		j.requireRight(t)
		return j
	}
	t.Run("slow device", func(t *testing.T) {
		c := New("test", fakeDevice())
		c.SetHooks(&Hooks{BeforeDevice: func(lo, hi int) error { time.Sleep(20 * time.Millisecond); return nil }})
		for range 3 {
			run(c, 200)
		}
		j := run(c, 200)
		require.Equal(t, 200, j.count("cpu"), "a device 20 ms slower than the CPU")
	})
	t.Run("slow CPU", func(t *testing.T) {
		c := New("test", fakeDevice())
		c.SetHooks(&Hooks{BeforeCPU: func(lo, hi int) { time.Sleep(20 * time.Millisecond) }})
		for range 3 {
			run(c, 200)
		}
		j := run(c, 200)
		require.Equal(t, 200, j.count("device"), "a CPU 20 ms slower than the device")
	})
	t.Run("routes", func(t *testing.T) {
		c := New("test", fakeDevice())
		c.SetRoute(batch.RouteCPU)
		require.Equal(t, 200, run(c, 200).count("cpu"))
		c.SetRoute(batch.RouteDevice)
		require.Equal(t, 200, run(c, 200).count("device"))
	})
}

func TestClose(t *testing.T) {
	c := New("test", fakeDevice())
	c.SetRoute(batch.RouteDevice)
	started, release := make(chan struct{}), make(chan struct{})
	c.SetHooks(&Hooks{BeforeDevice: func(lo, hi int) error { close(started); <-release; return nil }})
	exited := false
	c.OnClose(func() error { exited = true; return nil })
	done := make(chan error)
	j := newSquares(10)
	go func() { done <- c.Run(Plan{Op: "square", N: 10}, j) }()
	<-started
	closed := make(chan error)
	go func() { closed <- c.Close() }()
	select {
	case <-closed:
		t.Fatal("Close returned while a call ran")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-done)
	require.NoError(t, <-closed)
	require.True(t, exited)
	j.requireRight(t)
	err := c.Run(Plan{Op: "square", N: 1}, newSquares(1))
	require.ErrorIs(t, err, batch.ErrClosed)
	require.NoError(t, c.Close(), "a second Close")
}

// Cut cuts the batches where the job says (elements of different sizes).
func TestCut(t *testing.T) {
	c := New("test", fakeDevice())
	c.SetRoute(batch.RouteDevice)
	j := newSquares(10)
	sizes := []int{5, 5, 5, 20, 1, 1, 1, 1, 30, 2} // cut at 10 per batch, a larger element alone
	cut := func(lo, hi int) int {
		used, end := 0, lo
		for end < hi && (end == lo || used+sizes[end] <= 10) {
			used += sizes[end]
			end++
		}
		return end
	}
	require.NoError(t, c.Run(Plan{Op: "square", N: 10, Cut: cut, Depth: 1}, j))
	j.requireRight(t)
	require.Equal(t, [][2]int{{0, 2}, {2, 3}, {3, 4}, {4, 8}, {8, 9}, {9, 10}}, j.batches)
}

// A job whose device step panics has its batch recomputed on the CPU,
// reported as a fallback; the process goes on.
func TestDevicePanic(t *testing.T) {
	c := New("test", fakeDevice())
	c.SetRoute(batch.RouteDevice)
	var reported error
	c.OnFallback(func(err error) { reported = err })
	c.SetHooks(&Hooks{Device: func(job Job, ch *Chunk) error { panic("kernel exploded") }})
	j := newSquares(20)
	require.NoError(t, c.Run(Plan{Op: "square", N: 20}, j))
	j.requireRight(t)
	require.Equal(t, 20, j.count("cpu"))
	require.ErrorContains(t, reported, "kernel exploded")
}

// The CPU's time is renewed by computing a prefix of a device call on the
// CPU, at the same time: the prefix grows with what the device takes, at
// most half the call.
func TestCPUPrefix(t *testing.T) {
	require.Equal(t, 16, cpuPrefix(16, 1000, 0, 0), "unknown times: one round")
	require.Equal(t, 16*1000, cpuPrefix(16, 1e6, 1e3, 1e9), "a millisecond at 1 µs per round")
	require.Equal(t, 16*62, cpuPrefix(16, 1e6, 1e3, 1e6), "a sixteenth of the device's millisecond")
	require.Equal(t, 500, cpuPrefix(16, 1000, 1, 1e9), "at most half")
	require.Equal(t, 16, cpuPrefix(16, 1000, 1e9, 1), "at least one round")
}

// The CPU's time is fitted as a start-up cost plus a cost per round: small
// calls measured at one round do not make a large call look slower than
// it is.
func TestCPUTimeFit(t *testing.T) {
	var f cpuTime
	now := time.Now()
	require.False(t, f.known())
	f.observe(1, 380, now)
	require.InDelta(t, 380*16, f.predict(16), 1, "one kind of call: the cost per round alone")
	for range 8 {
		f.observe(1, 380, now)
		f.observe(5, 1220, now)
	}
	a, c := f.fit()
	require.InDelta(t, 170, a, 1)
	require.InDelta(t, 210, c, 1)
	require.InDelta(t, 170+210*16, f.predict(16), 5)
}

// Near a tie the CPU gets the call: the device must be predicted at least
// a tenth faster.
func TestDeviceMargin(t *testing.T) {
	var e estimates
	e.shapes = map[shapeKey]*shape{}
	p := Plan{Op: "op", N: 64}
	now := time.Now()
	s := e.get(p)
	s.cpu.observe(rounds(64), 1000, now)
	s.device[sizeClass(64)].observe(950, now)
	require.False(t, e.choose(p, now).device, "5% faster: the CPU")
	s.device[sizeClass(64)] = average{}
	s.device[sizeClass(64)].observe(800, now)
	require.True(t, e.choose(p, now).device, "20% faster: the device")
}

// Where the CPU computed calls of a size class, their time predicts the
// class's (P elements at once on P threads cost more than the fit from one
// element alone says).
func TestCPUClassTime(t *testing.T) {
	P := runtime.GOMAXPROCS(0)
	if P < 2 {
		t.Skip("needs two threads")
	}
	var e estimates
	e.shapes = map[shapeKey]*shape{}
	now := time.Now()
	s := e.get(Plan{Op: "op"})
	s.cpu.observe(1, 6000, now) // one element alone
	s.cpuClass[sizeClass(1)].observe(6000, now)
	require.InDelta(t, 6000, s.cpuPredict(P, now), 1, "no call of P elements measured: the fit (one round)")
	s.cpu.observe(1, 11000, now)
	s.cpuClass[sizeClass(P)].observe(11000, now)
	require.InDelta(t, 11000, s.cpuPredict(P, now), 1)
	require.NotEqual(t, 11000.0, s.cpuPredict(P, now.Add(2*renewMost)), "too old: the fit")
}

// A call of at most P elements has no CPU prefix to renew the CPU's time:
// once that time is stale, the CPU gets the whole call, so a first time
// that was too high (a call that prepared its keys) does not keep such
// calls on a device that is slower.
func TestCPURenewedWhole(t *testing.T) {
	P := runtime.GOMAXPROCS(0)
	var e estimates
	e.shapes = map[shapeKey]*shape{}
	p := Plan{Op: "op", N: P}
	now := time.Now()
	s := e.get(p)
	k := sizeClass(P)
	e.cpuDone(p, P, 30*time.Millisecond) // a first call that prepared its keys
	s.cpuClass[k].at, s.cpu.at = now, now
	s.device[k].observe(float64(9*time.Millisecond), now)
	require.True(t, e.choose(p, now).device, "the CPU's first time: the device")
	later := now.Add(2 * renewFirst)
	require.False(t, e.choose(p, later).device, "stale: the CPU renews its time with the call")
	require.True(t, e.choose(p, later).device, "one caller renews it")
	e.cpuDone(p, P, 7*time.Millisecond) // the CPU's real time
	s.device[k].at = later              // (not itself due for renewal)
	require.False(t, e.choose(p, later).device, "renewed: the CPU wins")
}

// packOrder is a Job whose device step records when its packing (the
// host work before Run) starts and ends, and whose packing takes long
// enough that batches started together would overlap.
type packOrder struct {
	squares
	events []string
}

func (j *packOrder) Device(c *Chunk) error {
	j.mu.Lock()
	j.events = append(j.events, fmt.Sprintf("pack %d", c.Lo))
	j.mu.Unlock()
	time.Sleep(30 * time.Millisecond) // packing
	j.mu.Lock()
	j.events = append(j.events, fmt.Sprintf("run %d", c.Lo))
	j.mu.Unlock()
	if c.Lo == 20 {
		return errors.New("a batch that fails before its Run") // the next one must not wait for ever
	}
	if err := c.Run(func(*device.Commands) error { return nil }); err != nil {
		return err
	}
	return j.squares.Device(c)
}

// With PackInTurn a batch is cut only once the batch before it has
// packed: a Cut's pass then does not share the cores with that packing.
func TestPackInTurnCuts(t *testing.T) {
	c := New("test", fakeDevice())
	c.SetRoute(batch.RouteDevice)
	c.SetHooks(&Hooks{Run: func(lo, hi int, staging [][]byte) error { return nil }})
	j := &packOrder{squares: *newSquares(40)}
	cut := func(lo, hi int) int {
		j.mu.Lock()
		j.events = append(j.events, fmt.Sprintf("cut %d", lo))
		j.mu.Unlock()
		return min(lo+10, hi)
	}
	require.NoError(t, c.Run(Plan{Op: "square", N: 40, Cut: cut, Depth: 3, PackInTurn: true}, j))
	j.requireRight(t)
	var want []string
	for lo := 0; lo < 40; lo += 10 {
		want = append(want, fmt.Sprintf("cut %d", lo), fmt.Sprintf("pack %d", lo), fmt.Sprintf("run %d", lo))
	}
	require.Equal(t, want, j.events)
}

// With PackInTurn the batches in flight pack one after another, in order
// (each one's packing ends before the next one's starts), a batch that
// fails before its Run included; without it, all that are in flight
// start packing at once.
func TestPackInTurn(t *testing.T) {
	c := New("test", fakeDevice())
	c.SetRoute(batch.RouteDevice)
	c.SetHooks(&Hooks{Run: func(lo, hi int, staging [][]byte) error { return nil }})
	for _, inTurn := range []bool{true, false} {
		j := &packOrder{squares: *newSquares(50)}
		require.NoError(t, c.Run(Plan{Op: "square", N: 50, Chunk: 10, Depth: 3, PackInTurn: inTurn}, j))
		j.requireRight(t)
		if inTurn {
			var want []string
			for lo := 0; lo < 50; lo += 10 {
				want = append(want, fmt.Sprintf("pack %d", lo), fmt.Sprintf("run %d", lo))
			}
			require.Equal(t, want, j.events)
		} else {
			require.ElementsMatch(t, []string{"pack 0", "pack 10", "pack 20"}, j.events[:3], "three batches in flight pack at once: %v", j.events)
		}
	}
}

// The calls of a self-test are counted apart from the user's: Stats
// leaves them out, SelfTestStats has them.
func TestSelfTestCountedApart(t *testing.T) {
	c := New("test", nil)
	p := Plan{Op: "square", N: 8}
	require.NoError(t, c.SelfTest(func() error { return c.Run(p, newSquares(8)) }))
	require.Zero(t, c.Stats().Calls)
	require.Zero(t, c.Stats().CPUOps)
	require.EqualValues(t, 1, c.SelfTestStats().Calls)
	require.EqualValues(t, 8, c.SelfTestStats().CPUOps)
	require.NoError(t, c.Run(p, newSquares(8)))
	require.EqualValues(t, 1, c.Stats().Calls)
	require.EqualValues(t, 8, c.Stats().CPUOps)
}
