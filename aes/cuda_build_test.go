//go:build cuda

package aes_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// The AES program compiles as CUDA C through NVRTC (sm_90; no GPU needed)
// in both table layouts and holds every kernel the Engine launches.
func TestCUDABuildsEveryProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	for _, l := range []aes.Layout{aes.LayoutCompact, aes.LayoutWide} {
		p, err := d.Program(aes.ProgramSource(l, 512, 16))
		require.NoError(t, err, l)
		for _, name := range []string{"aes_ecb_encrypt", "aes_ecb_decrypt", "aes_ctr", "gcm_segments", "gcm_segments_r10", "gcm_segments_r12", "gcm_segments_r14", "gcm_reduce", "gcm_reduce_one", "gcm_finish"} {
			_, err := p.Kernel(name)
			require.NoError(t, err, "%s: %s", l, name)
		}
	}
}
