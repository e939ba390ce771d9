package ecdh

import (
	"crypto/rand"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/cl"
	"github.com/gpucrypto/gpucrypto/internal/cltest"
)

// mtBenchBatches are the batch sizes of BenchmarkMT: GPUCRYPTO_BENCH_BATCH
// (one size or a comma-separated list), else 131072 on a GPU and 256
// elsewhere (a CPU device only checks that the benchmark runs).
func mtBenchBatches(tb testing.TB, d *cl.Device) []int {
	tb.Helper()
	s := os.Getenv("GPUCRYPTO_BENCH_BATCH")
	if s == "" {
		if d.Type&cl.TypeGPU != 0 {
			return []int{131072}
		}
		return []int{256}
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			tb.Fatalf("GPUCRYPTO_BENCH_BATCH=%q: want positive batch sizes", s)
		}
		out = append(out, n)
	}
	return out
}

// mtBenchBinv is the batch inversion group size of the binv=… cases of
// BenchmarkMT (the Engine's automatic choice for large batches).
const mtBenchBinv = 16

// BenchmarkMT compares the variable-base shared-secret kernels with 1
// (the Engine's one-work-item ladder, kernels/ladder.h), 2 and 4
// work-items per scalar multiplication (kernels/ladder_mt.h), each with
// the final inversion per element (binv=0, what the multi-lane kernel
// does alone) and shared by groups of mtBenchBinv (binv=16: the ladder
// kernel stops at (X : Z) and the batched inversion kernel follows; the
// time is of both kernels). Metrics: kernel-ops/s (elements per second of
// kernel device time: the number to compare), kernel-ms (device time of
// one batch) and ops/s (wall time, host encoding and transfers included;
// ns/op is per batch). Run on the GPU as
//
//	ecdh.test -test.run '^$' -test.bench MT -test.benchtime 20x
//
// and with GPUCRYPTO_BENCH_BATCH=4096,32768,131072,524288 to see where
// the device fills up.
func BenchmarkMT(b *testing.B) {
	d := cltest.Device(b)
	b.Logf("device %s, inline PTX %v, work-group %d", d, d.InlinePTX(), mtWorkGroup)
	for _, c := range Curves {
		for _, n := range mtBenchBatches(b, d) {
			privs, peers := make([][]byte, n), make([][]byte, n)
			for i := range n {
				privs[i], peers[i] = make([]byte, c.Size()), make([]byte, c.Size())
				rand.Read(privs[i])
				rand.Read(peers[i])
			}
			for _, binv := range []int{0, mtBenchBinv} {
				for _, lanes := range append([]int{1}, mtLaneCounts...) {
					b.Run(fmt.Sprintf("%s/lanes=%d/binv=%d/%d", c, lanes, binv, n), func(b *testing.B) {
						var run func() ([][]byte, time.Duration, error)
						if lanes == 1 {
							e := mtOneLane(b, binv)
							run = func() ([][]byte, time.Duration, error) { return e.Timed(c, privs, peers) }
						} else {
							m := mtGet(b, c, lanes)
							run = func() ([][]byte, time.Duration, error) { return m.sharedSecrets(privs, peers, binv) }
						}
						if _, _, err := run(); err != nil { // builds and first launch outside the timing
							b.Fatal(err)
						}
						var dev time.Duration
						for b.Loop() {
							_, dt, err := run()
							if err != nil {
								b.Fatal(err)
							}
							dev += dt
						}
						b.ReportMetric(float64(n*b.N)/dev.Seconds(), "kernel-ops/s")
						b.ReportMetric(dev.Seconds()*1e3/float64(b.N), "kernel-ms")
						b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "ops/s")
					})
				}
			}
		}
	}
}
