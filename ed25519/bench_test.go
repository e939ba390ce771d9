package ed25519_test

import (
	stded25519 "crypto/ed25519"
	"encoding/binary"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// BenchmarkForms compares the kernels' forms (32-bit limbs; the point
// formulas on doubles) on batches of 262,144 (1,024 on a CPU device):
// verification, signing and public keys, 64-byte messages and 4,096
// distinct keys. ops/s is end to end (one call at a time), kernel-ops/s
// the device time of the kernels alone.
func BenchmarkForms(b *testing.B) {
	d := devicetest.Device(b)
	n := 262144
	if d.Type != device.TypeGPU {
		n = 1024
	}
	for _, form := range []struct {
		name    string
		defines map[string]string
	}{{"limbs", map[string]string{}}, {"fp64", map[string]string{"ED25519_FP64": "1"}}} {
		restore := ed25519.WithProgramDefines(form.defines)
		e, err := ed25519.NewEngine(d)
		restore()
		require.NoError(b, err)
		e.SetRoute(batch.RouteDevice)
		seeds, keys, pubs, msgs := benchInputs(n)
		sigs, err := e.Sign(keys, msgs, nil)
		require.NoError(b, err)
		for _, op := range []struct {
			name string
			call func() error
		}{
			{"verify", func() error { _, err := e.Verify(pubs, msgs, sigs, nil); return err }},
			{"sign", func() error { _, err := e.Sign(keys, msgs, nil); return err }},
			{"keygen", func() error { _, err := e.NewKeysFromSeeds(seeds); return err }},
		} {
			b.Run(form.name+"/"+op.name, func(b *testing.B) {
				require.NoError(b, op.call()) // warm
				before := e.Stats().DeviceTime
				start := time.Now()
				calls := 0
				for b.Loop() {
					require.NoError(b, op.call())
					calls++
				}
				kernel := e.Stats().DeviceTime - before
				b.ReportMetric(float64(calls*n)/time.Since(start).Seconds(), "ops/s")
				b.ReportMetric(float64(calls*n)/kernel.Seconds(), "kernel-ops/s")
			})
		}
		require.NoError(b, e.Close())
	}
}

// BenchmarkSignKernel measures signing with the fault check (the
// engine's program on the device, ProgramDefines) and without it
// (ED25519_NO_FAULT_CHECK, the tests' build), one call of 1,048,576
// signatures at a time (1,024 on a CPU device) of 64-byte messages by
// 4,096 distinct keys: kernel-ops/s is the signatures per second of the
// kernels' device time, the check's cost; ops/s end to end; faults the
// signatures the check refused (none, on a sound device).
func BenchmarkSignKernel(b *testing.B) {
	d := devicetest.Device(b)
	n := 1 << 20
	if d.Type != device.TypeGPU {
		n = 1024
	}
	_, keys, _, msgs := benchInputs(n)
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, ed25519.SignatureSize)
	}
	for _, form := range []struct {
		name  string
		check bool
	}{{"checked", true}, {"unchecked", false}} {
		defines := maps.Clone(ed25519.ProgramDefines(d))
		if !form.check {
			if defines == nil {
				defines = map[string]string{}
			}
			defines["ED25519_NO_FAULT_CHECK"] = ""
		}
		restore := ed25519.WithProgramDefines(defines)
		e, err := ed25519.NewEngine(d)
		restore()
		require.NoError(b, err)
		e.SetRoute(batch.RouteDevice)
		b.Run(form.name, func(b *testing.B) {
			require.NoError(b, e.SignInto(keys, msgs, out, nil)) // warm
			before := e.Stats()
			start := time.Now()
			calls := 0
			for b.Loop() {
				require.NoError(b, e.SignInto(keys, msgs, out, nil))
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

// benchInputs are n seeds and their keys (4,096 distinct ones, cycled)
// and n distinct messages of 64 bytes.
func benchInputs(n int) (seeds [][]byte, keys []stded25519.PrivateKey, pubs []stded25519.PublicKey, msgs [][]byte) {
	distinct := min(n, 4096)
	seeds, keys, pubs, msgs = make([][]byte, n), make([]stded25519.PrivateKey, n), make([]stded25519.PublicKey, n), make([][]byte, n)
	for i := range n {
		if i < distinct {
			seed := make([]byte, ed25519.SeedSize)
			binary.LittleEndian.PutUint64(seed, uint64(i)+1)
			keys[i] = stded25519.NewKeyFromSeed(seed)
			pubs[i] = keys[i].Public().(stded25519.PublicKey)
		} else {
			keys[i], pubs[i] = keys[i%distinct], pubs[i%distinct]
		}
		seeds[i] = keys[i].Seed()
		msgs[i] = make([]byte, 64)
		binary.LittleEndian.PutUint64(msgs[i], uint64(i))
	}
	return
}
