package ed25519

import (
	"crypto/ed25519"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// A batch whose device results the result check finds wrong is
// recomputed on the CPU over what the device step wrote: the outputs, a
// long message's signature and the malformed elements' errors are the
// CPU's, as crypto/ed25519 gives them.
func TestFallbackOutputs(t *testing.T) {
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	e.SetResultCheck(1)
	var fallbacks atomic.Int32
	e.OnFallback(func(error) { fallbacks.Add(1) })
	restore := WithBatches(8, 1<<20)
	defer restore()
	const n = 20
	seeds, keys, _, msgs := hostInputs(n)
	// in the batch that fails (of elements 8 to 15 when signing, 7 to 13
	// for keys)
	seeds[11] = seeds[11][:31]
	keys[9] = nil
	msgs[10] = make([]byte, DeviceMessageMax+1) // the host's share
	e.core.SetHooks(&engine.Hooks{AfterRun: func(lo, hi int, staging [][]byte) {
		if lo <= 8 && 8 < hi { // the second batch's results (the staging's last rows), wrong
			rows := staging[0][len(staging[0])-32*(hi-lo):]
			for i := range rows {
				rows[i] ^= 0x5a
			}
		}
	}})
	defer e.core.SetHooks(nil)

	sigs, err := e.Sign(keys, msgs, nil)
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	for i := range n {
		if i == 9 {
			require.ErrorIs(t, be.Errs[i], ErrKeyLength)
			require.Nil(t, sigs[i])
			continue
		}
		require.NoError(t, be.Errs[i], "element %d", i)
		require.Equal(t, ed25519.Sign(keys[i], msgs[i]), sigs[i], "signature %d", i)
	}
	require.EqualValues(t, 1, fallbacks.Load())

	got, err := e.NewKeysFromSeeds(seeds)
	require.ErrorAs(t, err, &be)
	for i := range n {
		if i == 11 {
			require.True(t, errors.Is(be.Errs[i], ErrKeyLength))
			require.Nil(t, got[i])
			continue
		}
		require.NoError(t, be.Errs[i], "element %d", i)
		require.Equal(t, ed25519.NewKeyFromSeed(seeds[i]), got[i], "key %d", i)
	}
	require.EqualValues(t, 2, fallbacks.Load())
}
