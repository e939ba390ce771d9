//go:build unix

// Package cputime reads the CPU time of this process and of a thread: the
// Servers' CPU path (batch) and the benchmarks of the command-line tool
// use it.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time (user and system) of this process so far;
// false where the system does not say.
func Process() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
