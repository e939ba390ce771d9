package batch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// hostBusy tells whether this process keeps its cores busy: its CPU time
// over the last sampling period, against GOMAXPROCS cores for that long.
// The CPU path of NewWithCPU takes a request only while the host has idle
// cores: where the host's cores are the server's bottleneck (a TLS
// terminator: key shares, records, certificates), a signature computed on
// them costs the server more than the wait for a batch saves (measured in
// docs/BENCHMARKS.md). The process's CPU time comes from the system
// (processCPU: getrusage on Unix), sampled at most every busyPeriod by the
// caller that finds the sample stale.
type hostBusy struct {
	mu     sync.Mutex
	at     int64         // Unix ns of the last sample
	cpu    time.Duration // the process's CPU time then
	busy   atomic.Bool   // the last period's verdict
	stamp  atomic.Int64  // at, for a read without the lock
	usable bool          // processCPU works here
	share  float64       // busyShare (tests lower it: a shared test machine gives a process less)
}

// busyPeriod is how often the verdict is renewed; busyShare is the share
// of GOMAXPROCS cores in use above which the host counts as busy.
const (
	busyPeriod = int64(20 * time.Millisecond)
	busyShare  = 0.85
)

var host = newHostBusy()

func newHostBusy() *hostBusy {
	cpu, ok := processCPU()
	h := &hostBusy{usable: ok, cpu: cpu, at: time.Now().UnixNano(), share: busyShare}
	h.stamp.Store(h.at)
	return h
}

// isBusy reports whether the host's cores were nearly all busy over the
// last period, renewing the verdict when it is older than busyPeriod.
func (h *hostBusy) isBusy(now int64) bool {
	if !h.usable {
		return false
	}
	if now-h.stamp.Load() >= busyPeriod && h.mu.TryLock() {
		if now-h.at >= busyPeriod {
			cpu, _ := processCPU()
			share := float64(cpu-h.cpu) / float64(now-h.at) / float64(runtime.GOMAXPROCS(0))
			h.busy.Store(share >= h.share)
			h.at, h.cpu = now, cpu
			h.stamp.Store(now)
		}
		h.mu.Unlock()
	}
	return h.busy.Load()
}
