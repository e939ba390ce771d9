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
	defer plain.Close()
	plain.SetRoute(batch.RouteDevice)
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

// With the result check on, a device that returns wrong results (bytes
// of the staging memory where they arrive flipped through the test hook)
// is caught, the batch recomputed on the CPU (right results, in-place
// elements included) and the fault reported through OnFallback: whether
// every result is wrong (the first element of a batch is always checked)
// or only later ones (caught when every element is checked). With the
// check off the wrong results come out, so the test can fail.
func TestResultCheck(t *testing.T) {
	calls := checkCalls(t)
	e, err := aes.NewEngineConfig(devicetest.Device(t), aes.Config{Layout: aes.LayoutCompact})
	require.NoError(t, err)
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	var reported []error
	e.OnFallback(func(err error) { reported = append(reported, err) })
	faults := map[string]func(staging [][]byte){
		"all": func(staging [][]byte) {
			for _, r := range staging {
				for i := range r {
					r[i] ^= 0x80
				}
			}
		},
		"later": func(staging [][]byte) { // the second half of the first region: the data of the later elements
			r := staging[0]
			for i := len(r) / 2; i < len(r); i++ {
				r[i] ^= 0x80
			}
		},
	}
	for name, fault := range faults {
		e.SetAlterHook(fault)
		for _, c := range calls {
			e.SetResultCheck(0)
			got, err := c.run(e)
			differs := false
			var be *batch.Error
			errors.As(err, &be)
			for i := range c.want {
				if (be != nil && be.Errs[i] != nil) != (c.want[i] == nil) || !bytes.Equal(c.want[i], got[i]) {
					differs = true
				}
			}
			require.True(t, differs, "%s, %s: the hook changes a result", c.name, name)
			for _, every := range []int{1, 1000} {
				if name == "later" && every != 1 {
					continue // later elements are checked only when every element is
				}
				e.SetResultCheck(every)
				before := len(reported)
				got, err := c.run(e)
				requireResults(t, c.name, c.want, got, err)
				require.Len(t, reported, before+1, "%s, %s, every %d", c.name, name, every)
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
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
	e.SetResultCheck(1)
	for _, c := range calls {
		got, err := c.run(e)
		requireResults(t, c.name, c.want, got, err)
	}
	require.Zero(t, int(e.Stats().Fallbacks))
}
