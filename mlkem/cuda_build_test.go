//go:build cuda

package mlkem_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// The program compiles as CUDA C through NVRTC (sm_90; no GPU needed) in
// both forms (the matrix sampled per element; MLKEM_MATRIX) and holds
// every kernel the Engine launches, for both parameter sets; so do the
// test kernels of the headers.
func TestCUDABuildsTheProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	for _, defines := range []map[string]string{nil, {"MLKEM_MATRIX": "1"}} {
		p, err := d.Program(kernels.Program("mlkem.cl", defines))
		require.NoError(t, err, "%v", defines)
		names := []string{"_keygen", "_expand", "_check", "_encapsulate", "_decapsulate"}
		if defines != nil {
			names = append(names, "_matrix")
		}
		for _, set := range []string{"mlkem768", "mlkem1024"} {
			for _, kernel := range names {
				_, err := p.Kernel(set + kernel)
				require.NoError(t, err, "%v: %s", defines, set+kernel)
			}
		}
	}
	for _, file := range []string{"keccak_test.cl", "mlkem_test.cl"} {
		_, err := d.Program(testProgram(file))
		require.NoError(t, err, file)
	}
}
