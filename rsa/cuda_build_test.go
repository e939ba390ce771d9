//go:build cuda

package rsa

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// Every kernel program that RSA batches may use compiles as CUDA C through
// NVRTC (sm_90; no GPU needed): warm builds them all for a key size, the
// halves, the modulus, the modexp kernel of each number of threads per
// number and the check apart (rsa_check).
func TestCUDABuildsEveryProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	b := &deviceKernels{dev: d, resident: newResidentKeys(d)}
	for _, bits := range []int{1024, 1536, 2048, 3072, 4096} {
		require.NoError(t, b.warm(bits), "%d-bit keys", bits)
	}
	for _, bits := range []int{1024, 4096} {
		half, _ := sizeClass((bits + 1) / 2)
		full, _ := sizeClass(bits)
		mh, mf, err := b.widths(half, full, 1<<20)
		require.NoError(t, err)
		p, err := b.program(mh, mf, true, false)
		require.NoError(t, err)
		_, err = p.Kernels("rsa_split", "rsa_combine", "rsa_public")
		require.NoError(t, err)
		p, err = b.program(mh, mf, true, true) // the tests' fault injection
		require.NoError(t, err)
		_, err = p.Kernel("rsa_combine")
		require.NoError(t, err)
		cm, apart := b.checkForm(mf)
		require.True(t, apart, "%d-bit keys: the check runs apart on a GPU", bits)
		cp, err := b.checkProgram(cm, mh.W)
		require.NoError(t, err)
		_, err = cp.Kernel("rsa_check")
		require.NoError(t, err)
	}
}
