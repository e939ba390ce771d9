package kernels

import (
	"slices"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

// P256CombTable returns the words of the fixed-base comb of p256_comb.h
// (k·G in constant time): row i, i = 0..64, holds n·16^i·G for n = 1..8,
// affine, in the Montgomery form of p256.h, x then y.
func P256CombTable() []uint32 { return slices.Clone(generate.P256CombTableWords()) }

// P256CheckTable returns the table of P256CombTable for the base point
// FaultCheckMultiple·G in place of G, in the same layout: the table of
// the fault check of deterministic signatures (ecdsa.cl's
// ecdsa_p256_sign_check).
func P256CheckTable() []uint32 { return slices.Clone(generate.P256CheckTableWords()) }
