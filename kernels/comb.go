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

// FaultCheckMultiple is the multiple c of the base point whose tables the
// signing kernels' fault checks read (Ed25519's kernels/ed25519_check.h,
// ECDSA's ecdsa_p256_sign_check): they compute a nonce's point k·B a
// second time as (k/c mod q)·(c·B), q the order of B, so that the two
// computations share neither digits nor table entries.
const FaultCheckMultiple = generate.FaultCheckMultiple

// CombCheckTable returns the words of curve's comb table (CombTable) for
// the base point FaultCheckMultiple·B in place of B, in the same layout:
// the table of the fault check's second computation.
func CombCheckTable(curve string) ([]uint32, error) {
	w, err := generate.CombCheckTableWords(curve)
	if err != nil {
		return nil, fmt.Errorf("kernels: %w", err)
	}
	return slices.Clone(w), nil
}
