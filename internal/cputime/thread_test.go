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
	computed := before
	for deadline := time.Now().Add(10 * time.Second); computed-before < 20*time.Millisecond; computed, _ = Thread() {
		require.True(t, time.Now().Before(deadline), "20 ms of computing did not show in 10 s")
	}
	time.Sleep(100 * time.Millisecond)
	slept, _ := Thread()
	require.Less(t, slept-computed, 50*time.Millisecond, "100 ms of sleep")
}
