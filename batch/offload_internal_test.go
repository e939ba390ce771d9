package batch

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// measuredOffload is a CPU path with 2 slots whose estimates say 1 ms on
// the CPU and 10 ms of batched wait, both fresh at now: the slots finish
// 2 · 10 / 1 = 20 requests in a batch's wait.
func measuredOffload(t *testing.T, now int64, batched *int64) *offload[int, int] {
	quietHost(t)
	o := newOffload(func(v int) (int, error) { return v, nil }, 2, 2, func(int64) int64 { return *batched })
	o.cpuTime.observeAt(time.Millisecond, now)
	o.batchedWait.observeAt(10*time.Millisecond, now)
	return o
}

// The load that sends requests to the batches counts the CPU path's own
// requests, running and waiting for a slot, with the batched ones: a load
// that the CPU path took while it was light goes back to the batches as
// it grows.
func TestTakeCountsTheCPUPathsLoad(t *testing.T) {
	now := stampNow()
	var batched int64
	o := measuredOffload(t, now, &batched)
	require.Equal(t, toCPU, o.take(now))
	require.Equal(t, toCPU, o.take(now))
	require.Equal(t, toCPUQueue, o.take(now), "both slots taken: the wait for one and 1 ms end before 10 ms")
	o.queueing.Store(8)
	batched = 9
	require.Equal(t, toCPUQueue, o.take(now), "19 in flight: under the 20 the slots finish in a batch's wait")
	batched = 10
	require.Equal(t, toBatch, o.take(now), "20 in flight, 10 of them on the CPU path")
	o.queueing.Store(0)
	o.running.Store(0)
	batched = 19
	require.Equal(t, toCPU, o.take(now), "19 batched and a free slot")
	batched = 20
	require.Equal(t, toBatch, o.take(now))
}

// With more slots than cores, the load that the CPU path takes is what
// the cores finish in a batch's wait (2 · 10 / 1 = 20 requests here), not
// the slots: slots beyond the cores only keep a core busy while a request
// leaves it in the runtime.
func TestTakeWeighsTheLoadByTheCores(t *testing.T) {
	quietHost(t)
	now := stampNow()
	var batched int64
	o := newOffload(func(v int) (int, error) { return v, nil }, 8, 2, func(int64) int64 { return batched })
	o.cpuTime.observeAt(time.Millisecond, now)
	o.batchedWait.observeAt(10*time.Millisecond, now)
	for range 8 {
		require.Equal(t, toCPU, o.take(now), "a free slot")
	}
	batched = 11
	require.Equal(t, toCPUQueue, o.take(now), "19 in flight, the wait for a core ends first")
	batched = 12
	require.Equal(t, toBatch, o.take(now), "20 in flight: the cores finish 20 in a batch's wait, whatever the slots")
}

// With CPUOffload left to its default, the slots hold only while the
// batched path has requests or answered some within a batch's wait: with
// it idle a request takes a slot beyond them, as many as the load rule
// allows (the cores finish 2 · 10 / 1 = 20 in a batch's wait).
func TestTakeBeyondTheSlotsWhileTheBatchesAreIdle(t *testing.T) {
	now := stampNow()
	var batched int64
	o := measuredOffload(t, now, &batched)
	o.beyondSlots = true
	require.Equal(t, toCPU, o.take(now))
	require.Equal(t, toCPU, o.take(now))
	require.Equal(t, toCPUQueue, o.take(now), "a batch answered just now: the slots hold")
	later := now + int64(11*time.Millisecond)
	require.Equal(t, toCPU, o.take(later), "none batched or answered for a batch's wait: beyond the slots")
	require.EqualValues(t, 3, o.running.Load())
	batched = 1
	require.Equal(t, toCPUQueue, o.take(later), "a request batched: the slots hold")
	batched = 0
	for o.running.Load() < 20 {
		require.Equal(t, toCPU, o.take(later))
	}
	require.Equal(t, toBatch, o.take(later), "20 in flight: the load rule")
	o.beyondSlots = false
	o.running.Store(2)
	require.Equal(t, toCPUQueue, o.take(later), "a CPUOffload of the caller's: the slots hold")
}

// Beyond its slots the idle CPU path takes at most 32 requests a core,
// those waiting for a slot counted, whatever the load rule allows: a
// batched wait of 1 s would let the 2 cores take 2,000 requests, whose
// computing at once would take the cores from the batches' host work
// and keep the wait that long.
func TestTakeBeyondTheSlotsUpTo32ACore(t *testing.T) {
	now := stampNow()
	var batched int64
	o := measuredOffload(t, now, &batched)
	o.beyondSlots = true
	o.batchedWait.ns.Store(int64(time.Second))
	o.batchedWait.last.Store(now - int64(1100*time.Millisecond)) // none answered for a batch's wait
	o.batchedWait.probed.Store(now)                              // and its probe is out
	later := now
	for range 64 {
		require.Equal(t, toCPU, o.take(later))
	}
	require.EqualValues(t, 64, o.running.Load())
	require.Equal(t, toBatch, o.take(later), "64 on the CPU path: the rest is the device's")
	o.running.Store(2)
	o.queueing.Store(62)
	require.Equal(t, toBatch, o.take(later), "62 waiting for a slot count")
	require.False(t, o.reserve(o.idle(later, 0)), "a waiting request's reserve (waitSlot) holds the slots too")
	o.queueing.Store(61)
	require.Equal(t, toCPU, o.take(later), "63 on the CPU path")
}

// While every CPU slot is taken and requests wait for one, a batched
// wait that nothing renewed for staleAfter is renewed: one request goes
// to the batches, and its sample replaces the estimate where it is lower.
// An estimate left high (a first batch that built its programs) would
// otherwise keep the load on the CPU for as long as the slots stay full.
func TestTakeRenewsTheBatchedWaitWhileTheSlotsAreFull(t *testing.T) {
	now := stampNow()
	var batched int64
	o := measuredOffload(t, now, &batched)
	o.batchedWait.observeAt(time.Second, now) // an outlier: 4 × 10 ms at most
	o.batchedWait.ns.Store(int64(time.Second))
	o.running.Store(2)
	o.queueing.Store(10)
	require.Equal(t, toCPUQueue, o.take(now), "a wait of 1 s: the CPU path takes the load")
	later := now + staleAfter + 1
	require.Equal(t, toBatch, o.take(later), "the probe")
	require.Equal(t, toCPUQueue, o.take(later), "one probe per period")
	o.batchedWait.observeAt(3*time.Millisecond, later+int64(3*time.Millisecond))
	wait, _ := o.batchedWait.get()
	require.Equal(t, 3*time.Millisecond, wait, "the probe's sample replaces the stale estimate")
	require.Equal(t, toBatch, o.take(later+int64(3*time.Millisecond)), "12 in flight against 2 · 3 / 1")
	o.batchedWait.observeAt(11*time.Millisecond, later+int64(4*time.Millisecond))
	wait, _ = o.batchedWait.get()
	require.Equal(t, 4*time.Millisecond, wait, "later samples move it by an eighth")
}

// However long the batched wait, the CPU path's queue holds at most 32
// requests a core, those computing counted: a wait of 1 s would let the 2
// cores queue 2,000 requests of 1 ms, whose callers would wait up to 1 s
// for the cores while the device, given none of them, could not show
// that its wait is shorter.
func TestTakeQueuesUpTo32ACore(t *testing.T) {
	now := stampNow()
	var batched int64
	o := measuredOffload(t, now, &batched)
	o.batchedWait.ns.Store(int64(time.Second))
	o.running.Store(2)
	o.queueing.Store(61)
	require.Equal(t, toCPUQueue, o.take(now), "the 64th on the CPU path")
	o.queueing.Store(62)
	require.Equal(t, toBatch, o.take(now), "a 65th: the device's")
	o.slots = 100 // a caller's CPUOffload above the bound
	o.queueing.Store(96)
	require.Equal(t, toCPUQueue, o.take(now), "within a caller's 100")
	o.queueing.Store(98)
	require.Equal(t, toBatch, o.take(now), "beyond them")
}

// A probe of the CPU path (sent while the batches are the faster path)
// is sampled: the probe's time is not the last observation's, so its
// request is due, and its sample renews a CPU time left high.
func TestCPUProbeIsSampled(t *testing.T) {
	now := stampNow()
	var batched int64
	o := measuredOffload(t, now, &batched)
	o.cpuTime.ns.Store(int64(50 * time.Millisecond)) // slower than the batches
	require.Equal(t, toBatch, o.take(now))
	later := now + staleAfter + 1
	o.batchedWait.observeAt(10*time.Millisecond, later) // the batches' estimate renewed by their requests
	require.Equal(t, toCPU, o.take(later), "the probe")
	require.True(t, o.cpuTime.claim(later), "the probe's request is sampled")
	require.False(t, o.cpuTime.claim(later), "once")
	o.cpuTime.observeAt(time.Millisecond, later+int64(time.Millisecond))
	cost, _ := o.cpuTime.get()
	require.Equal(t, time.Millisecond, cost)
}

// quietHost holds the host's verdict (busy.go) at not busy for the rest
// of t: the tests before may have kept every core busy, and a take that
// found the host busy would batch every request.
func quietHost(t *testing.T) {
	set := func(at int64) {
		host.mu.Lock()
		defer host.mu.Unlock()
		host.busy.Store(false)
		host.at.Store(at)
	}
	set(math.MaxInt64 / 2) // not renewed before the test ends
	t.Cleanup(func() { set(stampNow()) })
}

// The rules assume a batched wait of at least the hold (MaxDelay): a
// measured wait shorter than that (a lone request's batch) does not send
// a load that the cores finish within the hold to the batches, where its
// callers would wait for company.
func TestTakeAssumesTheHold(t *testing.T) {
	now := stampNow()
	var batched int64
	o := measuredOffload(t, now, &batched)
	o.batchedWait.ns.Store(int64(2 * time.Millisecond)) // the cores finish 2 · 2 / 1 = 4 in it
	o.running.Store(2)
	o.queueing.Store(2)
	require.Equal(t, toBatch, o.take(now), "4 in flight against 4")
	o.hold = 10 * time.Millisecond
	require.Equal(t, toCPUQueue, o.take(now), "4 in flight against 2 · 10 / 1")
	o.queueing.Store(18)
	require.Equal(t, toBatch, o.take(now), "20 in flight against 20")
}

// While the load rule sends every request to the batches, a CPU time
// that nothing renewed for staleAfter is renewed by a probe in a free
// slot: a CPU time left high (by a moment when the host's cores were
// taken) would otherwise keep a load that the cores finish first on the
// batches for good.
func TestCPUProbeUnderTheLoadRule(t *testing.T) {
	now := stampNow()
	var batched int64
	o := measuredOffload(t, now, &batched)
	o.cpuTime.ns.Store(int64(5 * time.Millisecond)) // the slots finish 2 · 10 / 5 = 4
	batched = 10
	require.Equal(t, toBatch, o.take(now), "10 in flight against 4")
	later := now + staleAfter + 1
	o.batchedWait.observeAt(10*time.Millisecond, later)
	require.Equal(t, toCPU, o.take(later), "the probe")
	require.Equal(t, toBatch, o.take(later), "one probe per period")
	o.cpuTime.observeAt(time.Millisecond, later+int64(time.Millisecond))
	o.unreserve()
	require.Equal(t, toCPU, o.take(later+int64(time.Millisecond)), "10 in flight against 2 · 10 / 1 = 20")
}

// A sample of wall time (the goroutine moved to another thread) renews
// the CPU time's estimate only where no sample of a thread's CPU time has
// for staleAfter: with many callers the moved samples, which count the
// time off the core, held the estimate above a request's cost.
func TestMovedSampleCountsOnlyWithoutAThreadSample(t *testing.T) {
	now := stampNow()
	var batched int64
	o := measuredOffload(t, now, &batched)
	require.True(t, o.counts(false, now), "no thread's sample yet: a wall time counts")
	require.True(t, o.counts(true, now))
	o.threadSampled.Store(now)
	require.False(t, o.counts(false, now+int64(time.Millisecond)), "a thread's sample 1 ms ago")
	require.True(t, o.counts(true, now+int64(time.Millisecond)))
	require.True(t, o.counts(false, now+staleAfter+1), "none for staleAfter: a long request that always moves is measured")
}
