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

// readCPUTimes reads /proc/stat's per-CPU lines: for each CPU, its busy
// and its total time in clock ticks (busy: everything but idle and
// iowait, the kernel's softirq work included). ok is false where the
// file cannot be read.
func readCPUTimes() (busy, total map[int]int64, ok bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	return parseCPUTimes(f)
}

// parseCPUTimes reads the per-CPU times from /proc/stat's text.
func parseCPUTimes(r io.Reader) (busy, total map[int]int64, ok bool) {
	busy, total = map[int]int64{}, map[int]int64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || !strings.HasPrefix(fields[0], "cpu") || fields[0] == "cpu" {
			continue
		}
		cpu, err := strconv.Atoi(fields[0][3:])
		if err != nil {
			continue
		}
		for i, v := range fields[1:] {
			n, _ := strconv.ParseInt(v, 10, 64)
			if i >= 8 { // guest times are counted in user and nice already
				break
			}
			total[cpu] += n
			if i != 3 && i != 4 { // idle, iowait
				busy[cpu] += n
			}
		}
	}
	return busy, total, len(total) > 0
}
