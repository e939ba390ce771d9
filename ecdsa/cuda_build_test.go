//go:build cuda

package ecdsa_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// The program compiles as CUDA C through NVRTC (sm_90; no GPU needed)
// and holds the kernels the Engine launches.
func TestCUDABuildsTheProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	p, err := d.Program(kernels.Program("ecdsa.cl", nil))
	require.NoError(t, err)
	for _, name := range []string{"ecdsa_p256_verify", "ecdsa_p256_sign"} {
		_, err = p.Kernel(name)
		require.NoError(t, err, name)
	}
}
