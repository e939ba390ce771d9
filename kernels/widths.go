package kernels

import "github.com/gpucrypto/gpucrypto/kernels/internal/generate"

// ArithLimbs lists the widths (in 32-bit limbs) that the arith kernels
// (arith_gen.h) exist for.
func ArithLimbs() []int { return append([]int(nil), generate.ArithLimbs...) }

// MontLimbs lists the modulus widths (in 32-bit limbs) of the Montgomery
// code in mont_gen.h; MontHasFIPS and MontHasSqr tell at which arithmetic
// widths the optional product-scanning and squaring functions exist.
func MontLimbs() []int       { return append([]int(nil), generate.MontLimbs...) }
func MontHasFIPS(w int) bool { return generate.MontHasFIPS(w) }
func MontHasSqr(w int) bool  { return generate.MontHasSqr(w) }
