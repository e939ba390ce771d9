//go:build cuda

package ecdh_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// Both curves' programs compile as CUDA C through NVRTC (sm_90; no GPU
// needed) and hold every kernel the Engine launches, with the field
// product in its default form and as a loop of 2 rows, (X448) by the
// golden-ratio Karatsuba with the halves' rows in a loop and unrolled,
// and (X25519) the ladder on doubles; the test programs
// of RFC 7748's iterated vectors (ecdh.Iterator) compile too, in the
// default form (each NVRTC build is slow).
func TestCUDABuildsEveryProgram(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	for file, names := range map[string][]string{
		"x25519.cl": {"x25519", "x25519_xz", "x25519_base_comb", "x25519_base_comb_xz", "x25519_invert_batch", "x25519_decode", "x25519_encode"},
		"x448.cl":   {"x448", "x448_xz", "x448_base_comb", "x448_base_comb_xz", "x448_invert_batch", "x448_decode", "x448_encode"},
	} {
		forms := []map[string]string{nil, {"FIELD_MUL_ROWS": "2"}}
		if file == "x25519.cl" {
			forms = append(forms, map[string]string{"LADDER_FP64": "1"})
		} else {
			forms = append(forms, map[string]string{"FIELD_MUL_FORM": "karatsuba"},
				map[string]string{"FIELD_MUL_FORM": "karatsuba", "FIELD_MUL_ROWS": "7"})
		}
		for _, defines := range forms {
			p, err := d.Program(kernels.Program(file, defines))
			require.NoError(t, err, "%s %v", file, defines)
			for _, name := range names {
				_, err := p.Kernel(name)
				require.NoError(t, err, "%s %v: %s", file, defines, name)
			}
		}
	}
	for _, c := range ecdh.Curves() {
		p, err := d.Program(ecdh.IterateProgram(c, nil))
		require.NoError(t, err, "%s", c)
		_, err = p.Kernel(ecdh.Prefix(c) + "_iterate")
		require.NoError(t, err, "%s", c)
	}
}
