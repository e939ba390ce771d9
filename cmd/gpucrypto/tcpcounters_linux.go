//go:build linux

package main

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// readTCPCounters reads the kernel's TCP counters of this network
// namespace from /proc/net/netstat (TcpExt): connection attempts the
// listen queue refused, and SYNs sent again after a drop. ok is false
// where the file cannot be read.
func readTCPCounters() (c tcpCounters, ok bool) {
	f, err := os.Open("/proc/net/netstat")
	if err != nil {
		return c, false
	}
	defer f.Close()
	return parseTCPCounters(f)
}

// parseTCPCounters reads the counters from /proc/net/netstat's text.
func parseTCPCounters(r io.Reader) (c tcpCounters, ok bool) {
	// The file holds pairs of lines: "TcpExt: name name ..." then
	// "TcpExt: value value ...".
	var names []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "TcpExt:" {
			continue
		}
		if names == nil {
			names = fields[1:]
			continue
		}
		for i, v := range fields[1:] {
			if i >= len(names) {
				break
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				continue
			}
			switch names[i] {
			case "ListenOverflows":
				c.ListenOverflows = n
			case "ListenDrops":
				c.ListenDrops = n
			case "TCPSynRetrans":
				c.SynRetransmits = n
			}
		}
		return c, true
	}
	return c, false
}

// listenBacklog is the length of the listen queue Go's net.Listen asks
// for here: the system's somaxconn (0 where it cannot be read).
func listenBacklog() int {
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}
