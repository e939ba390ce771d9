//go:build go1.26

package hpke_test

import (
	stdhpke "crypto/hpke"
	"crypto/rand"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/hpke"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// benchMessage is the plaintext length of the benchmarks: 1 KiB.
const benchMessage = 1024

// benchBatches are the batches of BenchmarkOpen and BenchmarkSeal; the
// largest is left out on a CPU device (PoCL) unless GPUCRYPTO_FULL=1.
func benchBatches(d *device.Device) []int {
	if d.Type != device.TypeGPU && os.Getenv("GPUCRYPTO_FULL") != "1" {
		return []int{1, 1024}
	}
	return []int{1, 1024, 65536}
}

// benchSuites are the suites of the benchmarks, each KEM with
// AES-128-GCM (MLKEM768-X25519 first: the gateway's).
func benchSuites() []suite {
	var out []suite
	for _, s := range suites() {
		if s.s.AEAD == hpke.AES128GCM {
			out = append(out, s)
		}
	}
	return out
}

// benchEngines are the engines the benchmarks time: the CPU engine; the
// test device's engine as it routes itself (auto: each step where it
// measured faster); and the same routed to the device (device: every
// KEM step on the device, AES-GCM on the aes engine, on the device too,
// where the device has one).
func benchEngines(b *testing.B) (d *device.Device, engines []namedEngine) {
	d = devicetest.Device(b)
	auto, err := hpke.NewEngine(d)
	require.NoError(b, err)
	b.Cleanup(func() { auto.Close() })
	onDevice, err := hpke.NewEngine(d)
	require.NoError(b, err)
	b.Cleanup(func() { onDevice.Close() })
	onDevice.SetRoute(batch.RouteDevice)
	cpu := hpke.CPUEngine()
	b.Cleanup(func() { cpu.Close() })
	return d, []namedEngine{{"cpu", cpu}, {"auto", auto}, {"device", onDevice}}
}

type namedEngine struct {
	name string
	e    *hpke.Engine
}

// BenchmarkOpen times Open of benchMessage-byte messages to one key, for
// each benchSuites suite, on each benchEngines engine, at each of
// benchBatches messages a call, one call at a time. msgs/s is end to end,
// from the ciphertexts in host memory to the plaintexts there;
// BenchmarkOpenGo is crypto/hpke on all cores beside it.
func BenchmarkOpen(b *testing.B) {
	d, engines := benchEngines(b)
	for _, s := range benchSuites() {
		k, err := hpke.GenerateKey(s.s.KEM)
		require.NoError(b, err)
		biggest := benchBatches(d)[len(benchBatches(d))-1]
		pts := make([][]byte, biggest)
		for i := range pts {
			pts[i] = make([]byte, benchMessage)
			rand.Read(pts[i])
		}
		sealed, err := engines[0].e.Seal(s.s, k.PublicKey(), []byte("bench"), pts)
		require.NoError(b, err)
		for _, e := range engines {
			for _, n := range benchBatches(d) {
				b.Run(fmt.Sprintf("%s/%v/%d", e.name, s.s.KEM, n), func(b *testing.B) {
					call := func() error { _, err := e.e.Open(s.s, k, []byte("bench"), sealed[:n]); return err }
					benchCalls(b, n, call)
				})
			}
		}
	}
}

// BenchmarkSeal is BenchmarkOpen for Seal (fresh randomness).
func BenchmarkSeal(b *testing.B) {
	d, engines := benchEngines(b)
	for _, s := range benchSuites() {
		k, err := hpke.GenerateKey(s.s.KEM)
		require.NoError(b, err)
		biggest := benchBatches(d)[len(benchBatches(d))-1]
		pts := make([][]byte, biggest)
		for i := range pts {
			pts[i] = make([]byte, benchMessage)
		}
		for _, e := range engines {
			for _, n := range benchBatches(d) {
				b.Run(fmt.Sprintf("%s/%v/%d", e.name, s.s.KEM, n), func(b *testing.B) {
					call := func() error { _, err := e.e.Seal(s.s, k.PublicKey(), []byte("bench"), pts[:n]); return err }
					benchCalls(b, n, call)
				})
			}
		}
	}
}

// benchCalls times call, of n messages, after one call to warm it.
func benchCalls(b *testing.B, n int, call func() error) {
	require.NoError(b, call())
	start := time.Now()
	calls := 0
	for b.Loop() {
		require.NoError(b, call())
		calls++
	}
	b.ReportMetric(float64(calls*n)/time.Since(start).Seconds(), "msgs/s")
}

// BenchmarkOpenGo is crypto/hpke's Open of benchMessage-byte messages to
// one key, for each benchSuites suite, on all cores (b.RunParallel: one
// goroutine a core, GOMAXPROCS).
func BenchmarkOpenGo(b *testing.B) {
	for _, s := range benchSuites() {
		k, err := s.kem.GenerateKey()
		require.NoError(b, err)
		const distinct = 256
		sealed := make([][]byte, distinct)
		for i := range sealed {
			pt := make([]byte, benchMessage)
			rand.Read(pt)
			sealed[i], err = stdhpke.Seal(k.PublicKey(), stdhpke.HKDFSHA256(), s.aead, []byte("bench"), pt)
			require.NoError(b, err)
		}
		b.Run(s.s.KEM.String(), func(b *testing.B) {
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					if _, err := stdhpke.Open(k, stdhpke.HKDFSHA256(), s.aead, []byte("bench"), sealed[i%distinct]); err != nil {
						panic(err)
					}
					i++
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
		})
	}
}
