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

// fairShare bounds a batch of several engines to the requests in the
// system over two batches per engine, and never below MaxBatch over the
// same, whatever the Pipeline; share applies it only where there are
// several engines and the worker's engine is running a batch.
func TestFairShare(t *testing.T) {
	run := func(reqs []int) ([]int, error) { return reqs, nil }
	b := New(Options{MaxBatch: 16384, MaxDelay: time.Hour, Pipeline: 4}, run, run)
	defer b.Close()
	require.Equal(t, 4096, b.fairShare(16384), "16,384 waiting, none running, two engines")
	b.inBatches.Store(8192)
	require.Equal(t, 4096, b.fairShare(8192), "the running requests count")
	require.Equal(t, 4096, b.fairShare(3), "never below MaxBatch over the workers")
	b.inBatches.Store(0)
	require.Equal(t, 16384, b.fairShare(65536), "a heavy load: MaxBatch's share or more")
	require.Equal(t, 5000, b.fairShare(20000))

	// share: two engines, each running a batch: a free worker takes its
	// fair share of what waits, not all of it up to MaxBatch; an idle
	// engine takes what it can
	b.engines[0].busy.Store(1)
	b.engines[1].busy.Store(1)
	b.inBatches.Store(4096)
	n, wait := b.share(1, 12288, time.Now(), time.Now())
	require.Zero(t, wait)
	require.Equal(t, 4096, n)
	b.engines[1].busy.Store(0)
	n, wait = b.share(1, 12288, time.Now(), time.Now())
	require.Zero(t, wait)
	require.Equal(t, 12288, n, "an idle engine: no fair share")
	b.engines[0].busy.Store(0)
	b.inBatches.Store(0)

	one := New(Options{MaxBatch: 16384, MaxDelay: time.Hour, Pipeline: 2}, run)
	defer one.Close()
	one.engines[0].busy.Store(1)
	n, wait = one.share(0, 12288, time.Now(), time.Now())
	require.Zero(t, wait)
	require.Equal(t, 12288, n, "one engine: no fair share (matchRunning holds only batches smaller than the running ones)")
	one.engines[0].busy.Store(0)
}
