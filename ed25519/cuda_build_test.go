//go:build cuda

package ed25519_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// The program compiles as CUDA C through NVRTC (sm_90; no GPU needed) in
// both forms (32-bit limbs, doubles) and holds every kernel the Engine
// launches; so does the tests' build of the GPUs' form with fault
// injection.
func TestCUDABuildsTheProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	for _, defines := range []map[string]string{nil, {"ED25519_FP64": "1"}, {"ED25519_FP64": "1", "ED25519_FAULT_INJECTION": ""}} {
		p, err := d.Program(kernels.Program("ed25519.cl", defines))
		require.NoError(t, err, "%v", defines)
		for _, name := range []string{"ed25519_public", "ed25519_sign", "ed25519_verify"} {
			_, err := p.Kernel(name)
			require.NoError(t, err, "%v: %s", defines, name)
		}
	}
}
