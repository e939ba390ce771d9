package kernels

import "github.com/gpucrypto/gpucrypto/kernels/internal/generate"

// FP64Limbs lists the modulus widths (in 32-bit limbs) of the floating-point
// Montgomery code (fp64_gen.h); FP64Digits gives its number of 51-bit
// digits at a width and FP64HasSqr whether the dedicated squaring exists.
func FP64Limbs() []int      { return append([]int(nil), generate.FP64Limbs...) }
func FP64Digits(n int) int  { return generate.FP64Digits(n) }
func FP64HasSqr(n int) bool { return generate.FP64HasSqr(n) }
