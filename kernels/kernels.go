// Package kernels holds the GPU kernel sources of gpucrypto, embedded in the
// binary, and resolves their #include lines so that each program is handed
// to the compiler as one self-contained string.
//
// The tree is written once for OpenCL C and CUDA C through dialect.h; the
// limb arithmetic (limb.h) has a portable path and an NVIDIA inline-PTX path
// (limb_ptx.h, the only file with PTX). The unrolled fixed-width code is
// not in the tree: the files named *_gen.h are virtual, and Source puts in
// place of their #include lines what kernels/internal/generate writes for
// exactly the widths and functions the program's -D options ask for (see
// generated.go for the options each one reads).
package kernels

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

//go:embed *.h *.cl
var files embed.FS

// Source returns the named kernel file with every `#include "x"` replaced by
// the file's text (each file at most once, like #pragma once), the virtual
// *_gen.h files by the generated code that defines asks for. defines are
// the program's -D options, the same map the host hands the compiler
// (NAME → value, "" for a bare -DNAME). The result depends only on the
// embedded tree and defines, so it is a stable cache-key input. A define
// that asks for code which does not exist (a width without Montgomery
// code, say) is an error.
func Source(name string, defines map[string]string) (string, error) {
	return SourceFrom(nil, name, defines)
}

// SourceFrom is Source for a file of extra, whose #include lines resolve
// in extra first and then in the tree: programs kept apart from the
// library's (test programs, baselines) build on its files this way. A nil
// extra is the tree alone.
func SourceFrom(extra fs.FS, name string, defines map[string]string) (string, error) {
	r := resolver{defines: defines, seen: map[string]bool{}, extra: extra}
	if err := r.include(name, nil); err != nil {
		return "", err
	}
	return r.b.String(), nil
}

// resolver is one run of Source.
type resolver struct {
	b       strings.Builder
	defines options
	seen    map[string]bool
	extra   fs.FS // read before the tree (SourceFrom); nil: none
}

// includeLine is an #include line of the tree: a quoted name, then at
// most a comment.
var includeLine = regexp.MustCompile(`^#include\s*"([^"]+)"\s*(?:/\*.*\*/|//.*)?$`)

// include appends file name, resolving its own #include lines; stack is
// the chain of files that included it.
func (r *resolver) include(name string, stack []string) error {
	name = path.Clean(name)
	if r.seen[name] {
		return nil
	}
	r.seen[name] = true
	text, err := r.read(name)
	if err != nil {
		if len(stack) > 0 {
			return fmt.Errorf("kernels: %s (via %s): %w", name, strings.Join(stack, ", "), err)
		}
		return fmt.Errorf("kernels: %s: %w", name, err)
	}
	fmt.Fprintf(&r.b, "/* ---- %s ---- */\n", name)
	for _, line := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "#pragma once" {
			continue
		}
		if strings.HasPrefix(t, "#include") {
			m := includeLine.FindStringSubmatch(t)
			if m == nil {
				// passed on, the compiler would include the file a second
				// time, past the #pragma once this resolver removes
				return fmt.Errorf("kernels: %s: an #include this resolver cannot read: %s", name, t)
			}
			if err := r.include(path.Join(path.Dir(name), m[1]), append(stack, name)); err != nil {
				return err
			}
			continue
		}
		r.b.WriteString(line)
	}
	if !strings.HasSuffix(r.b.String(), "\n") {
		r.b.WriteByte('\n')
	}
	return nil
}

// read returns the text of a file of the tree or of a virtual file.
func (r *resolver) read(name string) (string, error) {
	if gen, ok := generated[name]; ok {
		return gen(r.defines)
	}
	if r.extra != nil {
		if data, err := fs.ReadFile(r.extra, name); err == nil {
			return string(data), nil
		}
	}
	data, err := files.ReadFile(name)
	return string(data), err
}
