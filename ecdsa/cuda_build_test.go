//go:build cuda

package ecdsa_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// The programs compile as CUDA C through NVRTC (sm_90; no GPU needed)
// and hold the kernels the Engine launches; so does the tests' build of
// ecdsa.cl with fault injection.
func TestCUDABuildsTheProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	signing := []string{"ecdsa_p256_verify_scalars", "ecdsa_p256_verify", "ecdsa_p256_sign_point", "ecdsa_p256_sign_finish", "ecdsa_p256_sign_check"}
	for _, build := range []struct {
		file    string
		defines map[string]string
		names   []string
	}{
		{"ecdsa.cl", nil, signing},
		{"ecdsa.cl", map[string]string{"ECDSA_FAULT_INJECTION": ""}, signing},
		{"p256_ecdh.cl", nil, []string{"ecdh_p256_shared_point", "ecdh_p256_public_point", "ecdh_p256_finish"}},
	} {
		p, err := d.Program(kernels.Program(build.file, build.defines))
		require.NoError(t, err, "%s %v", build.file, build.defines)
		for _, name := range build.names {
			_, err = p.Kernel(name)
			require.NoError(t, err, "%s %v: %s", build.file, build.defines, name)
		}
	}
}
