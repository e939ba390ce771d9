package arith_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// benchBatch is the modexp batch size: GPUCRYPTO_BENCH_BATCH, else 131072
// on a GPU (enough work-items to fill an H100 at the register use of the
// 1024-bit kernels) and 256 on a CPU device.
func benchBatch(b *testing.B, cpu bool) int {
	if s := os.Getenv("GPUCRYPTO_BENCH_BATCH"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("GPUCRYPTO_BENCH_BATCH=%q", s)
		}
		return n
	}
	if cpu {
		return 256
	}
	return 131072
}

// modexpJob builds a job of n random full-width exponentiations under one
// random odd modulus of exactly bits bits.
func modexpJob(b *testing.B, m arith.Mont, bits, n int) *arith.ModExpJob {
	rng := rand.New(rand.NewPCG(uint64(bits), uint64(n)))
	word := func() uint32 { return rng.Uint32() }
	mod := make([]uint32, m.W)
	for j := range bits / 32 {
		mod[j] = word()
	}
	mod[0] |= 1
	mod[bits/32-1] |= 1 << 31
	c, err := arith.NewConstants(arith.FromLimbs(mod), m.W)
	if err != nil {
		b.Fatal(err)
	}
	job := &arith.ModExpJob{Mont: m, Count: n, EWords: bits / 32, Mods: []*arith.Constants{c},
		Base: make([]uint32, m.W*n), Exp: make([]uint32, bits/32*n), Index: make([]uint32, n)}
	for j := range bits / 32 { // bases below 2^bits, limb-major
		for i := range n {
			job.Base[j*n+i] = word()
			job.Exp[j*n+i] = word()
		}
	}
	return job
}

// timeModExp runs b.N batches of n random full-width exponentiations of
// bits bits under m (after one that builds and warms up) and returns the
// kernels' device time.
func timeModExp(b *testing.B, eng *arith.Engine, m arith.Mont, bits, n int) time.Duration {
	job := modexpJob(b, m, bits, n)
	if _, err := eng.RunModExp(job); err != nil {
		b.Fatal(err)
	}
	var kernel time.Duration
	b.ResetTimer()
	for range b.N {
		res, err := eng.RunModExp(job)
		if err != nil {
			b.Fatal(err)
		}
		kernel += res.Kernel
	}
	return kernel
}

// BenchmarkModExp times full-width exponentiations (exponent as wide as
// the modulus) per modulus size and Montgomery configuration. Metrics:
// kernel-ops/s from device event timings, ops/s end to end.
// GPUCRYPTO_BENCH_MT=1 adds the multi-thread form (4, 8 and 16 threads per
// number from 1024 bits up); GPUCRYPTO_BENCH_VARIANTS=1 adds it, every
// variant and form at 512 and 1024 bits,
// and the fp64 variant (with and without its squaring, rows unrolled or
// kept a loop) at 512, 1024 and 2048 bits on devices with fp64.
// GPUCRYPTO_BENCH_FP64=1 adds the fp64 variant at every width: one thread
// per number where it exists, and 2, 4 and 8 threads per number with the
// window by size and of 3 to 6 bits.
func BenchmarkModExp(b *testing.B) {
	d := devicetest.Device(b)
	eng, err := arith.NewEngine(d)
	if err != nil {
		b.Fatal(err)
	}
	eng.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	n := benchBatch(b, d.Type&2 != 0)
	type cfgCase struct {
		bits int
		cfg  arith.MontConfig
	}
	var cases []cfgCase
	for _, limbs := range arith.ModLimbs() {
		// the device's default, and the integer one where they differ
		cases = append(cases, cfgCase{32 * limbs, arith.MontConfig{}}, cfgCase{32 * limbs, arith.DefaultMont(limbs)})
	}
	if os.Getenv("GPUCRYPTO_BENCH_VARIANTS") == "1" || os.Getenv("GPUCRYPTO_BENCH_MT") == "1" {
		// the multi-thread form: 4, 8 and 16 threads per number
		for _, limbs := range arith.ModLimbs()[1:] {
			for _, t := range []int{4, 8, 16} {
				cases = append(cases, cfgCase{32 * limbs, arith.MontConfig{Threads: t}})
			}
		}
	}
	if os.Getenv("GPUCRYPTO_BENCH_VARIANTS") == "1" {
		for _, bits := range []int{512, 1024} {
			for _, v := range arith.Variants {
				for _, fs := range []bool{false, true} {
					for _, sqr := range []int{1, -1} {
						cases = append(cases, cfgCase{bits, arith.MontConfig{Variant: v, Form: form(fs), Sqr: sqr}})
					}
				}
			}
		}
		// rows fully unrolled (Rows: 1) against the default loop of rows
		for _, bits := range []int{1024, 2048} {
			cases = append(cases, cfgCase{bits, arith.MontConfig{Variant: arith.CIOS, Rows: 1}})
		}
		for _, bits := range []int{512, 1024} {
			for _, cfg := range []arith.MontConfig{{Variant: arith.FP64}, {Variant: arith.FP64, Sqr: -1}, {Variant: arith.FP64, Rows: 1}} {
				cases = append(cases, cfgCase{bits, cfg})
			}
		}
		// 2048 bits: no dedicated squaring; rows a loop (default) or unrolled
		cases = append(cases, cfgCase{2048, arith.MontConfig{Variant: arith.FP64}}, cfgCase{2048, arith.MontConfig{Variant: arith.FP64, Rows: 1}})
	}
	if os.Getenv("GPUCRYPTO_BENCH_FP64") == "1" {
		for _, limbs := range arith.ModLimbs() {
			if slices.Contains(arith.FP64Limbs(), limbs) {
				cases = append(cases, cfgCase{32 * limbs, arith.MontConfig{Variant: arith.FP64}})
			}
			for _, t := range []int{2, 4, 8} {
				for _, w := range []int{0, 3, 4, 5, 6} { // the window by size, and others
					cases = append(cases, cfgCase{32 * limbs, arith.MontConfig{Variant: arith.FP64, Threads: t, Window: w}})
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range cases {
		m, err := c.cfg.ResolveFor(d, c.bits/32, n) // as the engine resolves it
		if err != nil {
			b.Fatal(err)
		}
		if m.Buildable(d) != nil || seen[fmt.Sprint(c.bits, m)] {
			continue
		}
		seen[fmt.Sprint(c.bits, m)] = true
		b.Run(fmt.Sprintf("bits=%d/%s/batch=%d", c.bits, m, n), func(b *testing.B) {
			kernel := timeModExp(b, eng, m, c.bits, n)
			b.ReportMetric(float64(n*b.N)/kernel.Seconds(), "kernel-ops/s")
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkModExpCPU is math/big's Exp on all cores for the same sizes.
func BenchmarkModExpCPU(b *testing.B) {
	for _, limbs := range arith.ModLimbs() {
		bits := 32 * limbs
		b.Run(fmt.Sprintf("bits=%d", bits), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(uint64(bits), 1))
			rnd := func() *big.Int {
				w := make([]uint32, limbs)
				for j := range w {
					w[j] = rng.Uint32()
				}
				return arith.FromLimbs(w)
			}
			mod := rnd()
			mod.SetBit(mod, 0, 1).SetBit(mod, bits-1, 1)
			xs, es := make([]*big.Int, 64), make([]*big.Int, 64)
			for i := range xs {
				xs[i], es[i] = rnd(), rnd()
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range runtime.NumCPU() {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var z big.Int
					for {
						i := next.Add(1) - 1
						if i >= int64(b.N) {
							return
						}
						z.Exp(xs[i%64], es[i%64], mod)
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkModExpThreads times the kernel against threads per number and
// batch size at every width (1024, 1536 and 2048 bits are RSA's CRT halves):
// small batches leave a GPU mostly idle, where more threads per number
// shorten each exponentiation. Metrics: kernel-ops/s and kernel-ms (the
// device time of one batch, the latency it adds). GPU devices only (PoCL
// builds each multi-thread kernel for minutes). GPUCRYPTO_BENCH_COUNTS
// replaces the batch sizes (default 2,128,2048,16384: the halves of RSA
// batches of 1, 64, 1024 and 8192).
func BenchmarkModExpThreads(b *testing.B) {
	d := devicetest.Device(b)
	if d.Type&2 != 0 {
		b.Skip("GPU devices only")
	}
	eng, err := arith.NewEngine(d)
	if err != nil {
		b.Fatal(err)
	}
	eng.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	counts := []int{2, 128, 2048, 16384}
	if s := os.Getenv("GPUCRYPTO_BENCH_COUNTS"); s != "" {
		counts = counts[:0]
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n <= 0 {
				b.Fatalf("GPUCRYPTO_BENCH_COUNTS=%q", s)
			}
			counts = append(counts, n)
		}
	}
	for _, limbs := range arith.ModLimbs() {
		bits := 32 * limbs
		for _, t := range []int{1, 4, 8, 16, 32} {
			m, err := arith.MontConfig{Threads: t}.Resolve(limbs)
			if err != nil || m.Lanes != t || m.Buildable(d) != nil {
				continue
			}
			for _, n := range counts {
				b.Run(fmt.Sprintf("bits=%d/t=%d/batch=%d", bits, t, n), func(b *testing.B) {
					kernel := timeModExp(b, eng, m, bits, n)
					b.ReportMetric(float64(n*b.N)/kernel.Seconds(), "kernel-ops/s")
					b.ReportMetric(kernel.Seconds()*1000/float64(b.N), "kernel-ms")
				})
			}
		}
	}
}
