//go:build linux

package main

import (
	"strings"
	"testing"
)

func TestParseTCPCounters(t *testing.T) {
	text := "TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPSynRetrans\n" +
		"TcpExt: 0 17 23 41\n" +
		"IpExt: InNoRoutes ListenDrops\n" +
		"IpExt: 5 99\n"
	c, ok := parseTCPCounters(strings.NewReader(text))
	if !ok || c != (tcpCounters{ListenOverflows: 17, ListenDrops: 23, SynRetransmits: 41}) {
		t.Fatalf("got %+v, %v", c, ok)
	}
	if _, ok := parseTCPCounters(strings.NewReader("IpExt: a\nIpExt: 1\n")); ok {
		t.Fatal("no TcpExt lines read as counters")
	}
	if got := c.sub(tcpCounters{1, 2, 3}); got != (tcpCounters{16, 21, 38}) {
		t.Fatalf("sub: %+v", got)
	}
}
