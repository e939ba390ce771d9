package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Thread is the CPU time of the calling thread so far (CLOCK_THREAD_CPUTIME_ID):
// a goroutine that measures its own work with it holds its thread
// (runtime.LockOSThread) between the two readings. False where the system
// does not say.
func Thread() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
