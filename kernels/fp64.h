/* fp64.h: big-number digits held in doubles, for the floating-point
 * Montgomery multiplication (fp64_gen.h; zheng 2014 §4 asks the same
 * question with 23-bit digits and products summed in the mantissa).
 *
 * Representation. A number is d digits of 51 bits, x = Σ x_i·2^(51i); each
 * digit is an integer in [0, 2^51) stored exactly in a double.
 *
 * The exact product of two digits (FP64_SPLIT). For 0 ≤ a < 2^52 and
 * 0 ≤ b < 2^51 (so p = a·b < 2^103), with round-to-nearest:
 *   hi = fma(a, b, 2^103)      p + 2^103 lies in [2^103, 2^104) (p ≤
 *                              2^103 − 2^52 − 2^51 + 1: rounding cannot
 *                              reach 2^104), where the spacing of doubles
 *                              is 2^51, so
 *                              hi = 2^103 + H·2^51 with H = p/2^51 rounded
 *                              to nearest (ties either way), 0 ≤ H < 2^52.
 *   x  = fma(a, b, K − hi)     K = 2^103 + 3·2^51 = 2^51·(2^52 + 3) is a
 *                              double; K − hi = 2^51·(3 − H) with |3 − H| <
 *                              2^53 is one too, so the subtraction is exact;
 *                              then x = p − H·2^51 + 3·2^51 = L + 3·2^51
 *                              with L = p − H·2^51, |L| ≤ 2^50, so x lies in
 *                              [2^52, 2^53), where doubles are the integers:
 *                              the fma result is exact.
 * So p = H·2^51 + L exactly, in two fma and one subtraction (no rounding
 * mode control, nothing above 2^53 in a significand), and both halves are
 * read without a conversion: the bit pattern of hi is BH + H, that of x is
 * BL + L (BH = bits of 2^103; BL = bits of 2^52 + 2^51), as 64-bit
 * integers. With 52-bit digits K would be 2^104 + 3·2^51, 54 bits, not a
 * double: a second subtraction per product. That is why digits have 51.
 *
 * Columns. The halves are summed as 64-bit integers (wrapping): L into the
 * column of the product, H into the next. The offsets BL and BH are
 * multiples of 2^51, so they never change a column mod 2^51 (what the
 * Montgomery quotient reads), and the generator starts every column at
 * minus the offsets it will receive before it is read, so a column holds
 * its true value whenever it is used: a signed number below 2^59 for
 * d ≤ 41 digits (a column lives d+1 rows and takes at most two high
 * halves below 2^52 and two low halves of at most 2^50 per row). No sum
 * is ever formed in floating point: doubles hold only digits (below
 * 2^52), hi (in [2^103, 2^104), spacing 2^51), K − hi and x (integers in
 * [2^52, 2^53)), all exact, so no significand ever needs more than its 53
 * bits.
 *
 * Montgomery. R = 2^(51d) ≥ 4m: for a, b < 2m, (a·b + q·m)/R < 2m with no
 * final subtraction (Orup 1995). The quotient digit q = t0·n0 mod 2^51 is
 * integer work on the low column; q goes back to a double by FP64_DIGIT.
 */
#pragma once
#include "dialect.h"

#if defined(__CUDACC__)
#define F64_BITS(x) ((u64)__double_as_longlong(x))
#define F64_FROM_BITS(u) __longlong_as_double((long long)(u))
#else
#if !defined(GPUCRYPTO_HAS_FP64)
#error "the fp64 Montgomery kernels need a device with double precision (cl_khr_fp64)"
#endif
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define F64_BITS(x) as_ulong(x)
#define F64_FROM_BITS(u) as_double((u64)(u))
#endif
/* Every multiply-add below is an explicit fma(); nothing may be contracted
 * or reassociated. */
#pragma OPENCL FP_CONTRACT OFF

#define FP64_C1 0x1p103                  /* 2^103 */
#define FP64_K 0x1.0000000000003p103     /* 2^103 + 3·2^51 */
#define FP64_2P52 0x1p52                 /* 2^52 */
#define FP64_EXP52 ((u64)0x4330000000000000ul) /* bits of 2^52 */
#define FP64_MASK ((((u64)1) << 51) - 1u)
#define FP64_BL ((u64)0x4338000000000000ul)    /* bits of 2^52 + 2^51: offset of a low half */
#define FP64_BH ((u64)0x4660000000000000ul)    /* bits of 2^103: offset of a high half */

/* Declares hi and x, the split of a·b (a < 2^52, b < 2^51 integers). */
#define FP64_SPLIT(hi, x, a, b) const double hi = fma(a, b, FP64_C1), x = fma(a, b, FP64_K - hi)

/* the double of a digit v < 2^52 (bits of 2^52 + v, minus 2^52: exact) */
#define FP64_DIGIT(v) (F64_FROM_BITS(FP64_EXP52 | (u64)(v)) - FP64_2P52)
/* the integer of a digit x < 2^52 (x + 2^52 is exact; drop the exponent) */
#define FP64_VALUE(x) (F64_BITS((x) + FP64_2P52) ^ FP64_EXP52)

/* FP64_ROWS goes before the row loop of a product: GPUs unroll it when the
 * host asks (FP64_UNROLL: every index constant, b in registers), else, and
 * always on CPU devices, it stays a loop. */
#if defined(FP64_UNROLL) && !defined(GPUCRYPTO_VENDOR_CPU)
#define FP64_ROWS _Pragma("unroll")
#else
#define FP64_ROWS _Pragma("unroll 1")
#endif

/* −m^(−1) mod 2^64 from n0 = −m^(−1) mod 2^32: x = m^(−1) mod 2^32, and
 * one Newton step x·(2 − m·x) is m^(−1) mod 2^64. (A quotient digit needs
 * its low 51 or 52 bits.) */
DEVICE_FN u64 fp64_n0(const u32 *m, const u32 n0)
{
	const u64 m64 = (u64)m[0] | ((u64)m[1] << 32);
	const u64 x = (u64)(0u - n0);
	const u64 inv = x * ((u64)2 - m64 * x);
	return (u64)0 - inv;
}
