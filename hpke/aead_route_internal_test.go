package hpke

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
)

// The AES-GCM step's choice: the host's path first, then the aes
// engine's, then the faster; the slower measured again once its wait has
// passed, the wait doubling while it loses and starting over when the
// faster changes; RouteDevice and RouteCPU force a path, and an Engine
// without an aes engine always takes the host's.
func TestAEADChoice(t *testing.T) {
	e := CPUEngine()
	defer e.Close()
	sh := shapeOf(true, AES128GCM, 1024, 1024*1024)
	require.False(t, e.useEngine(sh), "no aes engine")
	e.aead = aes.CPUEngine()

	require.False(t, e.useEngine(sh), "the host's time first")
	e.observe(sh, false, 1000, 3*time.Millisecond) // 3 µs a message
	require.True(t, e.useEngine(sh), "then the engine's")
	e.observe(sh, true, 1000, time.Millisecond) // 1 µs: faster
	for range 10 {
		require.True(t, e.useEngine(sh), "the faster")
	}
	times := e.choices.shapes[sh]
	require.Equal(t, retryFirst, times.wait)
	times.retry = time.Now().Add(-time.Nanosecond) // the wait has passed
	require.False(t, e.useEngine(sh), "the slower measured again")
	require.Equal(t, 2*retryFirst, times.wait, "the wait doubles")
	require.True(t, e.useEngine(sh), "then the faster until the next wait")
	for range 20 { // the host's times fall below the engine's
		e.observe(sh, false, 1000, time.Millisecond/4)
	}
	require.False(t, e.useEngine(sh), "the host is the faster now")
	require.Equal(t, retryFirst, times.wait, "the wait starts over")

	other := shapeOf(true, AES128GCM, 1, 1024) // another shape knows nothing
	require.False(t, e.useEngine(other))

	e.route.Store(int32(batch.RouteDevice))
	require.True(t, e.useEngine(sh))
	e.route.Store(int32(batch.RouteCPU))
	require.False(t, e.useEngine(sh))
}
