package batch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The host counts as busy while this process keeps its cores busy, and
// idle after it sleeps.
func TestHostBusy(t *testing.T) {
	h := newHostBusy()
	h.share = 0.2 // other tests and processes may share the machine's cores
	if !h.usable {
		t.Skip("no process CPU time on this system")
	}
	time.Sleep(3 * time.Duration(busyPeriod))
	require.False(t, h.isBusy(stampNow()), "asleep")
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := 0; !stop.Load(); x++ {
			}
		}()
	}
	require.Eventually(t, func() bool { return h.isBusy(stampNow()) }, 5*time.Second, time.Millisecond, "every core spinning")
	stop.Store(true)
	wg.Wait()
	require.Eventually(t, func() bool { return !h.isBusy(stampNow()) }, 5*time.Second, 5*time.Millisecond, "idle again")
}

// Cores busy with the CPU path's own requests (offloaded) do not make the
// host busy: the path would shut itself once it filled the cores.
func TestHostBusyLeavesOutTheCPUPath(t *testing.T) {
	h := newHostBusy()
	h.share = 0.2
	if !h.usable {
		t.Skip("no process CPU time on this system")
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				start := time.Now()
				for time.Since(start) < time.Millisecond {
				}
				h.offloaded(time.Since(start)) // as the CPU path counts a request
			}
		}()
	}
	busy := 0
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if h.isBusy(stampNow()) {
			busy++
		}
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	require.Zero(t, busy, "busy while every core computed the CPU path's requests")
}
