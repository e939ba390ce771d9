package batch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/internal/cputime"
)

// hostBusy tells whether this process keeps its cores busy with other
// work than the CPU path's own requests: its CPU time over the last
// sampling period, less the time the CPU paths of every Batcher spent
// computing requests, against GOMAXPROCS cores for that long. The CPU
// path of NewWithCPU takes a request only while the host has cores to
// spare: where the host's cores are the server's bottleneck (a TLS
// terminator: key shares, records, certificates), a signature computed on
// them costs the server more than the wait for a batch saves. Its own
// requests do not count: cores busy with them are cores the CPU path
// chose to use, and counting them would shut the path as soon as it
// filled the cores (callers as many as the cores then got half their
// rate). The process's CPU time comes from the system (cputime.Process:
// getrusage on Unix), sampled at most every busyPeriod by the caller that
// finds the sample stale.
type hostBusy struct {
	mu  sync.Mutex
	at  atomic.Int64  // stamp of the last sample (written under mu)
	cpu time.Duration // the process's CPU time then (under mu)
	// ownNs is the time the CPU paths spent on requests so far (ns), each
	// counted at the path's estimate of a request's CPU time; own its
	// value at the last sample (under mu)
	ownNs  counter
	own    int64
	busy   atomic.Bool // the last period's verdict
	usable bool        // cputime.Process works here
	share  float64     // busyShare (tests lower it: a shared test machine gives a process less)
}

// busyPeriod is how often the verdict is renewed; busyShare is the share
// of GOMAXPROCS cores in use above which the host counts as busy.
const (
	busyPeriod = int64(20 * time.Millisecond)
	busyShare  = 0.85
)

var host = newHostBusy()

func newHostBusy() *hostBusy {
	cpu, ok := cputime.Process()
	h := &hostBusy{usable: ok, cpu: cpu, share: busyShare}
	h.at.Store(stampNow())
	return h
}

// isBusy reports whether the host's cores were nearly all busy over the
// last period, renewing the verdict when it is older than busyPeriod.
func (h *hostBusy) isBusy(now int64) bool {
	if !h.usable {
		return false
	}
	if now-h.at.Load() >= busyPeriod && h.mu.TryLock() {
		if at := h.at.Load(); now-at >= busyPeriod {
			cpu, _ := cputime.Process()
			own := h.ownNs.load()
			others := float64(cpu-h.cpu) - float64(own-h.own)
			share := others / float64(now-at) / float64(runtime.GOMAXPROCS(0))
			h.busy.Store(share >= h.share)
			h.cpu, h.own = cpu, own
			h.at.Store(now)
		}
		h.mu.Unlock()
	}
	return h.busy.Load()
}

// offloaded adds the time a CPU path spent computing a request: the
// verdict leaves it out.
func (h *hostBusy) offloaded(d time.Duration) { h.ownNs.add(int64(d)) }
