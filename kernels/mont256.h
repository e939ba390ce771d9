/* mont256.h: arithmetic modulo a 256-bit odd modulus m (2^255 < m < 2^256)
 * in Montgomery form, written once and instantiated per modulus by
 *
 *   MONT256_DEFINE(prefix, MODULUS, MINUS_INVERSE, R_SQUARED)
 *
 * where MODULUS and R_SQUARED are brace initializers of eight little-endian
 * 32-bit words ({ m_0, ..., m_7 }, word 0 least significant) and
 * MINUS_INVERSE is one word:
 *
 *   MODULUS        m, odd, with its top bit set
 *   MINUS_INVERSE  −m^−1 mod 2^32 (only m's low word matters)
 *   R_SQUARED      R^2 mod m, R = 2^256 (to_mont multiplies by it)
 *
 * (p256.h gives them for the P-256 field and group order; its test
 * recomputes each with math/big.) The instance is a set of functions
 * prefix_mul, prefix_sqr, prefix_add, prefix_sub, prefix_neg, prefix_cmov,
 * prefix_is_zero, prefix_equal, prefix_to_mont, prefix_from_mont,
 * prefix_set_one and prefix_invert (see MONT256_DEFINE for each contract).
 * Each is a call of the mont256_* function below with the modulus as a
 * constant array, so the compiler sees its words as constants.
 *
 * Elements are eight little-endian u32 words in private memory, always
 * fully reduced: an element x stands for x·R^−1 mod m and lies in [0, m).
 * Every function allows its result r to alias any of its inputs: inputs
 * are read in full (or word by word before that word of r is written)
 * before r is written.
 *
 * Constant time. Keys and nonces pass through: no branch and no memory
 * index depends on an element's value, every loop has a fixed count, and
 * conditional subtractions pick their result with an all-ones mask. The
 * only branches are on public constants: on the words of m in the
 * reduction rows (resolved by the compiler) and on the digits of the
 * exponent m − 2 in mont256_invert.
 *
 * The product (CIOS, coarsely integrated operand scanning; Koç, Acar and
 * Kaliski, "Analyzing and comparing Montgomery multiplication
 * algorithms", 1996): t = 0, then per word b_i of b,
 *   t += a·b_i                                 (one row)
 *   q = t_0·(−m^−1) mod 2^32, t += q·m         (a second row: t_0 becomes 0)
 *   t = t / 2^32                               (a shift by one word)
 * After row pair i, t = (a·(b mod 2^(32(i+1))) + Q·m) / 2^(32(i+1)) for some
 * Q < 2^(32(i+1)), so t < a + m < 2^257 between rows: nine words, the ninth
 * at most 1. Inside a row t + a·b_i + q·m < 2^257 + 2^289 < 2^290, so ten
 * words hold it. At the end t < a·b/R + m, which is below 2m whenever a < R
 * and b < m, and one conditional subtraction of m makes it canonical. So
 * the product is exact for canonical operands, and to_mont (a·R^2) is exact
 * for any 256-bit a, m and above included.
 *
 * Carries: the rows are the lo/hi carry chains of limb.h (one chain adds the
 * low halves of the eight products, a second the high halves), which are
 * single PTX instructions on NVIDIA (mad.lo.cc, madc.hi.cc) and 64-bit C
 * elsewhere. No other chain and no other carry-setting code runs inside a
 * chain.
 *
 * Cost, in 32×32 → 64-bit products: a product or squaring is 8 rows of
 * 8 (a·b_i) + 1 (q) + 8 (q·m), at most 136. The reduction rows leave out
 * the words 0 and 1 of m (mont256_add_modulus_row), and the compiler drops
 * q's product where −m^−1 = 1: the P-256 field (three zero words, a word
 * 1, −p^−1 = 1) costs 8·(8 + 4) = 96, its group order (one zero word)
 * 8·(8 + 1 + 7) = 128. On NVIDIA each product is a mad.lo and a mad.hi:
 * NVRTC's PTX for sm_90 has 192 multiply instructions for p256_mul, 248
 * for p256n_mul. from_mont is the reduction rows alone (at most 8·9 = 72;
 * 32 for the field, 64 for the order). A squaring (mont256_sqr) computes
 * each cross product once and reduces the low half: 36 + 32 = 68 products
 * for the field, 36 + 64 = 100 for the order. add, sub and neg are carry
 * chains, no products. invert is a fixed 4-bit window over m − 2: 14
 * products for the table a^2 … a^15, 252 squarings and one product per
 * nonzero digit below the top one (32 for the P-256 field, 55 for its
 * order).
 */
#pragma once
#include "dialect.h"
#include "limb.h"
#include "mask.h"

/* t[0..9] += x[0..7]·y: the low halves of the eight products in one carry
 * chain (into t_0..t_7, the carry through t_8 and t_9), then the high
 * halves in another (into t_1..t_8, the carry into t_9). The caller keeps
 * t + x·y below 2^320. */
DEVICE_FN void mont256_add_row(u32 *t, const u32 *x, const u32 y)
{
	CARRY_DECL;
	MADLO_CC(t[0], x[0], y, t[0]);
	MADLOC_CC(t[1], x[1], y, t[1]);
	MADLOC_CC(t[2], x[2], y, t[2]);
	MADLOC_CC(t[3], x[3], y, t[3]);
	MADLOC_CC(t[4], x[4], y, t[4]);
	MADLOC_CC(t[5], x[5], y, t[5]);
	MADLOC_CC(t[6], x[6], y, t[6]);
	MADLOC_CC(t[7], x[7], y, t[7]);
	ADDC_CC(t[8], t[8], 0u);
	ADDC(t[9], t[9], 0u);
	MADHI_CC(t[1], x[0], y, t[1]);
	MADHIC_CC(t[2], x[1], y, t[2]);
	MADHIC_CC(t[3], x[2], y, t[3]);
	MADHIC_CC(t[4], x[3], y, t[4]);
	MADHIC_CC(t[5], x[4], y, t[5]);
	MADHIC_CC(t[6], x[5], y, t[6]);
	MADHIC_CC(t[7], x[6], y, t[7]);
	MADHIC_CC(t[8], x[7], y, t[8]);
	ADDC(t[9], t[9], 0u);
}

/* Word j of the row t += m·q in the low and in the high chain, left out
 * where it is no product: m_j = 0 adds only the carry, m_j = 1 adds q to
 * the low chain and only the carry to the high one. The words of m are
 * constants of the instance (MONT256_DEFINE), so the compiler resolves
 * each choice, and each chain stays one straight line of instructions. */
#define MONT256_MODULUS_LOW(j) do { \
		if (m[j] == 0u) \
			ADDC_CC(t[j], t[j], 0u); \
		else if (m[j] == 1u) \
			ADDC_CC(t[j], t[j], q); \
		else \
			MADLOC_CC(t[j], m[j], q, t[j]); \
	} while (0)
#define MONT256_MODULUS_HIGH(j) do { \
		if (m[j] <= 1u) \
			ADDC_CC(t[j + 1], t[j + 1], 0u); \
		else \
			MADHIC_CC(t[j + 1], m[j], q, t[j + 1]); \
	} while (0)

/* t[0..9] += m·q: mont256_add_row(t, m, q) without the products by words
 * of m that are 0 or 1 (the P-256 prime has three zero words and a word 1:
 * 4 of its 8 products per row go). Word 0 is odd and stays a product. */
DEVICE_FN void mont256_add_modulus_row(u32 *t, const u32 *m, const u32 q)
{
	CARRY_DECL;
	MADLO_CC(t[0], m[0], q, t[0]);
	MONT256_MODULUS_LOW(1);
	MONT256_MODULUS_LOW(2);
	MONT256_MODULUS_LOW(3);
	MONT256_MODULUS_LOW(4);
	MONT256_MODULUS_LOW(5);
	MONT256_MODULUS_LOW(6);
	MONT256_MODULUS_LOW(7);
	ADDC_CC(t[8], t[8], 0u);
	ADDC(t[9], t[9], 0u);
	MADHI_CC(t[1], m[0], q, t[1]);
	MONT256_MODULUS_HIGH(1);
	MONT256_MODULUS_HIGH(2);
	MONT256_MODULUS_HIGH(3);
	MONT256_MODULUS_HIGH(4);
	MONT256_MODULUS_HIGH(5);
	MONT256_MODULUS_HIGH(6);
	MONT256_MODULUS_HIGH(7);
	ADDC(t[9], t[9], 0u);
}
#undef MONT256_MODULUS_LOW
#undef MONT256_MODULUS_HIGH

/* all ones when m is the P-256 field prime
 * p = 2^256 − 2^224 + 2^192 + 2^96 − 1 (words ffffffff ffffffff ffffffff
 * 0 0 0 1 ffffffff, least significant first); m is a constant of the
 * instance, so the compiler resolves the test */
DEVICE_FN int mont256_is_p256_field(const u32 *m)
{
	return m[0] == 0xffffffffu && m[1] == 0xffffffffu && m[2] == 0xffffffffu && m[3] == 0u &&
		m[4] == 0u && m[5] == 0u && m[6] == 1u && m[7] == 0xffffffffu;
}

/* t[0..9] += q·p for the P-256 field prime and q = t_0 (−p^−1 = 1), with
 * no product: q·p = q·2^256 − q·2^224 + q·2^192 + q·2^96 − q, where
 * t_0 − q = 0, and q·2^256 − q·2^224 = q·(2^32 − 1)·2^224 is the two words
 * (2^32 − q, q − 1) at words 7 and 8 (both 0 for q = 0): the borrow of
 * 0 − q is 1 exactly when q ≠ 0. What remains is one carry chain adding q
 * at words 3 and 6 and those two words, against the 8 products and 19
 * instructions of mont256_add_modulus_row. */
DEVICE_FN void mont256_add_p256_field_row(u32 *t, const u32 q)
{
	u32 low, high;
	{
		CARRY_DECL;
		SUB_CC(low, 0u, q);
		SUBC(high, q, 0u);
	}
	CARRY_DECL;
	t[0] = 0;
	ADD_CC(t[3], t[3], q);
	ADDC_CC(t[4], t[4], 0u);
	ADDC_CC(t[5], t[5], 0u);
	ADDC_CC(t[6], t[6], q);
	ADDC_CC(t[7], t[7], low);
	ADDC_CC(t[8], t[8], high);
	ADDC(t[9], t[9], 0u);
}

/* t = (t + q·m) / 2^32 ≡ t·2^−32 (mod m), where q = t_0·(−m^−1) mod 2^32
 * makes the low word of t + q·m zero: one Montgomery reduction step. */
DEVICE_FN void mont256_reduce_word(u32 *t, const u32 *m, const u32 minus_inverse)
{
	const u32 q = t[0] * minus_inverse;
	if (mont256_is_p256_field(m))
		mont256_add_p256_field_row(t, q);
	else
		mont256_add_modulus_row(t, m, q);
	for (int j = 0; j < 9; j++)
		t[j] = t[j + 1];
	t[9] = 0;
}

/* r = t − m if top·2^256 + t ≥ m, else t (for top·2^256 + t < 2m: the
 * result is canonical). Both are computed, and the borrow of the
 * subtraction, as an all-ones mask, picks one. r may alias t. */
DEVICE_FN void mont256_subtract_if_at_least(u32 *r, const u32 *t, const u32 top, const u32 *m)
{
	CARRY_DECL;
	u32 difference[8], keep;
	SUB_CC(difference[0], t[0], m[0]);
	SUBC_CC(difference[1], t[1], m[1]);
	SUBC_CC(difference[2], t[2], m[2]);
	SUBC_CC(difference[3], t[3], m[3]);
	SUBC_CC(difference[4], t[4], m[4]);
	SUBC_CC(difference[5], t[5], m[5]);
	SUBC_CC(difference[6], t[6], m[6]);
	SUBC_CC(difference[7], t[7], m[7]);
	SUBC_CC(keep, top, 0u);
	SUBC(keep, 0u, 0u); /* all ones when the subtraction borrowed: t < m */
	for (int j = 0; j < 8; j++)
		r[j] = (t[j] & keep) | (difference[j] & ~keep);
}

/* r = a·b·R^−1 mod m, canonical, for a < R and b < m (see the bounds
 * above). r may alias a or b: it is written after the last row. */
DEVICE_FN void mont256_mul(u32 *r, const u32 *a, const u32 *b, const u32 *m, const u32 minus_inverse)
{
	u32 t[10];
	for (int j = 0; j < 10; j++)
		t[j] = 0;
	UNROLL_OUTER
	for (int i = 0; i < 8; i++) {
		mont256_add_row(t, a, b[i]);
		mont256_reduce_word(t, m, minus_inverse);
	}
	mont256_subtract_if_at_least(r, t, t[8], m);
}

/* r = a·R^−1 mod m, canonical: the product with b = 1, whose rows a·b_i add
 * nothing, so only the reduction steps remain. t < a/R + m ≤ m at the end. */
DEVICE_FN void mont256_from_mont(u32 *r, const u32 *a, const u32 *m, const u32 minus_inverse)
{
	u32 t[10];
	for (int j = 0; j < 8; j++)
		t[j] = a[j];
	t[8] = 0;
	t[9] = 0;
	UNROLL_OUTER
	for (int i = 0; i < 8; i++)
		mont256_reduce_word(t, m, minus_inverse);
	mont256_subtract_if_at_least(r, t, t[8], m);
}

/* r = (a + b) mod m for a, b < m: the 257-bit sum, then at most one m off. */
DEVICE_FN void mont256_add(u32 *r, const u32 *a, const u32 *b, const u32 *m)
{
	CARRY_DECL;
	u32 sum[8], top;
	ADD_CC(sum[0], a[0], b[0]);
	ADDC_CC(sum[1], a[1], b[1]);
	ADDC_CC(sum[2], a[2], b[2]);
	ADDC_CC(sum[3], a[3], b[3]);
	ADDC_CC(sum[4], a[4], b[4]);
	ADDC_CC(sum[5], a[5], b[5]);
	ADDC_CC(sum[6], a[6], b[6]);
	ADDC_CC(sum[7], a[7], b[7]);
	ADDC(top, 0u, 0u);
	mont256_subtract_if_at_least(r, sum, top, m);
}

/* t[0..15] = a·a, the 512-bit square: each product a_i·a_j with i < j
 * once (a row per i, its low and high halves in two carry chains as in
 * mont256_add_row), the sum doubled, then the squares a_i·a_i added in one
 * chain: 28 + 8 products where a general product has 64. The doubled sum
 * of the cross products is below a^2 < 2^512, so nothing carries out. */
DEVICE_FN void mont256_square_wide(u32 *t, const u32 *a)
{
	for (int j = 0; j < 16; j++)
		t[j] = 0;
	UNROLL_OUTER
	for (int i = 0; i < 7; i++) {
		CARRY_DECL;
		MADLO_CC(t[2 * i + 1], a[i], a[i + 1], t[2 * i + 1]);
		for (int j = i + 2; j < 8; j++)
			MADLOC_CC(t[i + j], a[i], a[j], t[i + j]);
		ADDC_CC(t[i + 8], t[i + 8], 0u);
		ADDC(t[i + 9], t[i + 9], 0u);
		MADHI_CC(t[2 * i + 2], a[i], a[i + 1], t[2 * i + 2]);
		for (int j = i + 2; j < 8; j++)
			MADHIC_CC(t[i + j + 1], a[i], a[j], t[i + j + 1]);
		ADDC(t[i + 9], t[i + 9], 0u);
	}
	{
		CARRY_DECL;
		ADD_CC(t[1], t[1], t[1]);
		for (int j = 2; j < 15; j++)
			ADDC_CC(t[j], t[j], t[j]);
		ADDC(t[15], t[15], t[15]);
	}
	{
		CARRY_DECL;
		MADLO_CC(t[0], a[0], a[0], t[0]);
		MADHIC_CC(t[1], a[0], a[0], t[1]);
		for (int i = 1; i < 7; i++) {
			MADLOC_CC(t[2 * i], a[i], a[i], t[2 * i]);
			MADHIC_CC(t[2 * i + 1], a[i], a[i], t[2 * i + 1]);
		}
		MADLOC_CC(t[14], a[7], a[7], t[14]);
		MADHIC(t[15], a[7], a[7], t[15]);
	}
}

/* r = a·a·R^−1 mod m, canonical, for a < m: the square a^2 = H·R + L
 * (mont256_square_wide), then a^2·R^−1 ≡ H + L·R^−1 (mod m), where
 * L·R^−1 mod m is from_mont's reduction of the low half alone and
 * H < a^2/R < m, so one modular addition finishes it. The products are
 * 36 + the reduction's (32 for the P-256 field, 64 for its order) instead
 * of mont256_mul's 96 or 128. */
DEVICE_FN void mont256_sqr(u32 *r, const u32 *a, const u32 *m, const u32 minus_inverse)
{
	u32 t[16], low[8];
	mont256_square_wide(t, a);
	mont256_from_mont(low, t, m, minus_inverse);
	mont256_add(r, t + 8, low, m);
}

/* r = (a − b) mod m for a, b < m: a − b, and m added back (by mask) when it
 * borrowed. The final carry out is dropped: with the borrow, the difference
 * is a − b + 2^256, and a − b + m + 2^256 wraps to a − b + m < m. */
DEVICE_FN void mont256_sub(u32 *r, const u32 *a, const u32 *b, const u32 *m)
{
	CARRY_DECL;
	u32 difference[8], correction[8], borrowed;
	SUB_CC(difference[0], a[0], b[0]);
	SUBC_CC(difference[1], a[1], b[1]);
	SUBC_CC(difference[2], a[2], b[2]);
	SUBC_CC(difference[3], a[3], b[3]);
	SUBC_CC(difference[4], a[4], b[4]);
	SUBC_CC(difference[5], a[5], b[5]);
	SUBC_CC(difference[6], a[6], b[6]);
	SUBC_CC(difference[7], a[7], b[7]);
	SUBC(borrowed, 0u, 0u); /* all ones when a < b */
	for (int j = 0; j < 8; j++)
		correction[j] = m[j] & borrowed;
	ADD_CC(r[0], difference[0], correction[0]);
	ADDC_CC(r[1], difference[1], correction[1]);
	ADDC_CC(r[2], difference[2], correction[2]);
	ADDC_CC(r[3], difference[3], correction[3]);
	ADDC_CC(r[4], difference[4], correction[4]);
	ADDC_CC(r[5], difference[5], correction[5]);
	ADDC_CC(r[6], difference[6], correction[6]);
	ADDC(r[7], difference[7], correction[7]);
}

/* r = (−a) mod m = (0 − a) mod m: m − a, and 0 for a = 0. */
DEVICE_FN void mont256_neg(u32 *r, const u32 *a, const u32 *m)
{
	const u32 zero[8] = { 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u };
	mont256_sub(r, zero, a, m);
}

/* r = a where mask is all ones; r unchanged where mask is 0. */
DEVICE_FN void mont256_cmov(u32 *r, const u32 *a, const u32 mask)
{
	for (int j = 0; j < 8; j++)
		r[j] = (r[j] & ~mask) | (a[j] & mask);
}

/* all ones when every word of a is 0, else 0: for x ≠ 0 one of x and −x
 * has the top bit set. */
DEVICE_FN u32 mont256_is_zero(const u32 *a)
{
	u32 any = 0;
	for (int j = 0; j < 8; j++)
		any |= a[j];
	return mask_if_zero(any);
}

/* all ones when a == b, else 0 */
DEVICE_FN u32 mont256_equal(const u32 *a, const u32 *b)
{
	u32 any = 0;
	for (int j = 0; j < 8; j++)
		any |= a[j] ^ b[j];
	return mask_if_zero(any);
}

/* r = R mod m, Montgomery's 1. With 2^255 < m < 2^256 it is R − m (below
 * 2^255 < m), and R − m = ~m + 1, where the + 1 never carries out of word
 * 0: m is odd, so ~m_0 is even. */
DEVICE_FN void mont256_set_one(u32 *r, const u32 *m)
{
	r[0] = ~m[0] + 1u;
	for (int j = 1; j < 8; j++)
		r[j] = ~m[j];
}

/* r = a^(m−2) in Montgomery arithmetic: the inverse of a (Fermat; m prime),
 * 0 for a = 0. A fixed 4-bit window, left to right: the table holds a^0 …
 * a^15, then per digit d of m − 2 below the top one, four squarings and a
 * product with a^d. m − 2 is public, so the digits may pick table entries
 * and skip the product for d = 0; the element's value never steers a branch
 * or an index. The window loops stay loops (unroll 1): each body is one or
 * two inlined products, and unrolling 63 of them would only grow the code. */
DEVICE_FN void mont256_invert(u32 *r, const u32 *a, const u32 *m, const u32 minus_inverse)
{
	CARRY_DECL;
	u32 exponent[8]; /* m − 2 */
	SUB_CC(exponent[0], m[0], 2u);
	SUBC_CC(exponent[1], m[1], 0u);
	SUBC_CC(exponent[2], m[2], 0u);
	SUBC_CC(exponent[3], m[3], 0u);
	SUBC_CC(exponent[4], m[4], 0u);
	SUBC_CC(exponent[5], m[5], 0u);
	SUBC_CC(exponent[6], m[6], 0u);
	SUBC(exponent[7], m[7], 0u);

	u32 powers[16][8]; /* powers[k] = a^k, Montgomery form */
	mont256_set_one(powers[0], m);
	for (int j = 0; j < 8; j++)
		powers[1][j] = a[j];
	_Pragma("unroll 1")
	for (int k = 2; k < 16; k++)
		mont256_mul(powers[k], powers[k - 1], powers[1], m, minus_inverse);

	u32 x[8];
	const u32 top = exponent[7] >> 28;
	for (int j = 0; j < 8; j++)
		x[j] = powers[top][j];
	_Pragma("unroll 1")
	for (int window = 62; window >= 0; window--) {
		_Pragma("unroll 1")
		for (int squaring = 0; squaring < 4; squaring++)
			mont256_sqr(x, x, m, minus_inverse);
		const u32 digit = (exponent[window >> 3] >> (4 * (window & 7))) & 15u;
		if (digit != 0) /* a digit of the public exponent */
			mont256_mul(x, x, powers[digit], m, minus_inverse);
	}
	for (int j = 0; j < 8; j++)
		r[j] = x[j];
}

/* MONT256_DEFINE(prefix, MODULUS, MINUS_INVERSE, R_SQUARED) defines the
 * functions of one modulus (see the top of this file for the arguments).
 * Elements are canonical Montgomery forms (x stands for x·R^−1 mod m);
 * every r may alias any input.
 *   prefix_mul(r, a, b)      a·b·R^−1 mod m (the Montgomery product)
 *   prefix_sqr(r, a)         a·a·R^−1 mod m, for a < m (mont256_sqr)
 *   prefix_add(r, a, b)      (a + b) mod m
 *   prefix_sub(r, a, b)      (a − b) mod m
 *   prefix_neg(r, a)         (−a) mod m, 0 for 0
 *   prefix_cmov(r, a, mask)  r = a where mask is all ones, unchanged for 0
 *   prefix_is_zero(a)        all ones when a = 0, else 0
 *   prefix_equal(a, b)       all ones when a = b, else 0
 *   prefix_to_mont(r, a)     a·R mod m for any 256-bit a (also a ≥ m)
 *   prefix_from_mont(r, a)   a·R^−1 mod m: the plain value of a
 *   prefix_set_one(r)        R mod m, the Montgomery form of 1
 *   prefix_invert(r, a)      a^(m−2) (Montgomery in and out): the inverse
 *                            for prime m, 0 for 0
 * MODULUS and R_SQUARED are brace initializers; they are expanded before
 * substitution, so names of #defined initializers work as arguments.
 *
 * The product and the square are each one function that every call site
 * calls (DEVICE_FN_NOINLINE: on CUDA), with their operands by value in a
 * mont256_value, so that they travel in registers: inlined at each of
 * the hundreds of call sites of a point multiplication, their copies
 * outgrow the instruction cache and the warps wait on instruction
 * fetch. */
typedef struct { u32 w[8]; } mont256_value;

#define MONT256_DEFINE(prefix, MODULUS, MINUS_INVERSE, R_SQUARED) \
	DEVICE_FN_NOINLINE mont256_value prefix##_mul_value(const mont256_value a, const mont256_value b) \
	{ \
		const u32 m[8] = MODULUS; \
		mont256_value r; \
		mont256_mul(r.w, a.w, b.w, m, MINUS_INVERSE); \
		return r; \
	} \
	DEVICE_FN_NOINLINE mont256_value prefix##_sqr_value(const mont256_value a) \
	{ \
		const u32 m[8] = MODULUS; \
		mont256_value r; \
		mont256_sqr(r.w, a.w, m, MINUS_INVERSE); \
		return r; \
	} \
	DEVICE_FN void prefix##_mul(u32 *r, const u32 *a, const u32 *b) \
	{ \
		mont256_value x, y; \
		for (int i = 0; i < 8; i++) { \
			x.w[i] = a[i]; \
			y.w[i] = b[i]; \
		} \
		const mont256_value z = prefix##_mul_value(x, y); \
		for (int i = 0; i < 8; i++) \
			r[i] = z.w[i]; \
	} \
	DEVICE_FN void prefix##_sqr(u32 *r, const u32 *a) \
	{ \
		mont256_value x; \
		for (int i = 0; i < 8; i++) \
			x.w[i] = a[i]; \
		const mont256_value z = prefix##_sqr_value(x); \
		for (int i = 0; i < 8; i++) \
			r[i] = z.w[i]; \
	} \
	DEVICE_FN void prefix##_add(u32 *r, const u32 *a, const u32 *b) \
	{ \
		const u32 m[8] = MODULUS; \
		mont256_add(r, a, b, m); \
	} \
	DEVICE_FN void prefix##_sub(u32 *r, const u32 *a, const u32 *b) \
	{ \
		const u32 m[8] = MODULUS; \
		mont256_sub(r, a, b, m); \
	} \
	DEVICE_FN void prefix##_neg(u32 *r, const u32 *a) \
	{ \
		const u32 m[8] = MODULUS; \
		mont256_neg(r, a, m); \
	} \
	DEVICE_FN void prefix##_cmov(u32 *r, const u32 *a, const u32 mask) \
	{ \
		mont256_cmov(r, a, mask); \
	} \
	DEVICE_FN u32 prefix##_is_zero(const u32 *a) \
	{ \
		return mont256_is_zero(a); \
	} \
	DEVICE_FN u32 prefix##_equal(const u32 *a, const u32 *b) \
	{ \
		return mont256_equal(a, b); \
	} \
	DEVICE_FN void prefix##_to_mont(u32 *r, const u32 *a) \
	{ \
		const u32 m[8] = MODULUS; \
		const u32 r_squared[8] = R_SQUARED; \
		mont256_mul(r, a, r_squared, m, MINUS_INVERSE); \
	} \
	DEVICE_FN void prefix##_from_mont(u32 *r, const u32 *a) \
	{ \
		const u32 m[8] = MODULUS; \
		mont256_from_mont(r, a, m, MINUS_INVERSE); \
	} \
	DEVICE_FN void prefix##_set_one(u32 *r) \
	{ \
		const u32 m[8] = MODULUS; \
		mont256_set_one(r, m); \
	} \
	DEVICE_FN void prefix##_invert(u32 *r, const u32 *a) \
	{ \
		const u32 m[8] = MODULUS; \
		mont256_invert(r, a, m, MINUS_INVERSE); \
	}
