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
//   - the CPU's: its time per round of one element per core, from the
//     calls it computed (a call of n elements on P cores takes ⌈n/P⌉
//     rounds: the CPU paths spread elements over the cores);
//   - the device's: its time for a call of about n elements, kept per
//     batch size class (n in [2^k, 2^(k+1))): a device call costs a
//     floor of latency (copies, launches, the kernels' length) that small
//     batches do not amortize, so its time is not proportional to n.
//
// Each time is a moving average of the calls measured. A call goes where
// its predicted time is lower. What is unknown is measured first: a
// call of at most P elements goes to the CPU (one element per core: the
// cost of one element), a larger one to the device, with its first P
// elements computed on the CPU at the same time (their results are the
// same either way), which measures the CPU at no cost to the call's
// time. A size class with no device time yet goes to the device unless
// smaller classes already took more than twice the CPU's time.
//
// Times grow stale as the load changes: a time not renewed for a while
// is renewed after a second: the CPU's by computing the first P elements
// of a device call on it, the device's by sending it one call of the size
// class. The wait before renewing a device size class that lost doubles
// each time it loses again, up to a minute, so that a device that always
// loses (the CPU device of PoCL, say) costs ever less.

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

// shape is what the Core knows of one shape's times.
type shape struct {
	cpu    average              // ns per round of one element per core
	device [sizeClasses]average // ns per call, by size class of n
}

// average is a moving average of durations, with the time of its last
// renewal and the wait before the next. Guarded by estimates.mu.
type average struct {
	ns    float64 // 0: not measured
	at    time.Time
	renew time.Duration // wait from at before renewing (0: renewFirst)
}

// observe adds a measurement (weight 1/4; one at most four times the
// average counts as four times: an outlier, a first call that builds a
// program, must not shut a path for long).
func (a *average) observe(ns float64, now time.Time) {
	ns = max(ns, 1)
	if a.ns == 0 {
		a.ns = ns
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

// claim marks a as being renewed (one caller per period); with backoff
// it doubles the wait before the next renewal (a path that wins resets
// it).
func (a *average) claim(now time.Time, backoff bool) {
	a.at = now
	if backoff {
		a.renew = min(max(2*a.renew, renewFirst), renewMost)
	}
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
	cpuKnown, devKnown := s.cpu.ns > 0, dev.ns > 0
	cpuTime := s.cpu.ns * float64(rounds(p.N))
	prefix := 0
	if p.N > P && (!cpuKnown || s.cpu.stale(now)) {
		prefix = cpuPrefix(P, p.N, s.cpu.ns, dev.ns)
		s.cpu.claim(now, false) // costs the call nothing: no backoff
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
	case cpuTime < dev.ns:
		if dev.stale(now) {
			dev.claim(now, true)
			return choice{device: true}
		}
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
	e.get(p).cpu.observe(float64(d)/float64(rounds(n)), now)
}

// deviceDone adds a device call of n elements that took d.
func (e *estimates) deviceDone(p Plan, n int, d time.Duration) {
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.get(p)
	dev := &s.device[sizeClass(n)]
	dev.observe(float64(d), now)
	if s.cpu.ns == 0 || float64(d) <= s.cpu.ns*float64(rounds(n)) {
		dev.renew = 0 // the device won: renew it at the normal pace when it loses
	}
}
