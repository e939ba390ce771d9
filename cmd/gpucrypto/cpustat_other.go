//go:build !linux

package main

// readCPUTimes: per-CPU times are read on Linux only.
func readCPUTimes() cpuSample { return cpuSample{} }
