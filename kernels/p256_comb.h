/* p256_comb.h: k·G on P-256 for a secret scalar k (ECDSA's nonce, a
 * public key from its private key), in constant time: a comb without
 * doublings over the signed radix-16 digits of k.
 *
 * k = Σ d_i·16^i over the 65 signed digits of radix16.h. The table
 * (kernels.P256CombTable)
 * holds row i = the multiples n·16^i·G for n = 1..8, affine, in the
 * Montgomery form of p256.h (x then y, 8 words each), so that
 * k·G = Σ_i d_i·T[i][|d_i|]: 65 mixed additions in Jacobian coordinates
 * (p256_jacobian_add_affine, 7M + 4S), no doubling. 65 rows of 8 entries: 33,280 bytes.
 *
 * Constant time: every entry of a row is read for every digit (a masked
 * scan: the loads are the same in every work-item, so they are uniform
 * across a warp), negation is a masked select, and a zero digit adds a
 * dummy entry whose sum the mask discards; loop bounds, branches and
 * memory indices depend on the digit's position only, never its value.
 */
#pragma once
#include "p256_point.h"
#include "p256_jacobian.h"
#include "radix16.h"

#define P256_COMB_ROWS 65
#define P256_COMB_ENTRY_WORDS 16

/* (x, y) = entry |d| of row `row` by a masked scan of its eight entries;
 * zeros for absd = 0 */
DEVICE_FN void p256_comb_select(u32 *x, u32 *y, const u32 row, const u32 absd,
	GLOBAL const u32 *RESTRICT table)
{
	for (int w = 0; w < 8; w++)
		x[w] = y[w] = 0;
	const u32 base = row * 8u * P256_COMB_ENTRY_WORDS;
	for (u32 n = 1; n <= 8; n++) {
		const u32 m = mask_if_zero(absd ^ n);
		const u32 off = base + (n - 1u) * P256_COMB_ENTRY_WORDS;
		for (int w = 0; w < 8; w++) {
			x[w] |= m & table[off + w];
			y[w] |= m & table[off + 8 + w];
		}
	}
}

/* (X : Y : Z) = k·G for k in 8 little-endian words (any value below
 * 2^256), Jacobian (p256_jacobian.h), Montgomery coordinates; the point at
 * infinity (Z = 0) for k ≡ 0 mod n.
 *
 * The mixed additions are not complete, but they meet no exception but
 * the point at infinity, which masks handle (the accumulator A is the
 * point at infinity until the first nonzero digit, and a zero digit adds
 * nothing). A = ±T for the entry T = d_i·16^i·G needs
 * Σ_{j<i} d_j·16^j ≡ ±d_i·16^i (mod n). For i ≤ 63 the two sides differ
 * by at most 2^252 + 2^255 < n, so the congruence is an equality, and
 * |Σ_{j<i} d_j·16^j| < 16^i ≤ |d_i·16^i| for d_i ≠ 0 rules it out. For
 * i = 64 (d_64 = 1, which needs k > 7·2^252) A = (k − 2^256)·G and
 * T = 2^256·G: A = T needs k ≡ 2^257 (mod n), whose only value below
 * 2^256, 2^257 − 2n < 2^226, has d_64 = 0; A = −T needs k ≡ 0, k = n,
 * where the sum is the point at infinity, as the formula gives. The
 * argument is about the scalars alone, so it holds for a table of any
 * point of order n in place of G (the fault check's table of c·G,
 * kernels.P256CheckTable, in ecdsa.cl). */
DEVICE_FN void p256_base_mult(u32 *X, u32 *Y, u32 *Z, const u32 *k,
	GLOBAL const u32 *RESTRICT table)
{
	u32 s[9];
	radix16_recode(s, k);
	for (int w = 0; w < 8; w++)
		X[w] = Y[w] = Z[w] = 0;         /* the point at infinity */
	u32 x[8], y[8], negY[8], SX[8], SY[8], SZ[8], one[8];
	p256_set_one(one);
	for (int i = 0; i < P256_COMB_ROWS; i++) {
		const u32 d = (u32)radix16_digit(s, i);   /* two's complement */
		const u32 neg = 0u - (d >> 31);
		const u32 absd = (d ^ neg) - neg;
		p256_comb_select(x, y, (u32)i, absd, table);
		p256_neg(negY, y);
		p256_cmov(y, negY, neg);
		const u32 nonzero = ~mask_if_zero(absd);
		const u32 infinity = p256_is_zero(Z);
		(void)p256_jacobian_add_affine(SX, SY, SZ, X, Y, Z, x, y);
		p256_jacobian_cmov(X, Y, Z, SX, SY, SZ, nonzero);
		p256_jacobian_cmov(X, Y, Z, x, y, one, nonzero & infinity);
	}
}
