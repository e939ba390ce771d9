package arith_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/cl"
	"github.com/gpucrypto/gpucrypto/internal/cltest"
)

// The multi-thread form against math/big: every lane count at 512 bits
// (32 is capped at 16 there, as for the short moduli of the other cases),
// and the counts the benchmarks use at the wider moduli, each with a batch
// that is not a whole number of work-groups (the padding groups must store
// nothing and disturb no real element).
func TestModExpMultiThread(t *testing.T) {
	d := cltest.Device(t)
	eng, err := arith.NewEngine(d)
	require.NoError(t, err)
	short := cltest.Short(d)
	cases := []struct{ bits, threads int }{
		{512, 2}, {512, 4}, {512, 8}, {512, 16}, {512, 32},
		{1024, 4}, {1024, 8}, {1024, 16}, {1536, 8}, {2048, 8}, {2048, 16}, {3072, 16}, {4096, 16}, {4096, 32},
	}
	if short { // PoCL builds each of these in minutes: one, over several
		// work-groups (the H100 runs them all, on both paths)
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
	m, err = arith.MontConfig{}.ResolveFor(&cl.Device{Info: cl.Info{Class: cl.VendorCPU}}, 64) // CPU devices: one
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
		{arith.MontConfig{Threads: 4, Variant: arith.FP64}, 32, "fp64 variant has no multi-thread form"},
	} {
		_, err := tc.cfg.Resolve(tc.n)
		require.ErrorContains(t, err, tc.want, "%+v", tc.cfg)
	}
}
