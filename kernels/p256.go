package kernels

import (
	"slices"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

// P256BaseTable returns the words of the P-256 base point's multiples
// that the verification kernel (ecdsa.cl) takes as a global buffer, a
// radix-256 comb: row i, i = 0..32, holds n·256^i·G for n = 1..128,
// affine, in the Montgomery form of p256.h, x then y, 16 words per entry
// (270,336 bytes).
func P256BaseTable() []uint32 { return slices.Clone(generate.P256BaseTableWords()) }

// P256CombTable returns the words of the fixed-base comb of p256_comb.h
// (k·G in constant time): row i, i = 0..64, holds n·16^i·G for n = 1..8,
// affine, in the Montgomery form of p256.h, x then y.
func P256CombTable() []uint32 { return slices.Clone(generate.P256CombTableWords()) }
