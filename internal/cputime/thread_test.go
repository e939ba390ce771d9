package cputime

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// heldThread holds the test's thread for the rest of t and reads its CPU
// time; it skips t where the system has no thread CPU clock.
func heldThread(t *testing.T) ThreadReading {
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	r, ok := Thread()
	if !ok {
		t.Skip("no thread CPU clock here")
	}
	return r
}

// A thread's CPU time grows while it computes and not while it sleeps.
func TestThreadCountsComputingNotSleeping(t *testing.T) {
	before := heldThread(t)
	var computed time.Duration
	for deadline := time.Now().Add(10 * time.Second); computed < 20*time.Millisecond; computed, _ = before.Since() {
		require.True(t, time.Now().Before(deadline), "20 ms of computing did not show in 10 s")
	}
	time.Sleep(100 * time.Millisecond)
	slept, ok := before.Since()
	require.True(t, ok, "the same thread, held")
	require.Less(t, slept-computed, 50*time.Millisecond, "100 ms of sleep")
}

// A reading taken on another thread is not compared with this one's.
func TestThreadSinceOnAnotherThread(t *testing.T) {
	here := heldThread(t)
	there := make(chan ThreadReading)
	go func() {
		runtime.LockOSThread() // a thread of its own: this one is held by the test
		defer runtime.UnlockOSThread()
		r, _ := Thread()
		there <- r
	}()
	_, ok := (<-there).Since()
	require.False(t, ok, "a reading of another thread")
	_, ok = here.Since()
	require.True(t, ok, "a reading of this thread")
}
