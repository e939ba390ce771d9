//go:build cuda

package ecdsa_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// The programs compile as CUDA C through NVRTC (sm_90; no GPU needed)
// and hold the kernels the Engine launches.
func TestCUDABuildsTheProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	for file, names := range map[string][]string{
		"ecdsa.cl":     {"ecdsa_p256_verify_scalars", "ecdsa_p256_verify", "ecdsa_p256_sign_point", "ecdsa_p256_sign_finish"},
		"p256_ecdh.cl": {"ecdh_p256_shared_point", "ecdh_p256_public_point", "ecdh_p256_finish"},
	} {
		p, err := d.Program(kernels.Program(file, nil))
		require.NoError(t, err, file)
		for _, name := range names {
			_, err = p.Kernel(name)
			require.NoError(t, err, name)
		}
	}
}
