//go:build cuda

package aesvariant

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// The Manavski kernel compiles as CUDA C through NVRTC (sm_90; no GPU
// needed) in both versions (key in cached global memory, key in shared
// memory).
func TestCUDABuildsManavski(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	for _, cfg := range []ManavskiConfig{{}, {KeyInShared: true}} {
		p, err := d.Program(manavskiSource(cfg))
		require.NoError(t, err, "keyInShared=%v", cfg.KeyInShared)
		_, err = p.Kernel("manavski_ecb_encrypt")
		require.NoError(t, err, "keyInShared=%v", cfg.KeyInShared)
	}
}
