//go:build cuda

package arith_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// modExpVariants are every form of the modexp program that a MontConfig
// can ask for at a modulus width of n words: every integer variant, form
// and squaring, every number of threads per number, the fp64 variant with
// and without its squaring and with 2, 4 and 8 lanes, and the extreme
// windows at 1024 bits. Forms
// that Mont.Buildable refuses on the device are not built (rows unrolled
// beyond device.Info.UnrollLimit crashed NVRTC 11.8 and 13.0: 8 MB of
// stack overflowed on FIOS at 1024 bits).
func modExpVariants(n int) []arith.MontConfig {
	out := []arith.MontConfig{{}} // the default by size
	for _, v := range arith.Variants {
		for _, form := range []arith.Form{arith.FinalSub, arith.NoFinalSub} {
			for _, sqr := range []int{1, -1} {
				out = append(out, arith.MontConfig{Variant: v, Form: form, Sqr: sqr, Threads: 1},
					arith.MontConfig{Variant: v, Form: form, Sqr: sqr, Threads: 1, Rows: 1})
			}
		}
	}
	for _, t := range []int{2, 4, 8, 16, 32} {
		out = append(out, arith.MontConfig{Threads: t})
	}
	out = append(out, arith.MontConfig{Variant: arith.FP64}, arith.MontConfig{Variant: arith.FP64, Sqr: -1})
	for _, t := range []int{2, 4, 8} {
		out = append(out, arith.MontConfig{Variant: arith.FP64, Threads: t})
	}
	if n == 32 {
		out = append(out, arith.MontConfig{Window: 1}, arith.MontConfig{Window: 6})
	}
	return out
}

// Every kernel program of the package compiles as CUDA C through NVRTC
// (for sm_90; no GPU needed) and holds the kernels the host launches.
func TestCUDABuildsEveryProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	p, err := d.Program(kernels.Program("arith.cl", nil))
	require.NoError(t, err)
	for _, bits := range arith.Widths() {
		for _, op := range arith.Ops {
			_, err := p.Kernel(fmt.Sprintf("arith_%s_%d", op, bits))
			require.NoError(t, err)
		}
	}
	built := map[string]bool{}
	for _, n := range arith.ModLimbs() {
		for _, c := range modExpVariants(n) {
			m, err := c.Resolve(n)
			if err != nil { // a form that does not exist at this width
				continue
			}
			// as resolved for this device too (the defaults on a GPU
			// with fast fp64, 52-bit digits with the PTX path)
			onDevice, err := c.ResolveFor(d, n, 0)
			require.NoError(t, err)
			for _, m := range []arith.Mont{m, onDevice} {
				if m.Buildable(d) != nil {
					continue
				}
				src, err := m.Source(d, m.KernelFile(), nil)
				require.NoError(t, err)
				key := fmt.Sprint(src.Name, src.Defines)
				if built[key] {
					continue
				}
				built[key] = true
				p, err := d.Program(src)
				require.NoError(t, err, "%d bits, %s", 32*n, m)
				_, err = p.Kernel("modexp")
				require.NoError(t, err, "%d bits, %s", 32*n, m)
			}
		}
	}
	t.Logf("%d modexp programs compiled", len(built))
}
