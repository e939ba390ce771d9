package devicetest

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// DefineArrays are the numbers of the kernel source's eight-word arrays,
//
//	#define NAME { w0, w1, ..., w7 }    (w0 least significant; 0x…u or decimal)
//
// whose NAME starts with prefix, by name: the tests that recompute a
// header's constants read them this way. Continued lines (a backslash
// before the newline) are joined first. An array of another length ends
// the test.
func DefineArrays(tb testing.TB, src, prefix string) map[string]*big.Int {
	tb.Helper()
	src = strings.ReplaceAll(src, "\\\n", " ")
	arrays := map[string]*big.Int{}
	for _, m := range regexp.MustCompile(`#define (`+regexp.QuoteMeta(prefix)+`\w*) \{([^}]*)\}`).FindAllStringSubmatch(src, -1) {
		parts := strings.Split(m[2], ",")
		if len(parts) != 8 {
			tb.Fatalf("%s: %d words, want 8", m[1], len(parts))
		}
		x := new(big.Int)
		for j, part := range parts {
			w, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(part), "u"), 0, 32)
			if err != nil {
				tb.Fatalf("%s: %v", m[1], err)
			}
			x.Or(x, new(big.Int).Lsh(new(big.Int).SetUint64(w), uint(32*j)))
		}
		arrays[m[1]] = x
	}
	return arrays
}

// DefineWords are the one-word constants of the kernel source,
// "#define NAME 0x…u", whose NAME starts with prefix, by name.
func DefineWords(tb testing.TB, src, prefix string) map[string]uint64 {
	tb.Helper()
	words := map[string]uint64{}
	for _, m := range regexp.MustCompile(`#define (`+regexp.QuoteMeta(prefix)+`\w*) (0x[0-9a-fA-F]+)u\n`).FindAllStringSubmatch(src, -1) {
		w, err := strconv.ParseUint(m[2], 0, 32)
		if err != nil {
			tb.Fatalf("%s: %v", m[1], err)
		}
		words[m[1]] = w
	}
	return words
}
