package main

// cpuSample is /proc/stat's busy and total ticks of each CPU at one time
// (readCPUTimes); ok is false where they could not be read.
type cpuSample struct {
	busy, total map[int]int64
	ok          bool
}

// busyShare is the share of the time of cpus between a and b that was
// not idle, whatever ran (either process, the kernel's network work, or
// something else); -1 where it is not known.
func busyShare(a, b cpuSample, cpus []int) float64 {
	if !a.ok || !b.ok {
		return -1
	}
	var busy, total int64
	for _, c := range cpus {
		busy += b.busy[c] - a.busy[c]
		total += b.total[c] - a.total[c]
	}
	if total <= 0 {
		return -1
	}
	return float64(busy) / float64(total)
}
