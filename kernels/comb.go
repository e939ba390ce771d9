package kernels

import (
	"slices"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

// CombTable returns the words of the fixed-base comb table of curve
// ("x25519" or "x448"): the comb kernels (comb.h) take them as a global
// buffer, or, built with -DCOMB_TABLE_CONSTANT, read the same words from
// the array comb_table of comb_gen.h in constant memory.
func CombTable(curve string) ([]uint32, error) {
	w, err := generate.CombTableWords(curve)
	return slices.Clone(w), err
}
