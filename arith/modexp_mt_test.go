package arith_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// The multi-thread form against math/big: every lane count at 512 bits
// (32 is capped at 16 there, as for the short moduli of the other cases),
// and the counts the benchmarks use at the wider moduli, each with a batch
// that is not a whole number of work-groups (the padding groups must store
// nothing and disturb no real element).
func TestModExpMultiThread(t *testing.T) {
	d := devicetest.Device(t)
	eng, err := arith.NewEngine(d)
	require.NoError(t, err)
	eng.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	short := devicetest.Short(d)
	cases := []struct{ bits, threads int }{
		{512, 2}, {512, 4}, {512, 8}, {512, 16}, {512, 32},
		{1024, 4}, {1024, 8}, {1024, 16}, {1536, 8}, {1536, 16}, {2048, 8}, {2048, 16}, {2048, 32},
		{3072, 16}, {3072, 32}, {4096, 16}, {4096, 32},
	}
	if short { // PoCL builds each of these in minutes: one, over several
		// work-groups (a GPU runs them all, on both paths)
		cases = cases[1:2]
	}
	for _, c := range cases {
		count := 150
		if c.bits > 1024 {
			count = 60
			if short {
				count = 13
			}
		}
		t.Run(fmt.Sprintf("%d/t%d", c.bits, c.threads), func(t *testing.T) {
			checkModExp(t, eng, arith.MontConfig{Threads: c.threads}, modexpCases(c.bits, count))
		})
	}
	if short {
		return
	}
	t.Run("window", func(t *testing.T) { // another table size
		checkModExp(t, eng, arith.MontConfig{Threads: 4, Window: 2}, modexpCases(512, 40))
	})
}

// The threads per number of a batch by its size, on a GPU of 132 compute
// units, at the points BenchmarkModExpThreads measures.
func TestBatchThreads(t *testing.T) {
	for _, c := range []struct{ n, count, want int }{
		{32, 2, 16}, {32, 128, 16}, {32, 2048, 16}, {32, 4096, 8}, {32, 8192, 4}, {32, 16384, 1},
		{48, 2, 16}, {48, 2048, 16}, {48, 16384, 8}, {48, 1 << 20, 8},
		{64, 2, 32}, {64, 128, 32}, {64, 2048, 16}, {64, 16384, 8},
		{96, 1000, 32}, {96, 2048, 16}, {128, 1 << 20, 16},
		{16, 2, 8}, {16, 8192, 4}, {16, 1 << 20, 1},
	} {
		require.Equal(t, c.want, arith.BatchThreads(c.n, c.count, 132), "%d limbs, %d numbers", c.n, c.count)
	}
	gpu := &device.Device{Info: device.Info{Class: device.VendorNVIDIA, ComputeUnits: 132}}
	for _, c := range []struct {
		cfg          arith.MontConfig
		dev          *device.Device
		count, lanes int
	}{
		{arith.MontConfig{}, gpu, 2, 16},
		{arith.MontConfig{}, gpu, 0, 1},       // unknown count: the large-batch default
		{arith.MontConfig{}, gpu, 1 << 20, 1}, // 1024 bits: one thread when the batch fills the GPU
		{arith.MontConfig{Threads: 1}, gpu, 2, 1},
		{arith.MontConfig{Variant: arith.CIOS}, gpu, 2, 1},
		{arith.MontConfig{Window: 3}, gpu, 2, 16}, // the window is not the kernel's choice
		{arith.MontConfig{}, &device.Device{Info: device.Info{Class: device.VendorCPU, ComputeUnits: 2}}, 2, 1},
		{arith.MontConfig{}, nil, 2, 1},
	} {
		m, err := c.cfg.ResolveFor(c.dev, 32, c.count)
		require.NoError(t, err)
		require.Equal(t, c.lanes, m.Lanes, "%+v, %d numbers", c.cfg, c.count)
	}
}

func TestMultiThreadResolve(t *testing.T) {
	m, err := arith.MontConfig{Threads: 8}.Resolve(64)
	require.NoError(t, err)
	require.Equal(t, "cios-fs-w5-t8", m.String())
	require.Equal(t, 8, m.Lanes)
	require.Equal(t, "modexp_mt.cl", m.KernelFile())
	require.Equal(t, "8", m.Defines()["LANES"])
	m, err = arith.MontConfig{}.Resolve(64) // by size: 8 threads at 2048 bits
	require.NoError(t, err)
	require.Equal(t, 8, m.Lanes)
	m, err = arith.MontConfig{}.Resolve(32) // one at 1024
	require.NoError(t, err)
	require.Equal(t, 1, m.Lanes)
	m, err = arith.MontConfig{Threads: 1}.Resolve(64)
	require.NoError(t, err)
	require.Equal(t, 1, m.Lanes)
	m, err = arith.MontConfig{}.ResolveFor(&device.Device{Info: device.Info{Class: device.VendorCPU}}, 64, 1) // CPU devices: one
	require.NoError(t, err)
	require.Equal(t, 1, m.Lanes)
	m, err = arith.MontConfig{Threads: 32}.Resolve(48) // capped at what divides 48 words
	require.NoError(t, err)
	require.Equal(t, 16, m.Lanes)
	for _, tc := range []struct {
		cfg  arith.MontConfig
		n    int
		want string
	}{
		{arith.MontConfig{Threads: 3}, 16, "power of two"},
		{arith.MontConfig{Threads: 64}, 128, "power of two up to 32"},
		{arith.MontConfig{Threads: 4, Variant: arith.FIOS}, 32, "multi-thread form is CIOS"},
		{arith.MontConfig{Threads: 4, Form: arith.NoFinalSub}, 32, "no \"nfs\" form"},
		{arith.MontConfig{Threads: 4, Sqr: 1}, 32, "no dedicated squaring"},
		{arith.MontConfig{Threads: 16, Variant: arith.FP64}, 32, "fp64 variant with 16 threads per number: want a power of two up to 8"},
		{arith.MontConfig{Threads: 3, Variant: arith.FP64}, 32, "want a power of two"},
		{arith.MontConfig{Threads: 4, Variant: arith.FP64, Sqr: 1}, 32, "no dedicated squaring"},
		{arith.MontConfig{Threads: 4, Variant: arith.FP64, Form: arith.NoFinalSub}, 32, "no \"nfs\" form"},
	} {
		_, err := tc.cfg.Resolve(tc.n)
		require.ErrorContains(t, err, tc.want, "%+v", tc.cfg)
	}
}
