/* scalar25519.h: arithmetic modulo the order of the Ed25519 base point,
 *
 *   L = 2^252 + 27742317777372353535851937790883648493
 *     = 0x1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed,
 *
 * for Ed25519 (RFC 8032): reducing SHA-512 digests to scalars, and the
 * signature's S = (r + k·s) mod L. Numbers are little-endian arrays of
 * 32-bit words (word 0 least significant) in private memory; results are
 * canonical (below L).
 *
 * Constant time. The inputs are secrets (a signing scalar, a nonce): no
 * branch and no array index depends on their values, every loop has a
 * fixed count, and the one conditional subtraction picks its result with a
 * mask.
 *
 * Method: Montgomery multiplication modulo L with R = 2^256 (8 words),
 *
 *   mont(a, b) = a·b·R^−1 mod L, up to a multiple of L:
 *     mont(a, b) = (a·b + m·L) / R for the m < R that makes the sum
 *     divisible by R, so mont(a, b) ≡ a·b·R^−1 (mod L) and
 *     mont(a, b) < a·b/R + L.
 *
 * computed by CIOS (coarsely integrated operand scanning): per word b_i of
 * b, t += a·b_i, then t += m_i·L with m_i = t_0·(−L^−1) mod 2^32, which
 * clears t's low word, and t is shifted down one word. After row i,
 * t = (a·(b mod 2^(32(i+1))) + M·L) / 2^(32(i+1)) with M < 2^(32(i+1)),
 * so t < a + L < 2^256 + 2^253 between rows: nine words, the ninth at most 1,
 * and a tenth word only inside a row (t + a·b_i < 2^288 + 2^253).
 *
 * sc25519_reduce(x), x = x_hi·R + x_lo with x_hi, x_lo < R:
 *   h = mont(x_hi, R^3 mod L) ≡ x_hi·R^2,  h < x_hi·L/R + L < 2L
 *   l = mont(x_lo, R^2 mod L) ≡ x_lo·R,    l < 2L
 *   s = h + l ≡ x·R,                        s < 4L < 2^255 (no carry out)
 *   t = mont(s, 1) ≡ x,                     t < s/R + L < L + 1, so t ≤ L
 *   r = t − L if t ≥ L else t               (t = L only when x ≡ 0)
 * Every mont result is below 2^256, so it fits the 8 words it is kept in.
 *
 * sc25519_muladd(a, b, c): x = a·b + c is at most
 * (2^256 − 1)^2 + 2^256 − 1 < 2^512, so it is formed exactly in 16 words
 * (schoolbook) and reduced as above. This covers any a, b, c < 2^256, a
 * clamped signing scalar (up to 2^255, not reduced) included.
 *
 * Cost, in 32×32 → 64-bit products: a Montgomery multiplication is 8 rows
 * of 8 (a·b_i) + 1 (m_i) + 8 (m_i·L) = 136; the final mont(s, 1) needs no
 * a·b_i rows, 8·(1 + 8) = 72. So sc25519_reduce is 2·136 + 72 = 344 and
 * sc25519_muladd is 64 + 344 = 408. Three words of L are zero and one is
 * 2^28, so where the rows are unrolled (GPUs, UNROLL_OUTER) the compiler
 * drops four of the eight m_i·L products: 104 per multiplication, 40 for
 * mont(s, 1), 248 per reduce and 312 per muladd (NVRTC's PTX for sm_90
 * has 252 and 312 multiply instructions).
 *
 * Constants (ed25519/scalar_kernel_internal_test.go recomputes each with
 * math/big and compares):
 *   SC25519_ORDER                L
 *   SC25519_R_SQUARED            R^2 mod L = 2^512 mod L
 *   SC25519_R_CUBED              R^3 mod L = 2^768 mod L
 *   SC25519_MINUS_ORDER_INVERSE  −L^−1 mod 2^32 (L is odd, so the inverse
 *                                exists; only L's low word matters:
 *                                0x5cf5d3ed · 0x12547e1b ≡ −1 mod 2^32)
 */
#pragma once
#include "dialect.h"

#define SC25519_ORDER { 0x5cf5d3edu, 0x5812631au, 0xa2f79cd6u, 0x14def9deu, \
                        0x00000000u, 0x00000000u, 0x00000000u, 0x10000000u }
#define SC25519_R_SQUARED { 0x449c0f01u, 0xa40611e3u, 0x68859347u, 0xd00e1ba7u, \
                            0x17f5be65u, 0xceec73d2u, 0x7c309a3du, 0x0399411bu }
#define SC25519_R_CUBED { 0x7b83a2dbu, 0x2a9e4968u, 0xaef7f3ecu, 0x278324e6u, \
                          0x04ec5b65u, 0x8065dc6cu, 0x3599cec7u, 0x0e530b77u }
#define SC25519_MINUS_ORDER_INVERSE 0x12547e1bu

/* t += a·word: one CIOS row. t has ten words and t[9] is 0 on entry (see
 * sc25519_montgomery_step); the sum stays below 2^289. */
DEVICE_FN void sc25519_add_product_row(u32 *t, const u32 *a, const u32 word)
{
	u64 acc = 0;
	for (int j = 0; j < 8; j++) {
		/* at most (2^32 − 1)^2 + 2·(2^32 − 1) = 2^64 − 1: no overflow */
		acc = (u64)a[j] * word + t[j] + (acc >> 32);
		t[j] = (u32)acc;
	}
	acc = (u64)t[8] + (acc >> 32);
	t[8] = (u32)acc;
	t[9] = (u32)(acc >> 32);
}

/* t = (t + m·L) / 2^32 ≡ t·2^−32 (mod L), where m = t[0]·(−L^−1) mod 2^32
 * makes the low word of t + m·L zero. t[9] is 0 afterwards. */
DEVICE_FN void sc25519_montgomery_step(u32 *t)
{
	const u32 order[8] = SC25519_ORDER;
	const u32 m = t[0] * SC25519_MINUS_ORDER_INVERSE;
	u64 acc = (u64)m * order[0] + t[0]; /* low word 0 by the choice of m */
	for (int j = 1; j < 8; j++) {
		acc = (u64)m * order[j] + t[j] + (acc >> 32);
		t[j - 1] = (u32)acc;
	}
	acc = (u64)t[8] + (acc >> 32);
	t[7] = (u32)acc;
	t[8] = t[9] + (u32)(acc >> 32);
	t[9] = 0;
}

/* r = mont(a, b) = (a·b + m·L) / 2^256 ≡ a·b·2^−256 (mod L), below
 * a·b/2^256 + L, for a, b < 2^256 with a·b < 2^256·(2^256 − L), which
 * keeps the result below 2^256 (its ninth word, dropped, is 0).
 * sc25519_reduce's calls qualify with room to spare: one operand below
 * 2^256, the other a constant below L. r may alias a or b. */
DEVICE_FN void sc25519_montgomery_multiply(u32 *r, const u32 *a, const u32 *b)
{
	u32 t[10];
	for (int j = 0; j < 10; j++)
		t[j] = 0;
	UNROLL_OUTER
	for (int i = 0; i < 8; i++) {
		sc25519_add_product_row(t, a, b[i]);
		sc25519_montgomery_step(t);
	}
	for (int j = 0; j < 8; j++)
		r[j] = t[j];
}

/* r = mont(a, 1) = a·2^−256 mod L, up to one L: r ≤ L for any a < 2^256.
 * It is sc25519_montgomery_multiply with b = 1, whose rows after the first
 * add nothing. r may alias a. */
DEVICE_FN void sc25519_montgomery_reduce(u32 *r, const u32 *a)
{
	u32 t[10];
	for (int j = 0; j < 8; j++)
		t[j] = a[j];
	t[8] = 0;
	t[9] = 0;
	UNROLL_OUTER
	for (int i = 0; i < 8; i++)
		sc25519_montgomery_step(t);
	for (int j = 0; j < 8; j++)
		r[j] = t[j];
}

/* r = t − L if t ≥ L, else t; canonical for any t < 2L. Both candidates
 * are computed and one is selected by a mask. r may alias t. */
DEVICE_FN void sc25519_subtract_order_if_needed(u32 *r, const u32 *t)
{
	const u32 order[8] = SC25519_ORDER;
	u32 difference[8];
	u32 borrow = 0;
	for (int j = 0; j < 8; j++) {
		const u64 d = (u64)t[j] - order[j] - borrow;
		difference[j] = (u32)d;
		borrow = (u32)(d >> 32) & 1u; /* the high word is all ones after a borrow */
	}
	const u32 keep = 0u - borrow; /* all ones when t < L */
	for (int j = 0; j < 8; j++)
		r[j] = (t[j] & keep) | (difference[j] & ~keep);
}

/* r = x mod L, canonical (r < L); x is a 512-bit little-endian integer in
 * 16 words (x[0] least significant), e.g. a SHA-512 digest read as RFC 8032
 * does. r may alias x (r = x overwrites x's low half with the result). */
DEVICE_FN void sc25519_reduce(u32 *r, const u32 *x)
{
	const u32 r_squared[8] = SC25519_R_SQUARED;
	const u32 r_cubed[8] = SC25519_R_CUBED;
	u32 high[8], low[8], sum[8];
	sc25519_montgomery_multiply(high, x + 8, r_cubed); /* ≡ x_hi·R^2, < 2L */
	sc25519_montgomery_multiply(low, x, r_squared);    /* ≡ x_lo·R, < 2L */
	u64 acc = 0;
	for (int j = 0; j < 8; j++) { /* < 4L < 2^255: no carry out */
		acc = (u64)high[j] + low[j] + (acc >> 32);
		sum[j] = (u32)acc;
	}
	sc25519_montgomery_reduce(sum, sum); /* ≡ x, ≤ L */
	sc25519_subtract_order_if_needed(r, sum);
}

/* r = (a·b + c) mod L, canonical, for any a, b, c < 2^256 (8 little-endian
 * words each). r may alias any of a, b, c, or all of them: the inputs are
 * read in full before r is written. */
DEVICE_FN void sc25519_muladd(u32 *r, const u32 *a, const u32 *b, const u32 *c)
{
	u32 x[16];
	for (int j = 0; j < 8; j++) {
		x[j] = c[j];
		x[j + 8] = 0;
	}
	UNROLL_OUTER
	for (int i = 0; i < 8; i++) {
		/* x += a·b_i·2^(32i); x[i + 8] is still 0 here */
		u64 acc = 0;
		for (int j = 0; j < 8; j++) {
			acc = (u64)a[j] * b[i] + x[i + j] + (acc >> 32);
			x[i + j] = (u32)acc;
		}
		x[i + 8] = (u32)(acc >> 32);
	}
	sc25519_reduce(r, x);
}
