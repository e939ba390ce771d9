package batch

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/internal/cputime"
)

// NewWithCPU is New with a CPU path: each request goes where it is
// expected to finish first. While the workers' batches would make a
// request wait longer than the CPU takes to compute it, and fewer than
// Options.CPUOffload requests are on the CPU, a request is computed at
// once with cpu (a RunFunc given one request): Do computes it in the
// caller's goroutine, Go on a goroutine of the CPU path; otherwise it is
// batched as with New. So a lone request never waits for a batch, and
// under load, when the CPU slots are taken or more requests wait for
// batches than the cores could finish in a batch's time, requests gather
// into batches for the device.
//
// The CPU path also stays shut while this process keeps nearly all of its
// GOMAXPROCS cores busy with other work than the CPU path's own requests
// (busy.go): where the host's cores are the server's bottleneck (a TLS
// terminator's handshakes, the device batches' own host work), a request
// computed on them costs more than its wait for a batch saves.
//
// The rule compares two measured times, each a moving average: the CPU
// time c of one request on the CPU (its thread's, where the system says:
// not the time its thread waited for a core), and the time w a batched
// request waits from its submission to its answer (queueing included, so
// it grows with the load), measured by the workers as they answer, and
// taken as at least Options.MaxDelay (a request sent to the batches may
// be held that long for company). A request takes a free CPU slot when
// c < w and fewer requests are in flight (batched, on the CPU and waiting
// for a CPU slot) than the slots could finish in w (slots·w/c): beyond
// that the load is the device's, and the host's cores are better spent
// feeding its batches. The first request takes the CPU, the next is
// batched, so both times are known from the start. An estimate that no
// request has renewed for staleAfter is renewed by sending one request
// down that path (whatever the rules say), whose time replaces the
// estimate where it is lower.
//
// With Options.CPUOffload negative, NewWithCPU is New.
func NewWithCPU[Q, R any](opts Options, cpu RunFunc[Q, R], workers ...RunFunc[Q, R]) *Batcher[Q, R] {
	var one func(Q) (R, error)
	if cpu != nil {
		one = cpu.one
	}
	return newWithCPU(opts, one, workers)
}

// NewWithCPUOne is NewWithCPU with a CPU path that computes each request
// with cpu (crypto/* called for it), with no slice around it.
func NewWithCPUOne[Q, R any](opts Options, cpu OneFunc[Q, R], workers ...RunFunc[Q, R]) *Batcher[Q, R] {
	var one func(Q) (R, error)
	if cpu != nil {
		one = cpu.safe
	}
	return newWithCPU(opts, one, workers)
}

// newWithCPU is the Batcher of NewWithCPU and NewWithCPUOne: their
// workers, and a CPU path computing each request with one.
func newWithCPU[Q, R any](opts Options, one func(Q) (R, error), workers []RunFunc[Q, R]) *Batcher[Q, R] {
	b := New(opts, workers...)
	if b.opts.CPUOffload > 0 && one != nil {
		b.offload = newOffload(one, b.opts.CPUOffload, func(now int64) int64 {
			return b.inBatches.Load() + b.intake.recentWaiting(now)
		})
		b.offload.hold = b.opts.MaxDelay
	}
	return b
}

// offload is a Batcher's CPU path (NewWithCPU).
type offload[Q, R any] struct {
	cpu   func(Q) (R, error) // one request (NewWithCPU: the RunFunc around it)
	slots int32              // Options.CPUOffload

	// running counts the requests computing on the CPU now (at most
	// slots), reserved by compare-and-swap: no lock that every request
	// takes. A request that waits for a slot (waitSlot) blocks on freed,
	// which a release signals while some wait: it is not runnable
	// meanwhile, so the goroutines of the batched path keep their share of
	// the cores.
	running  atomic.Int32
	queueing atomic.Int32 // requests waiting for a slot
	freed    chan struct{}
	// batched is how many requests are on the batched path at now (a
	// stamp): those in the batches running and those waiting, a sum of
	// the intake's shards at most sumFresh old (no count per request)
	batched     func(now int64) int64
	hold        time.Duration // Options.MaxDelay: the least batched wait the rules assume
	cpuTime     movingAverage
	batchedWait movingAverage
	onCPU       counter // requests computed on the CPU so far
}

func newOffload[Q, R any](cpu func(Q) (R, error), slots int, batched func(now int64) int64) *offload[Q, R] {
	return &offload[Q, R]{cpu: cpu, slots: int32(slots), freed: make(chan struct{}, slots), batched: batched}
}

// A verdict is where take sends a request.
type verdict int

const (
	toBatch    verdict = iota // the batched path
	toCPU                     // the CPU path, in the slot take reserved
	toCPUQueue                // the CPU path, once a slot is free (waitSlot)
)

// take decides where the next request, arriving at now (a stamp), goes:
// to the CPU path where it finishes there first, at once in a free slot
// (reserved for it) or after the requests waiting for one, if the wait
// and its own time end before a batch would; else to the batched path.
func (o *offload[Q, R]) take(now int64) verdict {
	wait, waitKnown := o.batchedWait.get()
	// a request sent to the batches may be held for company for up to
	// MaxDelay: a lone request's measured wait, often shorter, is not what
	// the load that would move there would see
	wait = max(wait, o.hold)
	cost, costKnown := o.cpuTime.get()
	if costKnown && o.cpuTime.probe(now) && o.queueing.Load() == 0 && o.reserve() {
		// renew the CPU's estimate, in a free slot, whatever the rules
		// below say: one that they send nothing to the CPU by is
		// renewed by nothing else
		return toCPU
	}
	if costKnown && (!waitKnown || cost >= wait) {
		return toBatch // the CPU is slower than the batches, or they are unmeasured
	}
	if costKnown && waitKnown && o.load(now) >= int64(o.slots)*int64(wait/max(cost, 1)) {
		return toBatch // the CPU slots would take longer than a batch's wait to finish the load: the device's
	}
	if waitKnown && o.batchedWait.probe(now) {
		return toBatch // renew the batched path's estimate (also while every CPU slot is taken)
	}
	if waitKnown && host.isBusy(now) {
		return toBatch // the host's cores are all busy: a request on them costs more than its wait saves
	}
	if o.queueing.Load() == 0 && o.reserve() {
		return toCPU
	}
	if !costKnown || !waitKnown {
		return toBatch
	}
	// every slot taken: wait for one where the requests ahead (a round
	// of the slots per slots of them) and its own time end first
	ahead := int64(o.queueing.Load()) + 1
	if time.Duration(1+(ahead+int64(o.slots)-1)/int64(o.slots))*cost < wait {
		return toCPUQueue
	}
	return toBatch
}

// load is about how many requests are in flight at now (a stamp): those
// on the batched path, those computing on the CPU and those waiting for a
// CPU slot. Counting the CPU path's own requests is what lets a load that
// the CPU path took while it was light go back to the batches as it
// grows: with the batched path's count alone, a load all on the CPU path
// counted as none. The batched path's count is a sum of the intake's
// shards, not one shard's count times the shards: with a few requests
// batched that estimate read them tens of times over, and sent a load
// that the cores finish first to the batches.
func (o *offload[Q, R]) load(now int64) int64 {
	return o.batched(now) + int64(o.running.Load()) + int64(o.queueing.Load())
}

// waitSlot waits for a slot of the CPU path (after take said
// toCPUQueue), or until ctx ends (its error; nil ctx: no end).
func (o *offload[Q, R]) waitSlot(ctx context.Context) error {
	o.queueing.Add(1)
	defer o.queueing.Add(-1)
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	for !o.reserve() {
		// a release after the failed reserve leaves its signal in freed
		// (buffered): this wait does not miss it
		select {
		case <-o.freed:
		case <-done:
			return ctx.Err()
		}
	}
	return nil
}

// reserve takes a free slot, if there is one.
func (o *offload[Q, R]) reserve() bool {
	for {
		n := o.running.Load()
		if n >= o.slots {
			return false
		}
		if o.running.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// unreserve gives back a slot that take reserved, and signals a request
// waiting for one.
func (o *offload[Q, R]) unreserve() {
	o.running.Add(-1)
	if o.queueing.Load() > 0 {
		select {
		case o.freed <- struct{}{}:
		default: // as many signals pending as slots: the waiters have enough
		}
	}
}

// run computes req, which arrived at start (a stamp), on the CPU in a
// slot reserved by take, and counts it in meter. It reads the clock only
// for the requests it samples: for the CPU time's estimate where that is
// claimed (sampleEvery), and for the Meter's latencies (cpuDone).
func (o *offload[Q, R]) run(req Q, start int64, meter *Meter) (R, error) {
	defer o.unreserve()
	var val R
	var err error
	if o.cpuTime.claim(start) {
		var took time.Duration
		val, err, took = o.sampled(req)
		if err == nil {
			o.cpuTime.observe(took)
		}
	} else {
		val, err = o.cpu(req)
	}
	cost, _ := o.cpuTime.get()
	host.offloaded(cost) // the estimate, not this request's own time: no clock reading
	o.onCPU.add(1)
	meter.cpuDone(start)
	return val, err
}

// sampled computes req and measures the CPU time it took: its thread's
// CPU time, the thread held for it, where the system has a clock for
// that, else its wall time. A request's wall time also counts the time
// its thread waited for a core, which grows while the host's cores are
// taken by other work (the device's batches' host work, the threads of a
// driver): an estimate fed with it grew to several times a request's cost
// and sent a load that the cores finish first to the batches, whose host
// work then kept it high.
func (o *offload[Q, R]) sampled(req Q) (val R, err error, took time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	began := stampNow()
	threadBegan, ok := cputime.Thread()
	val, err = o.cpu(req)
	if threadEnded, ok2 := cputime.Thread(); ok && ok2 {
		return val, err, threadEnded - threadBegan
	}
	return val, err, time.Duration(stampNow() - began)
}

// OnCPU is the number of requests computed on the CPU path so far (0
// without NewWithCPU).
func (b *Batcher[Q, R]) OnCPU() int64 {
	if b.offload == nil {
		return 0
	}
	return b.offload.onCPU.load()
}

// movingAverage is an exponentially weighted average of durations (weight
// 1/8 for each new one), safe for concurrent use; an update that races
// another may be lost, which an estimate can afford. A sample counts as at
// most four times the average, so that one outlier (a first use that
// builds something, a pause) does not shut a path for the many seconds
// the renewals would need to wash it out; a lasting rise still shows
// within a few samples.
//
// A probe renews a stale estimate (probe): the first sample after it
// replaces an estimate above it rather than moving it by an eighth. An
// estimate left high by a moment of heavy load, or by a first batch that
// built its programs, would otherwise need dozens of probes to come down,
// and meanwhile send the load down the other path.
type movingAverage struct {
	ns     atomic.Int64 // 0: nothing observed yet
	last   atomic.Int64 // time of the last observation, a stamp
	probed atomic.Int64 // time of the last probe, a stamp
	renew  atomic.Bool  // a probe is out: its sample replaces a higher estimate
}

// staleAfter is how old an estimate may grow before a request is sent to
// renew it: short enough that an estimate left by a heavier load (a wait
// of tens of milliseconds) is renewed before a load a few hundred
// milliseconds long has run on the wrong path, long enough that the probes
// cost a lone caller about one request in a hundred of its time.
const staleAfter = int64(250 * time.Millisecond)

func (m *movingAverage) observe(d time.Duration) {
	m.observeAt(d, stampNow())
}

func (m *movingAverage) observeAt(d time.Duration, now int64) {
	ns := max(int64(d), 1)
	if old := m.ns.Load(); old != 0 {
		renewed := m.renew.Load() && m.renew.CompareAndSwap(true, false) && ns < old
		if !renewed {
			ns = old + (min(ns, 4*old)-old)/8
		}
	}
	m.ns.Store(max(ns, 1))
	m.last.Store(now)
}

// claim reports whether a request that started at start is to be
// sampled, and claims the sample: where the last observation (or claim)
// is older than sampleEvery, for one request of those that look at once.
// Callers on many cores then rarely write the average's cache line, and
// a sample that costs system calls (the thread's CPU clock, sampled) is
// taken once per period, not by every request that starts before the
// last sample ends.
func (m *movingAverage) claim(start int64) bool {
	last := m.last.Load()
	return start-last >= sampleEvery && m.last.CompareAndSwap(last, start)
}

// sampleEvery is the least time between samples of a moving average.
const sampleEvery = int64(100 * time.Microsecond)

// probe reports whether the estimate is older than staleAfter at now; one
// caller per period gets true (and should renew it: send a request down
// the path, whose sample then counts in full where it is lower). The
// probe's own time is kept apart from the last observation's, so that
// the probe's request may claim a sample (claim).
func (m *movingAverage) probe(now int64) bool {
	if now-m.last.Load() <= staleAfter {
		return false
	}
	probed := m.probed.Load()
	if now-probed <= staleAfter || !m.probed.CompareAndSwap(probed, now) {
		return false
	}
	m.renew.Store(true)
	return true
}

func (m *movingAverage) get() (time.Duration, bool) {
	ns := m.ns.Load()
	return time.Duration(ns), ns != 0
}
