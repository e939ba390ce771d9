// Package kernels holds the GPU kernel sources of gpucrypto, embedded in the
// binary, and resolves their #include lines so that each program is handed
// to the compiler as one self-contained string.
//
// The tree is written once for OpenCL C and CUDA C through dialect.h; the
// limb arithmetic (limb.h) has a portable path and an NVIDIA inline-PTX path
// (limb_ptx.h, the only file with PTX). Unrolled fixed-width code is
// generated: run `go generate ./kernels` after changing
// kernels/internal/generate.
package kernels

//go:generate go run ./gen

import (
	"embed"
	"fmt"
	"path"
	"strings"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

//go:embed *.h *.cl
var files embed.FS

// ArithLimbs lists the widths (in 32-bit limbs) that the arith kernels exist for.
func ArithLimbs() []int { return append([]int(nil), generate.ArithLimbs...) }

// MontLimbs lists the modulus widths (in 32-bit limbs) of the Montgomery
// code in mont_gen.h; MontHasFIPS and MontHasSqr tell at which arithmetic
// widths the optional product-scanning and squaring functions exist.
func MontLimbs() []int       { return append([]int(nil), generate.MontLimbs...) }
func MontHasFIPS(w int) bool { return generate.MontHasFIPS(w) }
func MontHasSqr(w int) bool  { return generate.MontHasSqr(w) }

// Source returns the named kernel file with every `#include "x"` replaced by
// the file's text (each file at most once, like #pragma once). The result
// depends only on the embedded tree, so it is a stable cache-key input.
func Source(name string) (string, error) {
	var b strings.Builder
	seen := map[string]bool{}
	if err := include(&b, name, seen, nil); err != nil {
		return "", err
	}
	return b.String(), nil
}

// MustSource is Source for names known at compile time; it panics on a
// missing file, which a test of this package would catch first.
func MustSource(name string) string {
	s, err := Source(name)
	if err != nil {
		panic(err)
	}
	return s
}

func include(b *strings.Builder, name string, seen map[string]bool, stack []string) error {
	name = path.Clean(name)
	if seen[name] {
		return nil
	}
	seen[name] = true
	data, err := files.ReadFile(name)
	if err != nil {
		return fmt.Errorf("kernels: %s (included from %v): %w", name, stack, err)
	}
	fmt.Fprintf(b, "/* ---- %s ---- */\n", name)
	for _, line := range strings.SplitAfter(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "#pragma once" {
			continue
		}
		if strings.HasPrefix(t, "#include") {
			f := strings.TrimSpace(strings.TrimPrefix(t, "#include"))
			if len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' {
				if err := include(b, path.Join(path.Dir(name), f[1:len(f)-1]), seen, append(stack, name)); err != nil {
					return err
				}
				continue
			}
		}
		b.WriteString(line)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	return nil
}
