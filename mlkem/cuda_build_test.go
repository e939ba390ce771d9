//go:build cuda

package mlkem_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// The program compiles as CUDA C through NVRTC (sm_90; no GPU needed) and
// holds every kernel the Engine launches, for both parameter sets.
func TestCUDABuildsTheProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	p, err := d.Program(kernels.Program("mlkem.cl", nil))
	require.NoError(t, err)
	for _, set := range []string{"mlkem768", "mlkem1024"} {
		for _, kernel := range []string{"_keygen", "_expand", "_check", "_encapsulate", "_decapsulate"} {
			_, err := p.Kernel(set + kernel)
			require.NoError(t, err, set+kernel)
		}
	}
}
