package cputime

import "time"

// A ThreadReading is one thread's CPU time at a moment (Thread).
//
// A goroutine that measures its own work with two readings need not hold
// its thread (runtime.LockOSThread): a held thread that the scheduler
// takes the goroutine off (preempted, or blocked in the runtime, as an
// allocation that assists the collector is) must hand its P to another
// thread and sleep until the goroutine can run again, two thread wakes
// that cost more than the work measured. Unheld, the goroutine may move to
// another thread; Since then says so, and the two readings are of two
// clocks that cannot be compared.
type ThreadReading struct {
	thread int
	cpu    time.Duration
}

// Since is the calling thread's CPU time since r: false where the calling
// thread is not r's (the goroutine moved) or the system does not say. The
// time counts whatever else the thread ran meanwhile, so it is at least
// the work's own and at most the wall time between the readings.
func (r ThreadReading) Since() (time.Duration, bool) {
	now, ok := Thread()
	if !ok || now.thread != r.thread {
		return 0, false
	}
	return now.cpu - r.cpu, true
}
