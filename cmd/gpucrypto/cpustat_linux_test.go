//go:build linux

package main

import (
	"strings"
	"testing"
)

func TestParseCPUTimes(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	text := "cpu  10 0 10 100 0 0 0 0 0 0\n" +
		"cpu0 5 1 2 100 7 0 3 0 9 9\n" +
		"cpu1 40 0 10 50 0 0 0 0 0 0\n" +
		"intr 1 2 3\n"
	b := parseCPUTimes(strings.NewReader(text))
	busy, total := b.busy, b.total
	if !b.ok {
		t.Fatal("not read")
	}
	if busy[0] != 11 || total[0] != 118 || busy[1] != 50 || total[1] != 100 {
		t.Fatalf("busy %v total %v", busy, total)
	}
	a := cpuSample{map[int]int64{0: 0, 1: 0}, map[int]int64{0: 0, 1: 0}, true}
	if got := busyShare(a, b, []int{1}); got != 0.5 {
		t.Fatalf("busyShare = %v", got)
	}
	if got := busyShare(a, cpuSample{}, []int{1}); got != -1 {
		t.Fatalf("busyShare without a sample = %v", got)
	}
}
