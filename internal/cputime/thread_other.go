//go:build !linux

package cputime

// Thread reads the calling thread's CPU time and which thread it is;
// false where the system does not say (here).
func Thread() (ThreadReading, bool) { return ThreadReading{}, false }
