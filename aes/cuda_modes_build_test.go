//go:build cuda

package aes_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// The CBC and XTS program (kernels/aes_modes.cl) compiles as CUDA C through
// NVRTC (sm_90; no GPU needed) in both table layouts and holds every
// kernel the Engine launches.
func TestCUDABuildsModesProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	for _, l := range []aes.Layout{aes.LayoutCompact, aes.LayoutWide} {
		p, err := d.Program(aes.ModesSource(l))
		require.NoError(t, err, l)
		for _, name := range []string{"cbc_encrypt", "cbc_decrypt", "xts_tweak", "xts_encrypt", "xts_decrypt"} {
			_, err := p.Kernel(name)
			require.NoError(t, err, "%s: %s", l, name)
		}
	}
}
