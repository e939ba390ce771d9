//go:build linux

package main

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// readCPUTimes reads /proc/stat's per-CPU lines: for each CPU, its busy
// and its total time in clock ticks (busy: everything but idle and
// iowait, the kernel's softirq work included).
func readCPUTimes() cpuSample {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return cpuSample{}
	}
	defer f.Close()
	return parseCPUTimes(f)
}

// parseCPUTimes reads the per-CPU times from /proc/stat's text.
func parseCPUTimes(r io.Reader) cpuSample {
	busy, total := map[int]int64{}, map[int]int64{}
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
			if i >= 8 { // guest times are counted in user and nice already
				break
			}
			n, _ := strconv.ParseInt(v, 10, 64)
			total[cpu] += n
			if i != 3 && i != 4 { // idle, iowait
				busy[cpu] += n
			}
		}
	}
	return cpuSample{busy, total, len(total) > 0}
}
