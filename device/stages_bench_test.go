package device_test

import (
	"testing"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/cputime"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// BenchmarkStagesRun is the host cost of small batches through Stages: one
// secret upload, one kernel and its read-back of 64 words each (with the
// zeroing behind them: about twenty driver calls per batch), so the
// kernel's own time is small beside the host's. host-cpu-ns/op is the CPU
// time of the whole process per batch (a CPU device's own threads
// included).
func BenchmarkStagesRun(b *testing.B) {
	d := devicetest.Device(b)
	p, err := d.Program(source("scale", scaleSrc, nil))
	if err != nil {
		b.Fatal(err)
	}
	k, err := p.Kernel("scale")
	if err != nil {
		b.Fatal(err)
	}
	st, err := d.NewStages()
	if err != nil {
		b.Fatal(err)
	}
	defer st.Release()
	pool := d.NewPool(0)
	defer pool.Drain()
	const n = 64
	in, out := make([]uint32, n), make([]uint32, n)
	batch := func(c *device.Commands) error {
		buf, err := c.Upload(in, true)
		if err != nil {
			return err
		}
		if err := c.Launch(k, n, 64, buf, uint32(3), uint32(n)); err != nil {
			return err
		}
		return c.Read(buf, device.Uint32Bytes(out))
	}
	if _, err := st.Run(pool, batch); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0, _ := cputime.Process()
	for b.Loop() {
		if _, err := st.Run(pool, batch); err != nil {
			b.Fatal(err)
		}
	}
	cpu, _ := cputime.Process()
	b.ReportMetric(float64((cpu-cpu0).Nanoseconds())/float64(b.N), "host-cpu-ns/op")
}
