package rsa

import (
	"bytes"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"log"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/cl"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

func loadKey(t testing.TB, name string) *stdrsa.PrivateKey {
	data, err := os.ReadFile("testdata/" + name + ".pem")
	require.NoError(t, err)
	b, _ := pem.Decode(data)
	k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
	require.NoError(t, err)
	return k
}

// spoilDevice makes e's private device batches run on the device and pass
// the device's answer through spoil before the host reads it (public
// batches run as they are).
func spoilDevice(e *Engine, spoil func(b *privateBatch)) {
	e.core.SetHooks(&engine.Hooks{Device: func(job engine.Job, ch *engine.Chunk) error {
		j, ok := job.(*privateJob)
		if !ok {
			return job.Device(ch)
		}
		return j.onDevice(ch, func(ch *engine.Chunk, b *privateBatch) error {
			if err := e.d.runPrivate(ch, b); err != nil {
				return err
			}
			spoil(b)
			return nil
		})
	}})
}

var errOutOfResources = &cl.Error{Call: "clEnqueueNDRangeKernel", Status: cl.OutOfResources}

// A device batch that fails, or whose result fails the host's check, is
// recomputed on the CPU (results as the CPU engine's), reported through
// OnFallback and counted in Stats, once per size class; a result the
// device's own check refused is that element's ErrFault, and no fallback.
func TestFallback(t *testing.T) {
	k1, k2 := loadKey(t, "rsa1024a"), loadKey(t, "rsa2048a")
	keys := []*stdrsa.PrivateKey{k1, k2, k1, k2}
	pubs := []*stdrsa.PublicKey{&k1.PublicKey, &k2.PublicKey, &k1.PublicKey, &k2.PublicKey}
	digests := make([][]byte, len(keys))
	for i := range digests {
		digests[i] = make([]byte, 32)
		rand.Read(digests[i])
	}
	want, err := CPUEngine().SignPKCS1v15(keys, crypto.SHA256, digests)
	require.NoError(t, err)

	for _, mode := range []string{"fail", "wrong result"} {
		t.Run(mode, func(t *testing.T) {
			e := testDeviceEngine(t)
			var batches atomic.Int64
			if mode == "fail" {
				e.core.SetHooks(&engine.Hooks{BeforeDevice: func(lo, hi int) error {
					batches.Add(1)
					return errOutOfResources
				}})
			} else {
				spoilDevice(e, func(b *privateBatch) {
					batches.Add(1)
					b.vals[0] ^= 1 // column 0: the first of the batch, always checked
				})
			}
			var mu sync.Mutex
			var reported []error
			e.OnFallback(func(err error) {
				mu.Lock()
				reported = append(reported, err)
				mu.Unlock()
			})
			for _, blind := range []bool{false, true} {
				e.SetBlinding(blind)
				got, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
				require.NoError(t, err)
				require.Equal(t, want, got)
			}
			require.NoError(t, e.verifyPKCS1v15(pubs, crypto.SHA256, digests, want))
			n := int64(4) // 2 signing calls × 2 size classes
			if mode == "fail" {
				n = 6 // and the verification's 2
			}
			require.Equal(t, n, batches.Load())
			st := e.Stats()
			require.Equal(t, n, st.Fallbacks)
			require.Equal(t, 2*n, st.FallbackOps)
			require.Len(t, reported, int(n))
			require.ErrorContains(t, reported[0], "rsa: device "+e.Device().Name+" failed, batch recomputed on the CPU")
			if mode == "fail" {
				require.ErrorContains(t, reported[0], "CL_OUT_OF_RESOURCES")
				var ce *cl.Error
				require.ErrorAs(t, reported[0], &ce)
			} else {
				require.ErrorContains(t, reported[0], "result check")
			}
		})
	}

	t.Run("panic", func(t *testing.T) { // a panicking driver binding, say
		e := testDeviceEngine(t)
		e.core.SetHooks(&engine.Hooks{Device: func(engine.Job, *engine.Chunk) error { panic("kernel exploded") }})
		var reported []error
		e.OnFallback(func(err error) { reported = append(reported, err) })
		got, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
		require.NoError(t, err)
		require.Equal(t, want, got)
		require.Len(t, reported, 2) // one batch per size class
		require.ErrorContains(t, reported[0], "kernel exploded")
	})

	t.Run("fault", func(t *testing.T) {
		e := testDeviceEngine(t)
		spoilDevice(e, func(b *privateBatch) { b.ok[0] = 0 }) // the device's own check refused column 0
		e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
		got, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
		var be *batch.Error
		require.True(t, errors.As(err, &be))
		require.Equal(t, 2, be.Failed()) // element 0 of each size class
		require.ErrorIs(t, be.Errs[0], ErrFault)
		require.ErrorIs(t, be.Errs[1], ErrFault)
		require.Nil(t, got[0])
		require.Nil(t, got[1])
		require.Equal(t, want[2:], got[2:])
		require.Zero(t, e.Stats().Fallbacks)
	})
}

// Nothing is logged by default, a fallback included; SetLogger logs each
// one.
func TestFallbackDefaultReport(t *testing.T) {
	var std bytes.Buffer
	log.SetOutput(&std) // where log and slog's default logger write
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	k := loadKey(t, "rsa1024a")
	e := testDeviceEngine(t)
	e.SetFailHook(func() error { return errOutOfResources })
	d := make([]byte, 32)
	_, err := e.SignPKCS1v15([]*stdrsa.PrivateKey{k}, crypto.SHA256, [][]byte{d})
	require.NoError(t, err)
	require.Equal(t, int64(1), e.Stats().Fallbacks)
	require.Empty(t, std.String(), "nothing is logged by default")
	var logged bytes.Buffer
	e.SetLogger(slog.New(slog.NewTextHandler(&logged, nil)))
	_, err = e.SignPKCS1v15([]*stdrsa.PrivateKey{k}, crypto.SHA256, [][]byte{d})
	require.NoError(t, err)
	require.Equal(t, int64(2), e.Stats().Fallbacks)
	require.Contains(t, logged.String(), "level=WARN")
	require.Contains(t, logged.String(), "recomputed on the CPU")
	require.Contains(t, logged.String(), "CL_OUT_OF_RESOURCES")
	require.Empty(t, std.String())
	require.Equal(t, "device "+e.Device().Name, e.String())
}

// With blinding, the unblinded result is checked again: a corrupted
// blinding pair gives ErrFault, never a value.
func TestBlindingRecheck(t *testing.T) {
	k := loadKey(t, "rsa1024a")
	entry, err := preparePrivate(k)
	require.NoError(t, err)
	two := make([]byte, modBytes(entry.pub))
	two[len(two)-1] = 2
	_, _, err = entry.blind.blind(entry.pub, two) // initialise the pair
	require.NoError(t, err)
	c, err := entry.pub.constantTime()
	require.NoError(t, err)
	one, err := nat(bigOne.FillBytes(make([]byte, c.n.Size())), c.n)
	require.NoError(t, err)
	entry.blind.mu.Lock()
	entry.blind.rinv.Add(one, c.n) // no longer r^-1
	entry.blind.mu.Unlock()
	e := CPUEngine()
	e.SetBlinding(true)
	sigs, err := e.SignPKCS1v15([]*stdrsa.PrivateKey{k}, crypto.SHA256, [][]byte{make([]byte, 32)})
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, be.Errs[0], ErrFault)
	require.Nil(t, sigs[0])
}
