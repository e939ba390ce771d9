package cputime

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A thread's CPU time grows while it computes and not while it sleeps.
func TestThreadCountsComputingNotSleeping(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, ok := Thread()
	if !ok {
		t.Skip("no thread CPU clock here")
	}
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
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	here, ok := Thread()
	if !ok {
		t.Skip("no thread CPU clock here")
	}
	there := make(chan ThreadReading)
	go func() {
		runtime.LockOSThread() // a thread of its own: this one is held by the test
		defer runtime.UnlockOSThread()
		r, _ := Thread()
		there <- r
	}()
	_, ok = (<-there).Since()
	require.False(t, ok, "a reading of another thread")
	_, ok = here.Since()
	require.True(t, ok, "a reading of this thread")
}
