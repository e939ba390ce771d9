//go:build go1.26

package mlkem

import (
	"bytes"
	"crypto/mlkem"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// A batch whose device results the result check finds wrong, or whose
// device fails, is recomputed on the CPU over what the device step wrote:
// every result and every element's error is then crypto/mlkem's.
func TestFallbackOutputs(t *testing.T) {
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	e.SetResultCheck(1)
	var fallbacks atomic.Int32
	e.OnFallback(func(error) { fallbacks.Add(1) })
	restore := WithBatches(8)
	defer restore()
	const n = 20
	seeds := make([][]byte, n)
	for i := range seeds {
		seeds[i] = bytes.Repeat([]byte{byte(i + 1)}, SeedSize)
	}
	seeds[11] = seeds[11][:40] // in the batch that fails
	for _, fault := range []string{"wrong results", "device error"} {
		t.Run(fault, func(t *testing.T) {
			fallbacks.Store(0)
			hooks := &engine.Hooks{AfterRun: func(lo, hi int, staging [][]byte) {
				if lo <= 8 && 8 < hi { // the second batch's results, the staging's end, wrong
					last := staging[len(staging)-1]
					last[len(last)-1] ^= 0x5a
				}
			}}
			if fault == "device error" {
				hooks = &engine.Hooks{BeforeDevice: func(lo, hi int) error {
					if lo <= 8 && 8 < hi {
						return errors.New("a device fault")
					}
					return nil
				}}
			}
			e.core.SetHooks(hooks)
			defer e.core.SetHooks(nil)
			eks, err := e.KeyGen768(seeds)
			var be *batch.Error
			require.ErrorAs(t, err, &be)
			require.EqualValues(t, 1, fallbacks.Load())
			cts := make([][]byte, n)
			for i := range n {
				if i == 11 {
					require.ErrorIs(t, be.Errs[i], ErrSeedLength)
					require.Nil(t, eks[i])
					cts[i] = make([]byte, CiphertextSize768)
					continue
				}
				require.NoError(t, be.Errs[i])
				dk, err := mlkem.NewDecapsulationKey768(seeds[i])
				require.NoError(t, err)
				require.Equal(t, dk.EncapsulationKey().Bytes(), eks[i], "element %d", i)
				_, cts[i] = dk.EncapsulationKey().Encapsulate()
			}
			fallbacks.Store(0)
			shared, err := e.Decapsulate768(seeds, cts)
			require.ErrorAs(t, err, &be)
			require.EqualValues(t, 1, fallbacks.Load())
			for i := range n {
				if i == 11 {
					require.ErrorIs(t, be.Errs[i], ErrSeedLength)
					continue
				}
				dk, _ := mlkem.NewDecapsulationKey768(seeds[i])
				want, err := dk.Decapsulate(cts[i])
				require.NoError(t, err)
				require.Equal(t, want, shared[i], "element %d", i)
			}
			fallbacks.Store(0)
			eks[11] = eks[10][:100]
			_, cts2, err := e.Encapsulate768(eks)
			require.ErrorAs(t, err, &be)
			require.EqualValues(t, 1, fallbacks.Load())
			for i := range n {
				if i == 11 {
					require.ErrorIs(t, be.Errs[i], ErrEncapsulationKeyLength)
					require.Nil(t, cts2[i])
					continue
				}
				require.NoError(t, be.Errs[i])
				require.Len(t, cts2[i], CiphertextSize768)
			}
		})
	}
}
