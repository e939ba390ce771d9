package kernels

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

func TestGeneratedUpToDate(t *testing.T) {
	for name, want := range generate.Files() {
		have, err := files.ReadFile(name) // embedded: the test binary runs anywhere
		require.NoError(t, err)
		require.Equal(t, want, string(have), "%s is stale: run `go generate ./kernels`", name)
	}
}

func TestSourceResolvesIncludes(t *testing.T) {
	src, err := Source("arith.cl")
	require.NoError(t, err)
	require.NotContains(t, src, "#include")
	require.NotContains(t, src, "#pragma once")
	// dialect.h is included by several files but appears once.
	require.Equal(t, 1, strings.Count(src, "/* ---- dialect.h ---- */"))
	for _, n := range ArithLimbs() {
		for _, op := range []string{"add", "sub", "mul"} {
			require.Contains(t, src, "arith_"+op+"_"+itoa(32*n)+"(")
		}
	}
	_, err = Source("missing.cl")
	require.Error(t, err)
}

func TestOnlyLimbPTXHasPTX(t *testing.T) {
	entries, err := files.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		data, err := files.ReadFile(e.Name())
		require.NoError(t, err)
		if e.Name() != "limb_ptx.h" {
			require.NotContains(t, string(data), "asm", "%s: inline PTX belongs in limb_ptx.h", e.Name())
		}
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
