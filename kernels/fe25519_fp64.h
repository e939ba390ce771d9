/* fe25519_fp64.h: arithmetic modulo p = 2^255 − 19 on the double-precision
 * units, for the X25519 ladder on GPUs whose fp64 runs at half the fp32
 * rate (ladder.h with LADDER_FP64; x25519.cl). The integer field
 * (fe25519.h) spends four instructions per 32×32-bit partial product
 * (IMAD, IMAD.HI and two carry adds) on 64 of them per product; here a
 * product has 25 digit products of three fp64 instructions each and two
 * 64-bit integer additions of their halves.
 *
 * Representation (fe51). Five signed digits in doubles, x = Σ x_k·2^(51k),
 * each an integer. A carried element has |x_k| ≤ B = 2^50 + 2^14: what
 * fe51_mul, fe51_sqr, fe51_mul_small_add, fe51_carry and fe51_from_limbs
 * leave. fe51_add and fe51_sub of two carried elements give digits up to
 * 2B and are exact (no sum ever reaches 2^53).
 *
 * The digit product (FE51_SPLIT). For integers a, b with |a·b| ≤ 2^102 −
 * 2^52 (|a| ≤ 2B and |b| ≤ B give 2B² < 2^101.01), with round-to-nearest:
 *   hi = fma(a, b, 1.5·2^103)  a·b + 1.5·2^103 lies in [2^103, 2^104),
 *                              where doubles are 2^51 apart: hi = 1.5·2^103
 *                              + H·2^51, H = a·b/2^51 rounded to nearest.
 *   lo = fma(a, b, K − hi)     K = 1.5·2^103 + 1.5·2^52 (a double: its bits
 *                              span 2^51..2^103); K − hi = (3 − H)·2^51 is
 *                              exact; lo = L + 1.5·2^52 with L = a·b −
 *                              H·2^51, |L| ≤ 2^50, an integer in [2^52,
 *                              2^53) where doubles are the integers: exact.
 * So a·b = H·2^51 + L, and the bit patterns of hi and lo are FE51_BH + H
 * and FE51_BL + L as 64-bit integers (both stay inside one binade). They
 * are summed as 64-bit integers into columns (L into the product's column,
 * H into the next), and the offsets FE51_BL and FE51_BH, known at compile
 * time per column, are taken out once, in fe51_reduce.
 *
 * Reduction (fe51_reduce). 2^255 ≡ 19: column k + 5 is folded into column
 * k times 19 (|column| < 2^54, the folded ones < 2^59), then each column
 * keeps its low 51 bits, balanced to [−2^50, 2^50), and passes its carry to
 * the next (the top one, times 19, to digit 0). The carries are taken from
 * the columns before any carry is added, so they are independent, and each
 * digit ends within 2^50 + 19·2^7 < B. A digit goes back to a double by its
 * bit pattern: 1.5·2^52 + x has the bits FE51_BL + x for |x| < 2^51.
 *
 * Secret data: no branch or memory index depends on a value; fe51_cswap is
 * a masked exchange of the bit patterns.
 */
#pragma once
#include "fp64.h"

#define FE51_N 5
#define FE51_C1 0x1.8p103                /* 1.5·2^103: where the high half lands */
#define FE51_K 0x1.8000000000003p103     /* 1.5·2^103 + 1.5·2^52 */
#define FE51_LO 0x1.8p52                 /* 1.5·2^52: where the low half lands */
#define FE51_BL FP64_BL                       /* bits of 1.5·2^52, as fp64.h's low halves */
#define FE51_BH ((u64)0x4668000000000000ul)   /* bits of 1.5·2^103 */
#define FE51_MASK FP64_MASK                   /* 2^51 − 1 */
#define FE51_SPLIT(hi, lo, a, b) const double hi = fma(a, b, FE51_C1), lo = fma(a, b, FE51_K - hi)

/* Adds the digit product a·b into columns k (low half) and k + 1 (high
 * half), and the offsets those halves carry into off. */
#define FE51_ACC(c, off, k, a, b) do { \
		FE51_SPLIT(hi_, lo_, a, b); \
		c[k] += F64_BITS(lo_); \
		c[(k) + 1] += F64_BITS(hi_); \
		off[k] += FE51_BL; \
		off[(k) + 1] += FE51_BH; \
	} while (0)

/* r = the carried digits of Σ (c_k − off_k)·2^(51k), k < 10, mod p: the
 * columns of a product (64-bit bit-pattern sums) and what their offsets
 * add up to (constants once the callers are unrolled). */
DEVICE_FN void fe51_reduce(double *r, const u64 *c, const u64 *off)
{
	/* f_k = column k + 19·column k+5, plus 2^50 (to balance) and 2^61 (to
	 * keep it positive: |true value| < 2^59), so the carry out, f_k >> 51,
	 * is the balanced carry plus 2^10 */
	u64 f[FE51_N];
	u32 carry[FE51_N];
	UNROLL_OUTER
	for (int k = 0; k < FE51_N; k++) {
		f[k] = c[k] + 19u * c[k + 5] - (off[k] + 19u * off[k + 5]) + ((u64)1 << 50) + ((u64)1 << 61);
		carry[k] = (u32)(f[k] >> 51);
	}
	UNROLL_OUTER
	for (int k = 0; k < FE51_N; k++) {
		/* digit = low 51 bits − 2^50 + carry in (the previous column's,
		 * 19 times the top one's), as the bits of 1.5·2^52 + digit */
		const u64 in = k == 0 ? 19u * (u64)carry[FE51_N - 1] - 19u * ((u64)1 << 10) : (u64)carry[k - 1] - ((u64)1 << 10);
		r[k] = F64_FROM_BITS(FE51_BL - ((u64)1 << 50) + (f[k] & FE51_MASK) + in) - FE51_LO;
	}
}

/* r = a·b mod p, carried; |a_k| ≤ 2B (a sum or difference of two carried
 * elements), b carried. r may be a or b. */
DEVICE_FN void fe51_mul(double *r, const double *a, const double *b)
{
	u64 c[2 * FE51_N], off[2 * FE51_N];
	UNROLL_OUTER
	for (int k = 0; k < 2 * FE51_N; k++) c[k] = off[k] = 0;
	UNROLL_OUTER
	for (int i = 0; i < FE51_N; i++) {
		UNROLL_OUTER
		for (int j = 0; j < FE51_N; j++) FE51_ACC(c, off, i + j, a[i], b[j]);
	}
	fe51_reduce(r, c, off);
}

/* r = a² mod p, carried; a carried. The products a_i·a_j with i < j once,
 * as a_i·(2a_j) (|2a_j| ≤ 2B). r may be a. */
DEVICE_FN void fe51_sqr(double *r, const double *a)
{
	u64 c[2 * FE51_N], off[2 * FE51_N];
	double twice[FE51_N];
	UNROLL_OUTER
	for (int k = 0; k < 2 * FE51_N; k++) c[k] = off[k] = 0;
	UNROLL_OUTER
	for (int j = 0; j < FE51_N; j++) twice[j] = a[j] + a[j];
	UNROLL_OUTER
	for (int i = 0; i < FE51_N; i++) {
		FE51_ACC(c, off, 2 * i, a[i], a[i]);
		UNROLL_OUTER
		for (int j = i + 1; j < FE51_N; j++) FE51_ACC(c, off, i + j, a[i], twice[j]);
	}
	fe51_reduce(r, c, off);
}

/* r = a·s + b mod p, carried, for a small constant s < 2^17, |a_k| ≤ 2B
 * and b carried. r may be a or b. */
DEVICE_FN void fe51_mul_small_add(double *r, const double *a, const u32 s, const double *b)
{
	u64 c[2 * FE51_N], off[2 * FE51_N];
	UNROLL_OUTER
	for (int k = 0; k < 2 * FE51_N; k++) c[k] = off[k] = 0;
	UNROLL_OUTER
	for (int k = 0; k < FE51_N; k++) {
		FE51_ACC(c, off, k, a[k], (double)s);
		c[k] += F64_BITS(b[k] + FE51_LO);              /* exact: |b_k| < 2^51 */
		off[k] += FE51_BL;
	}
	fe51_reduce(r, c, off);
}

/* a carried again: each digit keeps its remainder by 2^51, balanced, and
 * passes the rounded quotient to the next digit (the top one's times 19
 * to digit 0), all quotients taken first. For |a_k| < 2^52: the digits end
 * within 2^50 + 19·2. */
DEVICE_FN void fe51_carry(double *a)
{
	double q[FE51_N];
	UNROLL_OUTER
	for (int k = 0; k < FE51_N; k++) {
		q[k] = fma(a[k], 0x1p-51, 0x1.8p52) - 0x1.8p52;    /* a_k/2^51 rounded to nearest */
		a[k] = fma(-q[k], 0x1p51, a[k]);                   /* exact */
	}
	a[0] = fma(q[FE51_N - 1], 19.0, a[0]);
	UNROLL_OUTER
	for (int k = 1; k < FE51_N; k++) a[k] += q[k - 1];
}

DEVICE_FN void fe51_add(double *r, const double *a, const double *b)
{
	UNROLL_OUTER
	for (int k = 0; k < FE51_N; k++) r[k] = a[k] + b[k];
}

DEVICE_FN void fe51_sub(double *r, const double *a, const double *b)
{
	UNROLL_OUTER
	for (int k = 0; k < FE51_N; k++) r[k] = a[k] - b[k];
}

DEVICE_FN void fe51_copy(double *r, const double *a)
{
	UNROLL_OUTER
	for (int k = 0; k < FE51_N; k++) r[k] = a[k];
}

DEVICE_FN void fe51_set_small(double *r, const u32 v)
{
	r[0] = (double)v;
	UNROLL_OUTER
	for (int k = 1; k < FE51_N; k++) r[k] = 0.0;
}

/* exchanges a and b when mask is all ones (mask 0: leaves them) */
DEVICE_FN void fe51_cswap(const u32 mask, double *a, double *b)
{
	const u64 m = (u64)mask | ((u64)mask << 32);
	UNROLL_OUTER
	for (int k = 0; k < FE51_N; k++) {
		const u64 x = F64_BITS(a[k]), y = F64_BITS(b[k]), t = (x ^ y) & m;
		a[k] = F64_FROM_BITS(x ^ t);
		b[k] = F64_FROM_BITS(y ^ t);
	}
}

/* r = the carried digits of the 8-word value u (little-endian 32-bit
 * words), u < 2^255 */
DEVICE_FN void fe51_from_limbs(double *r, const u32 *u)
{
	u64 w[4];
	UNROLL_OUTER
	for (int j = 0; j < 4; j++) w[j] = (u64)u[2 * j] | ((u64)u[2 * j + 1] << 32);
	const u64 d[FE51_N] = {
		w[0] & FE51_MASK,
		((w[0] >> 51) | (w[1] << 13)) & FE51_MASK,
		((w[1] >> 38) | (w[2] << 26)) & FE51_MASK,
		((w[2] >> 25) | (w[3] << 39)) & FE51_MASK,
		(w[3] >> 12) & FE51_MASK,
	};
	UNROLL_OUTER
	for (int k = 0; k < FE51_N; k++) r[k] = FP64_DIGIT(d[k]);   /* below 2^51: exact */
	fe51_carry(r);
}

/* r = 8 little-endian 32-bit words of a value below 2^255 congruent to a
 * mod p (loosely reduced for fe25519.h), for digits |a_k| < 2^51 (a
 * carried element). */
DEVICE_FN void fe51_to_limbs(u32 *r, const double *a)
{
	/* the digits as integers plus those of 4p (each digit of 4p exceeds
	 * 2^52, so every sum is positive), carried twice: the first carry out
	 * of the top, times 19, into digit 0, and the second (0 or 1) too,
	 * which cannot carry again (it happens only when digits 1..4 were all
	 * 2^51 − 1 and digit 0 wrapped to below 19·8). */
	u64 d[FE51_N];
	UNROLL_OUTER
	for (int k = 0; k < FE51_N; k++) {
		const u64 four_p = k == 0 ? 4u * (FE51_MASK + 1u - 19u) : 4u * FE51_MASK;
		d[k] = (F64_BITS(a[k] + FE51_LO) - FE51_BL) + four_p;   /* a_k + 4p_k, in (0, 2^54) */
	}
	for (int pass = 0; pass < 2; pass++) {
		u64 carry = 0;
		UNROLL_OUTER
		for (int k = 0; k < FE51_N; k++) {
			const u64 v = d[k] + carry;
			d[k] = v & FE51_MASK;
			carry = v >> 51;
		}
		d[0] += 19u * carry;
	}
	const u64 w[4] = {
		d[0] | (d[1] << 51),
		(d[1] >> 13) | (d[2] << 38),
		(d[2] >> 26) | (d[3] << 25),
		(d[3] >> 39) | (d[4] << 12),
	};
	UNROLL_OUTER
	for (int j = 0; j < 4; j++) {
		r[2 * j] = (u32)w[j];
		r[2 * j + 1] = (u32)(w[j] >> 32);
	}
}
