//go:build go1.26

package mlkem_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

// benchBatch is the batch of the benchmarks: 1,048,576 on a GPU (1,024 on
// a CPU device), or GPUCRYPTO_MLKEM_BENCH_BATCH.
func benchBatch(d *device.Device) int {
	if s := os.Getenv("GPUCRYPTO_MLKEM_BENCH_BATCH"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if d.Type != device.TypeGPU {
		return 1024
	}
	return 1 << 20
}

// BenchmarkOperations times each operation of both parameter sets on
// device engines of both forms of the kernels (routed to the device;
// stream/..., matrix/..., kernelForms) at benchBatch elements a call, one
// call at a time: key generation, encapsulation with fresh randomness
// under distinct keys and under one key, decapsulation under distinct
// keys and under one key (the requests of a key held by a server), and of
// corrupted ciphertexts (every one implicitly rejected: the same work and,
// under a profiler, the same instruction counts as decapsulate's); and
// the same on the CPU engine (crypto/mlkem on all cores; cpu/...). ops/s
// is end to end, from host memory to host memory; kernel-ops/s counts the
// device time of the kernels alone (Stats().DeviceTime).
func BenchmarkOperations(b *testing.B) {
	d := devicetest.Device(b)
	n := benchBatch(d)
	dev, err := mlkem.NewEngine(d)
	require.NoError(b, err)
	defer dev.Close()
	dev.SetRoute(batch.RouteDevice)
	runs := []struct {
		name   string
		engine *mlkem.Engine
	}{{"cpu", mlkem.CPUEngine()}}
	for _, form := range kernelForms {
		restore := mlkem.WithProgramDefines(form.defines)
		e, err := mlkem.NewEngine(d)
		restore()
		require.NoError(b, err)
		defer e.Close()
		e.SetRoute(batch.RouteDevice)
		runs = append(runs, struct {
			name   string
			engine *mlkem.Engine
		}{form.name, e})
	}
	for _, s := range sets {
		seeds, eks, err := generateKeys(dev, s, n)
		require.NoError(b, err)
		_, cts, err := s.encapsulate(dev, eks)
		require.NoError(b, err)
		oneSeed, oneCTs := make([][]byte, n), make([][]byte, n)
		oneEKs := make([][]byte, n)
		for i := range n {
			oneSeed[i], oneEKs[i] = seeds[0], eks[0]
		}
		_, oneCTs, err = s.encapsulate(dev, oneEKs)
		require.NoError(b, err)
		rejected := make([][]byte, n) // each ciphertext with a bit flipped: the implicit rejections
		for i, ct := range cts {
			rejected[i] = append([]byte(nil), ct...)
			rejected[i][i%len(ct)] ^= 1 << (i % 8)
		}
		for _, e := range runs {
			for _, op := range []struct {
				name string
				call func() error
			}{
				{"keygen", func() error { _, err := s.keyGen(e.engine, seeds); return err }},
				{"encapsulate", func() error { _, _, err := s.encapsulate(e.engine, eks); return err }},
				{"encapsulate-one-key", func() error { _, _, err := s.encapsulate(e.engine, oneEKs); return err }},
				{"decapsulate", func() error { _, err := s.decapsulate(e.engine, seeds, cts); return err }},
				{"decapsulate-one-key", func() error { _, err := s.decapsulate(e.engine, oneSeed, oneCTs); return err }},
				{"decapsulate-rejected", func() error { _, err := s.decapsulate(e.engine, seeds, rejected); return err }},
			} {
				b.Run(e.name+"/"+s.name+"/"+op.name, func(b *testing.B) {
					require.NoError(b, op.call()) // warm
					before := e.engine.Stats().DeviceTime
					start := time.Now()
					calls := 0
					for b.Loop() {
						require.NoError(b, op.call())
						calls++
					}
					b.ReportMetric(float64(calls*n)/time.Since(start).Seconds(), "ops/s")
					if kernel := e.engine.Stats().DeviceTime - before; kernel > 0 {
						b.ReportMetric(float64(calls*n)/kernel.Seconds(), "kernel-ops/s")
					}
				})
			}
		}
	}
}

// generateKeys is s's GenerateKeys on e.
func generateKeys(e *mlkem.Engine, s set, n int) (seeds, eks [][]byte, err error) {
	if s.name == "ML-KEM-1024" {
		return e.GenerateKeys1024(n)
	}
	return e.GenerateKeys768(n)
}
