package batch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// matchRunning holds a batch smaller than the mean of those its engine is
// running, for at most MaxDelay and half the engine's last batch time since
// the worker was freed; it never holds a full batch, one as large as the
// running ones, or one on an engine that runs none or has not finished a
// batch yet.
func TestMatchRunning(t *testing.T) {
	b := New(Options{MaxBatch: 100, MaxDelay: 40 * time.Millisecond}, func(reqs []int) ([]int, error) { return reqs, nil })
	defer b.Close()
	w := &b.engines[0]
	w.running.Store(60) // two batches of 30
	w.lastRun.Store(int64(50 * time.Millisecond))
	now := time.Now()
	held := b.matchRunning(0, 2, 10, now)
	require.Positive(t, held)
	require.LessOrEqual(t, held, matchPoll)
	require.Zero(t, b.matchRunning(0, 2, 30, now), "as large as the running ones")
	require.Zero(t, b.matchRunning(0, 0, 10, now), "no batch running")
	require.Zero(t, b.matchRunning(0, 2, 100, now), "a full batch")
	require.Zero(t, b.matchRunning(0, 2, 10, now.Add(-26*time.Millisecond)), "held half the last batch time (25 ms) already")
	require.Positive(t, b.matchRunning(0, 2, 10, now.Add(-20*time.Millisecond)))
	w.lastRun.Store(int64(time.Second))
	require.Zero(t, b.matchRunning(0, 2, 10, now.Add(-41*time.Millisecond)), "held MaxDelay already")
	w.lastRun.Store(0)
	require.Zero(t, b.matchRunning(0, 2, 10, now), "no batch finished yet")
}
