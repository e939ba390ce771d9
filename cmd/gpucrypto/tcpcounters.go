package main

import "fmt"

// tcpCounters are the kernel's counters that say whether loopback TCP,
// not the server or the clients, bounded `bench tls --deployed`: a full
// listen queue drops connection attempts, and each dropped SYN is sent
// again only after the kernel's retransmission timeout (a second at
// first), while the clients' and the server's CPUs wait.
type tcpCounters struct {
	ListenOverflows int64 `json:"listen_overflows"` // the accept queue was full
	ListenDrops     int64 `json:"listen_drops"`     // connection attempts dropped at a listening socket
	SynRetransmits  int64 `json:"syn_retransmits"`  // SYNs and SYN-ACKs sent again
}

func (c tcpCounters) sub(d tcpCounters) tcpCounters {
	return tcpCounters{c.ListenOverflows - d.ListenOverflows, c.ListenDrops - d.ListenDrops, c.SynRetransmits - d.SynRetransmits}
}

// String says the counters in a few words: "no drops" or the counts.
func (c *tcpCounters) String() string {
	if c == nil {
		return "TCP drops not known"
	}
	if *c == (tcpCounters{}) {
		return "no drops"
	}
	return fmt.Sprintf("listen overflows %d, drops %d, SYNs sent again %d", c.ListenOverflows, c.ListenDrops, c.SynRetransmits)
}

// cpuSample is /proc/stat's busy and total ticks of each CPU at one time.
type cpuSample struct {
	busy, total map[int]int64
	ok          bool
}

func sampleCPUs() cpuSample {
	b, t, ok := readCPUTimes()
	return cpuSample{b, t, ok}
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
