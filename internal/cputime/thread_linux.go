package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Thread reads the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID)
// and which thread it is; false where the system does not say.
func Thread() (ThreadReading, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return ThreadReading{}, false
	}
	return ThreadReading{thread: unix.Gettid(), cpu: time.Duration(ts.Nano())}, true
}
