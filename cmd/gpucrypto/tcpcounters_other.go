//go:build !linux

package main

// readTCPCounters: the kernel's TCP counters are read on Linux only.
func readTCPCounters() (tcpCounters, bool) { return tcpCounters{}, false }

// listenBacklog: not known here.
func listenBacklog() int { return 0 }

// readCPUTimes: per-CPU times are read on Linux only.
func readCPUTimes() (busy, total map[int]int64, ok bool) { return nil, nil, false }
