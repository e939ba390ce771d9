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
// into batches for the device. With CPUOffload left to its default the
// slots hold only while the batched path has work: with none, the
// requests that the cores finish first compute at once, each in its own
// goroutine, as crypto/* called from as many goroutines would. Whatever
// the estimates say, the CPU path holds at most 32 requests a core
// (cpuPathPerCore), those waiting for a slot counted, or CPUOffload's
// figure where that is more.
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
// for a CPU slot) than the cores could finish in w (cores·w/c): beyond
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
		b.offload = newOffload(one, b.opts.CPUOffload, runtime.GOMAXPROCS(0), func(now int64) int64 {
			return b.inBatches.Load() + b.intake.recentWaiting(now)
		})
		b.offload.hold = b.opts.MaxDelay
		b.offload.beyondSlots = opts.CPUOffload == 0
	}
	return b
}

// offload is a Batcher's CPU path (NewWithCPU).
type offload[Q, R any] struct {
	cpu   func(Q) (R, error) // one request (NewWithCPU: the RunFunc around it)
	slots int32              // Options.CPUOffload
	// cores is how many requests the CPU path computes at once at full
	// speed (GOMAXPROCS, at most slots): the rules that weigh the load
	// against a batch's wait count these, not the slots, which may be
	// more so that a request that leaves its core in the runtime (an
	// allocation that assists the collector, a system call) does not
	// leave the core idle
	cores int32
	// beyondSlots: while the batched path is idle the CPU path takes
	// requests beyond the slots (reserve), as the load rule allows; the
	// default of Options.CPUOffload (zero), where a caller's own figure
	// bounds the CPU path at all times
	beyondSlots bool

	// running counts the requests computing on the CPU now (at most
	// slots, but while the batched path is idle: reserve), reserved by
	// compare-and-swap: no lock that every request
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
	batched func(now int64) int64
	hold    time.Duration // Options.MaxDelay: the least batched wait the rules assume
	cpuTime movingAverage
	// threadSampled is when a sample of a thread's CPU time last renewed
	// cpuTime (a stamp; counts)
	threadSampled atomic.Int64
	batchedWait   movingAverage
	onCPU         counter // requests computed on the CPU so far
}

func newOffload[Q, R any](cpu func(Q) (R, error), slots, cores int, batched func(now int64) int64) *offload[Q, R] {
	cores = min(cores, slots)
	return &offload[Q, R]{cpu: cpu, slots: int32(slots), cores: int32(cores), freed: make(chan struct{}, slots), batched: batched}
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
	batched := o.batched(now)
	idle := o.idle(now, batched)
	if costKnown && o.cpuTime.probe(now) && o.queueing.Load() == 0 && o.reserve(idle) {
		// renew the CPU's estimate, in a free slot, whatever the rules
		// below say: one that they send nothing to the CPU by is
		// renewed by nothing else
		return toCPU
	}
	if costKnown && (!waitKnown || cost >= wait) {
		return toBatch // the CPU is slower than the batches, or they are unmeasured
	}
	if costKnown && waitKnown && batched+o.onCPUPath() >= int64(o.cores)*int64(wait/max(cost, 1)) {
		return toBatch // the cores would take longer than a batch's wait to finish the load: the device's
	}
	if waitKnown && o.batchedWait.probe(now) {
		return toBatch // renew the batched path's estimate (also while every CPU slot is taken)
	}
	if waitKnown && host.isBusy(now) {
		return toBatch // the host's cores are all busy: a request on them costs more than its wait saves
	}
	if (o.queueing.Load() == 0 || idle) && o.reserve(idle) {
		return toCPU
	}
	if !costKnown || !waitKnown {
		return toBatch
	}
	// every slot taken: wait for one where the requests ahead, those
	// running included, and its own end first on the cores (a round of
	// the cores per cores of them), within the CPU path's bound
	ahead := o.onCPUPath() + 1
	if ahead <= o.cpuPathBound() && time.Duration((ahead+int64(o.cores)-1)/int64(o.cores))*cost < wait {
		return toCPUQueue
	}
	return toBatch
}

// onCPUPath is how many requests are on the CPU path: computing and
// waiting for a slot. The load that take weighs is these and the batched
// ones (batched). Counting the CPU path's own requests is what lets a
// load that the CPU path took while it was light go back to the batches
// as it grows: with the batched path's count alone, a load all on the CPU
// path counted as none. The batched path's count is a sum of the intake's
// shards, not one shard's count times the shards: with a few requests
// batched that estimate read them tens of times over, and sent a load
// that the cores finish first to the batches.
func (o *offload[Q, R]) onCPUPath() int64 {
	return int64(o.running.Load()) + int64(o.queueing.Load())
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
	for {
		if now := stampNow(); o.reserve(o.idle(now, o.batched(now))) {
			return nil
		}
		// a release after the failed reserve leaves its signal in freed
		// (buffered): this wait does not miss it
		select {
		case <-o.freed:
		case <-done:
			return ctx.Err()
		}
	}
}

// idle reports whether the batched path, with batched requests on it at
// now (a stamp), is idle, for a CPU path whose slots hold only while it
// is not (beyondSlots): none batched, none answered for a batch's wait (a
// load between two batches is not idle), and fewer than cpuPathPerCore
// requests a core on the CPU path.
func (o *offload[Q, R]) idle(now, batched int64) bool {
	if !o.beyondSlots || batched != 0 || o.onCPUPath() >= o.cpuPathBound() {
		return false
	}
	wait, _ := o.batchedWait.get()
	return now-o.batchedWait.last.Load() > int64(max(wait, o.hold))
}

// cpuPathPerCore bounds the requests on the CPU path, a core: those
// computing beyond the slots while the batched path is idle (idle), and
// those waiting for a slot (take). Up to a few hundred requests on a
// machine of a few dozen cores compute at once, as crypto/* called from
// as many goroutines would, every core kept busy while a request leaves
// it in the runtime. A heavier load is the device's, even where the load
// rule would leave it on the CPU: a deeper queue adds no throughput (32 a
// core keep the cores busy), only waits, and it keeps the device from
// the load whose wait would correct the estimate. Thousands of requests
// on the CPU path take the cores from the batches' host work, the batched
// wait grows with them (the few requests still batched wait for a core
// at every step), and the load rule then keeps them on the CPU path for
// good: a probe's lower wait lasts until the next slow samples.
const cpuPathPerCore = 32

// cpuPathBound is the most requests the CPU path holds: cpuPathPerCore
// a core, or a caller's CPUOffload where that is more.
func (o *offload[Q, R]) cpuPathBound() int64 {
	return max(cpuPathPerCore*int64(o.cores), int64(o.slots))
}

// reserve takes a free slot, if there is one; where idle (the batched
// path is, and the Options left CPUOffload to its default), a slot beyond
// the slots. The slots keep the CPU path's requests from taking the cores
// that the batches' host work needs; with nothing batched they would only
// leave a core idle whenever a request leaves it in the runtime (an
// allocation that assists the collector or waits for it, a system call),
// as crypto/ecdsa's signing often does, where as many goroutines as
// requests, crypto/*'s way, keep every core busy. The load rule of take
// bounds the requests then.
func (o *offload[Q, R]) reserve(idle bool) bool {
	if idle {
		o.running.Add(1)
		return true
	}
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
		var onThread bool
		val, err, took, onThread = o.sampled(req)
		if now := stampNow(); err == nil && o.counts(onThread, now) {
			o.cpuTime.observeAt(took, now)
			if onThread {
				o.threadSampled.Store(now)
			}
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
// CPU time (onThread), where the system has a clock for that and the
// goroutine stayed on its thread, else its wall time (counts says when
// that counts). The thread is not held (cputime.ThreadReading says why).
func (o *offload[Q, R]) sampled(req Q) (val R, err error, took time.Duration, onThread bool) {
	began := stampNow()
	thread, threadOK := cputime.Thread()
	val, err = o.cpu(req)
	if threadOK {
		if took, ok := thread.Since(); ok {
			return val, err, took, true
		}
	}
	return val, err, time.Duration(stampNow() - began), false
}

// counts reports whether a sample taken at now renews the CPU time's
// estimate: one of the thread's CPU time (onThread) always; one of wall
// time (the goroutine moved to another thread, or the system has no
// thread clock) only where no thread's sample has renewed the estimate
// for staleAfter, or none has yet. A wall time counts the time the
// goroutine waited off its core, parked (an allocation that waits for
// the collector) or among more goroutines than cores: with hundreds of
// callers the moved samples held the estimate above a request's cost,
// and the load rule sent to the batches a load that the cores finish
// first, leaving most of them idle. But a long request moves nearly
// always (preempted on a loaded machine): dropping its wall times would
// leave its estimate unmeasured, and an unmeasured CPU takes every
// request.
func (o *offload[Q, R]) counts(onThread bool, now int64) bool {
	last := o.threadSampled.Load()
	return onThread || last == 0 || now-last > staleAfter
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
