//go:build !linux

package main

// readTCPCounters: the kernel's TCP counters are read on Linux only.
func readTCPCounters() (tcpCounters, bool) { return tcpCounters{}, false }

// listenBacklog: not known here.
func listenBacklog() int { return 0 }
