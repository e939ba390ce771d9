package batch

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// goroutineID is the calling goroutine's number, from its stack trace's
// first line ("goroutine 7 [running]:").
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	return string(bytes.Fields(buf)[1])
}

// waitFor polls cond for up to a few seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Requests one after another run on one goroutine of the pool, the one
// that waits for them, not on a goroutine started for each.
func TestCPUPoolReusesGoroutines(t *testing.T) {
	var p cpuPool
	p.init()
	ids := map[string]bool{}
	for range 20 {
		done := make(chan string)
		p.run(func() { done <- goroutineID() })
		ids[<-done] = true
		waitFor(t, "the pool's goroutine to wait", func() bool { return p.waiting.Load() == 1 })
	}
	require.Len(t, ids, 1, "20 requests one after another ran on %d goroutines", len(ids))
	p.close()
	p.wait()
	require.Zero(t, p.waiting.Load())
}

// A burst starts as many goroutines as it needs; afterwards at most keep
// of them wait, and close ends them all.
func TestCPUPoolBurstLeavesKeep(t *testing.T) {
	var p cpuPool
	p.init()
	p.keep = 3
	const burst = 50
	var started, release sync.WaitGroup
	started.Add(burst)
	release.Add(1)
	for range burst {
		p.run(func() {
			started.Done()
			release.Wait()
		})
	}
	started.Wait() // all 50 at once: none waited for another
	release.Done()
	waitFor(t, "the burst's goroutines beyond keep to end", func() bool { return p.waiting.Load() == 3 })
	p.close()
	p.wait()
	require.Zero(t, p.waiting.Load())
}
