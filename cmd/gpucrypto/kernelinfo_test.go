package main

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/gpucrypto/gpucrypto/device"
)

// kernelDecl matches a kernel's definition in a program's source.
var kernelDecl = regexp.MustCompile(`KERNEL(?:\s+KERNEL_BOUNDS\([^)]*\))?\s+void\s+(\w+)\s*\(`)

// kernelMacro matches a macro that defines a kernel named by one of its
// parameters (aes.cl's GCM_SEGMENTS_KERNEL): the macro's name, its first
// parameter and the kernel's name in its body (the same for such a macro);
// each line that invokes it defines a kernel.
var kernelMacro = regexp.MustCompile(`#define\s+(\w+)\((\w+)[^)]*\)\s*\\\s*\nKERNEL(?:\s+KERNEL_BOUNDS\([^)]*\))?\s+void\s+(\w+)\s*\(`)

// macroName matches a kernel name that is a macro: a header's kernel that
// only the programs defining the macro have.
var macroName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// TestKernelInfoBuilds: kernelinfo builds each program once (no duplicate
// rows) and covers every kernel of the AES programs, ed25519.cl and the
// P-256 programs (those that define their kernels one by one).
func TestKernelInfoBuilds(t *testing.T) {
	d, err := device.Any()
	if err != nil {
		if os.Getenv("GPUCRYPTO_REQUIRE_DEVICE") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	builds, skipped, err := kernelInfoBuilds(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) > 0 {
		t.Fatalf("programs not built on %s: %v", d, skipped)
	}
	titles, keys := map[string]bool{}, map[string]bool{}
	for _, b := range builds {
		if titles[b.title] {
			t.Errorf("program %q listed twice", b.title)
		}
		if k := buildKey(b.src, b.kernels); keys[k] {
			t.Errorf("program %q: the same build as an earlier one", b.title)
		} else {
			keys[k] = true
		}
		titles[b.title] = true
	}
	for _, file := range []string{"aes.cl", "aes_modes.cl", "ed25519.cl", "ecdsa.cl", "p256_ecdh.cl"} {
		i := slices.IndexFunc(builds, func(b kernelBuild) bool { return b.src.Name == file })
		if i < 0 {
			t.Errorf("kernelinfo does not build %s", file)
			continue
		}
		text, err := builds[i].src.Text()
		if err != nil {
			t.Fatal(err)
		}
		var defined []string
		params := map[string]bool{} // kernel-defining macros' name parameters
		for _, m := range kernelMacro.FindAllStringSubmatch(text, -1) {
			if m[2] != m[3] {
				continue
			}
			params[m[2]] = true
			for _, use := range regexp.MustCompile(`(?m)^`+m[1]+`\((\w+)`).FindAllStringSubmatch(text, -1) {
				defined = append(defined, use[1])
			}
		}
		for _, m := range kernelDecl.FindAllStringSubmatch(text, -1) {
			if macroName.MatchString(m[1]) || params[m[1]] {
				continue // a name a program defines (comb.h's COMB_KERNEL), or a macro's parameter, not a kernel of this one
			}
			defined = append(defined, m[1])
		}
		if len(defined) == 0 {
			t.Fatalf("%s: found no kernel definitions", file)
		}
		slices.Sort(defined)
		listed := slices.Sorted(slices.Values(builds[i].kernels))
		if !slices.Equal(defined, listed) {
			t.Errorf("%s: kernelinfo reports %q, the program defines %q", file, listed, defined)
		}
	}
}
