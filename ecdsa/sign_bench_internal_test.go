package ecdsa

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// BenchmarkSignKernel measures signing with RFC 6979's nonces (the
// Server's Signer with a nil reader) with the fault check
// (ecdsa_p256_sign_check) and without it (skipFaultCheck), and with
// hedged nonces (never checked) beside them, one call of 1,048,576
// signatures at a time (1,024 on a CPU device) of SHA-256 hashes by 4,096
// distinct keys: kernel-ops/s is the signatures per second of the
// kernels' device time, the check's cost; ops/s end to end (with RFC
// 6979's nonces, the host's nonce derivation); faults the signatures the
// check refused (none, on a sound device).
func BenchmarkSignKernel(b *testing.B) {
	d := devicetest.Device(b)
	n := 1 << 20
	if d.Type != device.TypeGPU {
		n = 1024
	}
	keys, hashes := make([]*ecdsa.PrivateKey, n), make([][]byte, n)
	for i := range n {
		if i < 4096 {
			key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			require.NoError(b, err)
			keys[i] = key
		} else {
			keys[i] = keys[i%4096]
		}
		var m [8]byte
		binary.LittleEndian.PutUint64(m[:], uint64(i))
		h := sha256.Sum256(m[:])
		hashes[i] = h[:]
	}
	for _, form := range []struct {
		name                 string
		deterministic, check bool
	}{{"checked", true, true}, {"unchecked", true, false}, {"hedged", false, false}} {
		skipFaultCheck = !form.check
		e, err := NewEngine(d)
		skipFaultCheck = false
		require.NoError(b, err)
		e.SetRoute(batch.RouteDevice)
		sign := func() {
			_, errs, err := e.signBatch(P1363, form.deterministic, keys, hashes, nil)
			require.NoError(b, err)
			require.NoError(b, errs.Err())
		}
		b.Run(form.name, func(b *testing.B) {
			sign() // warm
			before := e.Stats()
			start := time.Now()
			calls := 0
			for b.Loop() {
				sign()
				calls++
			}
			after := e.Stats()
			b.ReportMetric(float64(calls*n)/time.Since(start).Seconds(), "ops/s")
			b.ReportMetric(float64(calls*n)/(after.DeviceTime-before.DeviceTime).Seconds(), "kernel-ops/s")
			b.ReportMetric(float64(after.Faults-before.Faults), "faults")
		})
		require.NoError(b, e.Close())
	}
}
