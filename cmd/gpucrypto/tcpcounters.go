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
