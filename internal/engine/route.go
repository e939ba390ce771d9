package engine

import (
	"math/bits"
	"runtime"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
)

// The choice between device and CPU (batch.RouteAuto) compares two
// measured times for the call's shape (Plan.Op and Plan.Size):
//
//   - the CPU's: its time for calls of the size class where it computed
//     some; elsewhere, a call of n elements on P cores takes r = ⌈n/P⌉
//     rounds of one element per core (the CPU paths spread elements over
//     the cores), and a time a + c·r: c the cost of a round, a what
//     starting the cores costs, fitted to the calls the CPU computed
//     (cpuTime);
//   - the device's: its time for a call of about n elements, kept per
//     batch size class (n in [2^k, 2^(k+1))): a device call costs a
//     floor of latency (copies, launches, the kernels' length) that small
//     batches do not amortize, so its time is not proportional to n.
//
// Each is a moving average of the calls measured. A call goes to the
// device where its predicted time is below nine tenths of the CPU's
// (near a tie the CPU wins: it is what the CPU engine would take, and a
// path that flips with the noise costs more than either). What is unknown
// is measured first: a call of at most P elements goes to the CPU (one
// element per core: the cost of one element), a larger one to the
// device, with its first P elements computed on the CPU at the same time
// (their results are the same either way), which measures the CPU at no
// cost to the call's time. A size class with no device time yet goes to
// the device unless smaller classes already took more than twice the
// CPU's time.
//
// Times grow stale as the load changes: a time not renewed for a while
// is renewed after a second: the CPU's by computing the first elements of
// a device call on it (cpuPrefix), or the whole call where it has too few
// elements for that (at most P), the device's by sending it one call of
// the size class. The wait before renewing a size class that lost doubles
// each time it loses again, up to a minute, so that a path that always
// loses (the CPU device of PoCL, say) costs ever less, and one whose
// first times were too high (a first call that prepared its keys) is
// tried again.

const (
	renewFirst = time.Second
	renewMost  = time.Minute
	// sizeClasses covers batches of up to 2^40 elements.
	sizeClasses = 41
)

type shapeKey struct {
	op   string
	size int
}

// deviceMargin is how much faster than the CPU the device must be
// predicted to get a call.
const deviceMargin = 0.9

// shape is what the Core knows of one shape's times.
type shape struct {
	cpu    cpuTime
	device [sizeClasses]average // ns per call, by size class of n
	// cpuClass is the CPU's time per call by size class, where the CPU
	// computed calls of that class: it wins over the fit (elements that
	// run on every core at once cost more each than one alone, on cores
	// of two threads or with a clock that drops under load, which the
	// fit's rounds do not see).
	cpuClass [sizeClasses]average
}

// cpuPredict is the CPU's time of a call of n elements: the class's own,
// measured within renewMost, else the fit's.
func (s *shape) cpuPredict(n int, now time.Time) float64 {
	if c := &s.cpuClass[sizeClass(n)]; c.ns > 0 && now.Sub(c.at) < renewMost {
		return c.ns
	}
	return s.cpu.predict(rounds(n))
}

// cpuTime is the CPU's time of a call of r rounds, a + c·r, fitted by
// least squares to the calls measured, each weighing a quarter more than
// the one before it (moving sums), and when it was last renewed. Guarded
// by estimates.mu.
type cpuTime struct {
	w, r, t, rr, rt float64 // sums of the weights, r, t, r², r·t
	at              time.Time
}

// known reports whether a call was measured.
func (f *cpuTime) known() bool { return f.w > 0 }

// fit returns a and c: the per-round cost alone (a = 0) while the rounds
// measured are too alike to tell the two apart.
func (f *cpuTime) fit() (a, c float64) {
	if f.w == 0 {
		return 0, 0
	}
	den := f.w*f.rr - f.r*f.r
	if den > 0.01*f.w*f.rr {
		c = (f.w*f.rt - f.r*f.t) / den
		a = (f.t - c*f.r) / f.w
		if c > 0 && a >= 0 {
			return a, c
		}
	}
	return 0, f.t / f.r
}

// predict is the time of a call of r rounds (0: unknown).
func (f *cpuTime) predict(r int) float64 {
	a, c := f.fit()
	return a + c*float64(r)
}

// observe adds a call of r rounds that took ns (a sample above four times
// the prediction counts as four times it: an outlier must not shut a
// path for long).
func (f *cpuTime) observe(r int, ns float64, now time.Time) {
	if p := f.predict(r); p > 0 {
		ns = min(ns, 4*p)
	}
	const keep = 0.75
	x := float64(r)
	f.w, f.r, f.t = keep*f.w+1, keep*f.r+x, keep*f.t+ns
	f.rr, f.rt = keep*f.rr+x*x, keep*f.rt+x*ns
	f.at = now
}

// stale reports whether the CPU's time is due for renewal at now.
func (f *cpuTime) stale(now time.Time) bool { return now.Sub(f.at) > renewFirst }

// average is a moving average of durations, with the time of its last
// renewal and the wait before the next. Guarded by estimates.mu.
type average struct {
	ns       float64 // 0: not measured
	at       time.Time
	renew    time.Duration // wait from at before renewing (0: renewFirst)
	renewing bool          // claimed: the next measurement replaces ns
}

// observe adds a measurement (weight 1/4; one at most four times the
// average counts as four times: an outlier, a first call that builds a
// program, must not shut a path for long). A renewal's measurement
// replaces the average: the path lost on the old one, which may be an
// outlier of the past (a first call that prepared its keys) that a
// quarter weight would take many renewals, minutes apart, to wash out.
func (a *average) observe(ns float64, now time.Time) {
	ns = max(ns, 1)
	if a.ns == 0 || a.renewing {
		a.ns, a.renewing = ns, false
	} else {
		a.ns += (min(ns, 4*a.ns) - a.ns) / 4
	}
	a.at = now
}

// stale reports whether a is due for renewal at now.
func (a *average) stale(now time.Time) bool {
	wait := a.renew
	if wait == 0 {
		wait = renewFirst
	}
	return now.Sub(a.at) > wait
}

// claim marks a as being renewed (one caller per period) and doubles the
// wait before the next renewal (a path that wins resets it).
func (a *average) claim(now time.Time) {
	a.at, a.renewing = now, true
	a.renew = min(max(2*a.renew, renewFirst), renewMost)
}

// estimates are a Core's measured times, by shape.
type estimates struct {
	mu     sync.Mutex
	shapes map[shapeKey]*shape
}

func (e *estimates) get(p Plan) *shape {
	k := shapeKey{p.Op, p.Size}
	s := e.shapes[k]
	if s == nil {
		s = &shape{}
		e.shapes[k] = s
	}
	return s
}

// sizeClass is the class of a batch of n ≥ 1 elements.
func sizeClass(n int) int { return min(bits.Len(uint(n))-1, sizeClasses-1) }

// rounds is the number of rounds of one element per core that n elements
// take on the CPU.
func rounds(n int) int {
	p := runtime.GOMAXPROCS(0)
	return (n + p - 1) / p
}

// choice is where a call runs: on the device (with its first cpuPrefix
// elements on the CPU) or on the CPU.
type choice struct {
	device    bool
	cpuPrefix int
}

// choose picks the path of call p.
func (c *Core) choose(p Plan) choice {
	if c.dev == nil {
		return choice{}
	}
	switch batch.Route(c.route.Load()) {
	case batch.RouteDevice:
		return choice{device: true}
	case batch.RouteCPU:
		return choice{}
	}
	return c.times.choose(p, time.Now())
}

func (e *estimates) choose(p Plan, now time.Time) choice {
	P := runtime.GOMAXPROCS(0)
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.get(p)
	k := sizeClass(p.N)
	dev := &s.device[k]
	cpuKnown, devKnown := s.cpu.known(), dev.ns > 0
	cpuTime := s.cpuPredict(p.N, now)
	prefix := 0
	if p.N > P && (!cpuKnown || s.cpu.stale(now)) {
		_, c := s.cpu.fit()
		prefix = cpuPrefix(P, p.N, c, dev.ns)
		s.cpu.at = now // one caller renews it
	}
	switch {
	case !cpuKnown && p.N <= P:
		return choice{}
	case !cpuKnown:
		return choice{device: true, cpuPrefix: prefix}
	case !devKnown:
		if below := s.deviceBelow(k); below > 2*cpuTime {
			return choice{}
		}
		return choice{device: true, cpuPrefix: prefix}
	case dev.ns >= deviceMargin*cpuTime:
		if dev.stale(now) {
			dev.claim(now)
			return choice{device: true}
		}
		return choice{}
	case p.N <= P && s.cpuClass[k].ns > 0 && s.cpuClass[k].stale(now):
		// too few elements for a prefix: the CPU renews its time with
		// the whole call, at a pace that slows while it keeps losing
		s.cpuClass[k].claim(now)
		return choice{}
	default:
		return choice{device: true, cpuPrefix: prefix}
	}
}

// cpuPrefix is how many of a device call's n elements the CPU computes
// to renew its time: one round (P elements, one per core) while its time
// is unknown; else as many rounds as take about prefixTime (cheap
// elements need many for a measure above the cost of starting the cores)
// but no more than a sixteenth of the device's time (the prefix takes
// the cores the device's batches need for their host work), and at most
// half the call.
func cpuPrefix(P, n int, cpuRound, device float64) int {
	rounds := 1
	if cpuRound > 0 {
		rounds = int(min(float64(prefixTime), device/16) / cpuRound)
	}
	return max(min(max(rounds, 1)*P, n/2), 1)
}

// prefixTime is about how long a renewal of the CPU's time computes.
const prefixTime = time.Millisecond

// deviceBelow is the longest device time of a size class below k (a
// device call takes at least as long as a smaller one), 0 if none is
// known.
func (s *shape) deviceBelow(k int) float64 {
	var t float64
	for j := range k {
		t = max(t, s.device[j].ns)
	}
	return t
}

// cpuDone adds a CPU computation of n elements that took d.
func (e *estimates) cpuDone(p Plan, n int, d time.Duration) {
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.get(p)
	s.cpu.observe(rounds(n), float64(d), now)
	class := &s.cpuClass[sizeClass(n)]
	class.observe(float64(d), now)
	if dev := s.device[sizeClass(n)].ns; dev == 0 || dev >= deviceMargin*float64(d) {
		class.renew = 0 // the CPU won: renew it at the normal pace when it loses
	}
}

// deviceDone adds a device call of n elements that took d.
func (e *estimates) deviceDone(p Plan, n int, d time.Duration) {
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.get(p)
	dev := &s.device[sizeClass(n)]
	dev.observe(float64(d), now)
	if !s.cpu.known() || float64(d) < deviceMargin*s.cpuPredict(n, now) {
		dev.renew = 0 // the device won: renew it at the normal pace when it loses
	}
}
