package kernels

import (
	"fmt"
	"slices"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

// CombTable returns the words of the fixed-base comb table of curve
// ("x25519" or "x448"), which the comb kernels (comb.h) take as a global
// buffer.
func CombTable(curve string) ([]uint32, error) {
	w, err := generate.CombTableWords(curve)
	if err != nil {
		return nil, fmt.Errorf("kernels: %w", err)
	}
	return slices.Clone(w), nil
}
