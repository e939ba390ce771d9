package aes_test

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// checkCalls are the batch calls the result check covers, on a batch of
// random elements, with crypto/cipher's results (for Open: nil where the
// message must be refused). Each call's elements are made fresh, so that
// in-place elements start from their input.
type checkCall struct {
	name string
	run  func(e *aes.Engine) ([][]byte, error)
	want [][]byte
}

func checkCalls(t *testing.T) []checkCall {
	var calls []checkCall
	var gcmKeys []cipher.AEAD
	var msgs []aes.Message
	for i, n := range []int{0, 15, 64, 1000, 3000} {
		k, block, _ := newKey(t, []int{16, 24, 32}[i%3])
		aead, err := cipher.NewGCM(block)
		require.NoError(t, err)
		gcmKeys = append(gcmKeys, aead)
		msgs = append(msgs, aes.Message{Key: k, Nonce: randBytes(12), AAD: randBytes(i), Data: randBytes(n)})
	}
	seal := make([][]byte, len(msgs))
	open := make([][]byte, len(msgs))
	sealed := make([]aes.Message, len(msgs))
	for i, m := range msgs {
		seal[i] = gcmKeys[i].Seal(nil, m.Nonce, m.Data, m.AAD)
		open[i] = m.Data
		sealed[i] = m
		sealed[i].Data = seal[i]
	}
	sealed[2].Data = bytes.Clone(seal[2])
	sealed[2].Data[5] ^= 1 // refused
	open[2] = nil
	inPlace := func(ms []aes.Message, extra int) []aes.Message {
		out := make([]aes.Message, len(ms))
		for i, m := range ms {
			out[i] = m
			out[i].Data = append(make([]byte, 0, len(m.Data)+extra), m.Data...)
			out[i].Out = out[i].Data
		}
		return out
	}
	calls = append(calls,
		checkCall{"Seal", func(e *aes.Engine) ([][]byte, error) { return e.Seal(msgs) }, seal},
		checkCall{"Seal in place", func(e *aes.Engine) ([][]byte, error) { return e.Seal(inPlace(msgs, aes.TagSize)) }, seal},
		checkCall{"Open", func(e *aes.Engine) ([][]byte, error) { return e.Open(sealed) }, open},
		checkCall{"Open in place", func(e *aes.Engine) ([][]byte, error) { return e.Open(inPlace(sealed, 0)) }, open},
	)
	var cbc []aes.CBCMessage
	var units []aes.XTSMessage
	var cbcEnc, cbcDec, xtsEnc, xtsDec [][]byte
	for i, n := range []int{0, 16, 48, 1000, 4097} {
		k, block, _ := newKey(t, []int{16, 24, 32}[i%3])
		m := aes.CBCMessage{Key: k, IV: randBytes(16), Data: randBytes(n &^ 15)}
		cbc = append(cbc, m)
		cbcEnc = append(cbcEnc, cbcReference(block, m.IV, m.Data, false))
		cbcDec = append(cbcDec, cbcReference(block, m.IV, m.Data, true))
		xk, err := aes.NewXTSKey(randBytes([]int{32, 48, 64}[i%3]))
		require.NoError(t, err)
		units = append(units, aes.XTSMessage{Key: xk, Tweak: randBytes(16), Data: randBytes(max(n, 16+i))})
	}
	// the XTS results of a device without faults: the tests of the modes
	// compare these with golang.org/x/crypto/xts
	plain, err := aes.NewEngineConfig(devicetest.Device(t), aes.Config{Layout: aes.LayoutCompact})
	require.NoError(t, err)
	xtsEnc, err = plain.EncryptXTS(units)
	require.NoError(t, err)
	xtsDec, err = plain.DecryptXTS(units)
	require.NoError(t, err)
	return append(calls,
		checkCall{"EncryptCBC", func(e *aes.Engine) ([][]byte, error) { return e.EncryptCBC(cbc) }, cbcEnc},
		checkCall{"DecryptCBC", func(e *aes.Engine) ([][]byte, error) { return e.DecryptCBC(cbc) }, cbcDec},
		checkCall{"EncryptXTS", func(e *aes.Engine) ([][]byte, error) { return e.EncryptXTS(units) }, xtsEnc},
		checkCall{"DecryptXTS", func(e *aes.Engine) ([][]byte, error) { return e.DecryptXTS(units) }, xtsDec},
	)
}

// requireResults compares a call's results with want (nil: the element
// must fail with aes.ErrOpen).
func requireResults(t *testing.T, name string, want, got [][]byte, err error) {
	t.Helper()
	var be *batch.Error
	if err != nil {
		require.True(t, errors.As(err, &be), "%s: %v", name, err)
	}
	for i := range want {
		if want[i] == nil {
			require.ErrorIs(t, be.Errs[i], aes.ErrOpen, "%s: element %d", name, i)
			continue
		}
		if be != nil {
			require.NoError(t, be.Errs[i], "%s: element %d", name, i)
		}
		require.Equal(t, len(want[i]), len(got[i]), "%s: element %d", name, i)
		require.True(t, bytes.Equal(want[i], got[i]), "%s: element %d", name, i)
	}
}

// With the result check on, a device that returns a wrong result (a bit of
// the longest element's result flipped through the test hook) is caught,
// the call recomputed on the CPU (right results, in-place elements
// included) and the fault reported through OnFallback, whether the wrong
// element is the first (always checked) or any (every = 1). With the check
// off the wrong result comes out, so the test can fail.
func TestResultCheck(t *testing.T) {
	calls := checkCalls(t)
	e, err := aes.NewEngineConfig(devicetest.Device(t), aes.Config{Layout: aes.LayoutCompact})
	require.NoError(t, err)
	var reported []error
	e.OnFallback(func(err error) { reported = append(reported, err) })
	for _, target := range []int{0, 4} {
		e.SetAlterHook(func(out [][]byte) {
			if len(out[target]) > 0 {
				out[target][len(out[target])-1] ^= 0x80
			}
		})
		for _, c := range calls {
			if len(c.want[target]) == 0 {
				continue
			}
			e.SetResultCheck(0)
			got, _ := c.run(e)
			require.NotEqual(t, c.want[target], got[target], "%s: the hook changes the result", c.name)
			for _, every := range []int{1, 1000} {
				if target != 0 && every != 1 {
					continue // element 4 is checked only when every element is
				}
				e.SetResultCheck(every)
				before := len(reported)
				got, err := c.run(e)
				requireResults(t, c.name, c.want, got, err)
				require.Len(t, reported, before+1, "%s, element %d, every %d", c.name, target, every)
				require.ErrorContains(t, reported[before], "differs from the CPU's (result check)")
			}
		}
	}
	e.SetAlterHook(nil)
	e.SetResultCheck(0)
}

// On a working device the check finds nothing: every element of every
// call checked, the results crypto/cipher's, no fallback.
func TestResultCheckDevice(t *testing.T) {
	calls := checkCalls(t)
	e, err := aes.NewEngineConfig(devicetest.Device(t), aes.Config{Layout: aes.LayoutCompact})
	require.NoError(t, err)
	e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
	e.SetResultCheck(1)
	for _, c := range calls {
		got, err := c.run(e)
		requireResults(t, c.name, c.want, got, err)
	}
	require.Zero(t, e.Fallbacks())
}
