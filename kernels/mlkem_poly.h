/* mlkem_poly.h: the ring of ML-KEM (FIPS 203), Z_q[X]/(X^256 + 1) with
 * q = 3329, in one work-item: field arithmetic, the NTT and its inverse,
 * the products of the NTT domain, the centred binomial noise of η = 2,
 * compression and the byte encodings.
 *
 * A polynomial is 256 coefficients of 16 bits (mlkem_coeff), each reduced
 * to [0, q) between calls, in private memory. Arithmetic is on 32-bit
 * integers: sums and differences reduced by a masked subtraction, products
 * by Montgomery reduction with R = 2^16 (mlkem_mont_mul(a, b) = a·b·R^-1).
 * The NTT's twiddle factors and the products' γ come from the table the
 * host uploads (mlkem/tables.go), in Montgomery form (ζ·R mod q), so that
 * one Montgomery product multiplies by ζ itself; the NTT-domain products
 * take one operand in Montgomery form too (mlkem_to_mont) and give the
 * plain product.
 *
 * Constant time: coefficients may be secret (keys, noise, messages). No
 * branch and no memory index depends on a coefficient: the reductions
 * select with the sign bit, compression divides by q with a multiplication,
 * and every loop bound and index is a constant or a position.
 */
#pragma once
#include "dialect.h"
#include "keccak.h"

#define MLKEM_N 256u
#define MLKEM_Q 3329u
/* -q^-1 mod 2^16, for Montgomery reduction */
#define MLKEM_QINV_NEG 3327u
/* R^2 mod q (R = 2^16): mlkem_mont_mul(x, MLKEM_R2) = x·R, the Montgomery form of x */
#define MLKEM_R2 1353u
/* 128^-1·R mod q: mlkem_mont_mul(x, MLKEM_INV128) = x/128, the inverse NTT's scaling */
#define MLKEM_INV128 512u

/* the table's layout (words): ζ^bitrev7(i)·R mod q for i = 0..127, then
 * γ_i·R = ζ^(2·bitrev7(i)+1)·R mod q for i = 0..127 (ζ = 17) */
#define MLKEM_TABLE_ZETAS 0u
#define MLKEM_TABLE_GAMMAS 128u
#define MLKEM_TABLE_WORDS 256u

typedef unsigned short mlkem_coeff;

/* x mod q for x < 2q */
DEVICE_FN u32 mlkem_reduce_once(const u32 x)
{
	const u32 r = x - MLKEM_Q;
	return r + (MLKEM_Q & (0u - (r >> 31)));
}

DEVICE_FN u32 mlkem_add(const u32 a, const u32 b) { return mlkem_reduce_once(a + b); }
DEVICE_FN u32 mlkem_sub(const u32 a, const u32 b) { return mlkem_reduce_once(a + MLKEM_Q - b); }

/* x·R^-1 mod q, reduced, for x < q·2^16 */
DEVICE_FN u32 mlkem_mont_reduce(const u32 x)
{
	const u32 t = (x * MLKEM_QINV_NEG) & 0xffffu;
	return mlkem_reduce_once((x + t * MLKEM_Q) >> 16);
}

/* a·b·R^-1 mod q for a, b < 2q */
DEVICE_FN u32 mlkem_mont_mul(const u32 a, const u32 b) { return mlkem_mont_reduce(a * b); }

DEVICE_FN void mlkem_poly_zero(mlkem_coeff *f)
{
	for (u32 i = 0; i < MLKEM_N; i++)
		f[i] = 0;
}

/* f ← f·R, each coefficient in Montgomery form */
DEVICE_FN void mlkem_to_mont(mlkem_coeff *f)
{
	for (u32 i = 0; i < MLKEM_N; i++)
		f[i] = (mlkem_coeff)mlkem_mont_mul(f[i], MLKEM_R2);
}

/* mlkem_ntt is FIPS 203's Algorithm 9, in place. */
DEVICE_FN void mlkem_ntt(mlkem_coeff *f, GLOBAL const u32 *RESTRICT table)
{
	u32 k = 1;
	for (u32 len = 128; len >= 2; len >>= 1) {
		for (u32 start = 0; start < MLKEM_N; start += 2 * len) {
			const u32 zeta = table[MLKEM_TABLE_ZETAS + k];
			k++;
			for (u32 j = start; j < start + len; j++) {
				const u32 t = mlkem_mont_mul(zeta, f[j + len]);
				const u32 x = f[j];
				f[j + len] = (mlkem_coeff)mlkem_sub(x, t);
				f[j] = (mlkem_coeff)mlkem_add(x, t);
			}
		}
	}
}

/* mlkem_inverse_ntt is FIPS 203's Algorithm 10, in place. */
DEVICE_FN void mlkem_inverse_ntt(mlkem_coeff *f, GLOBAL const u32 *RESTRICT table)
{
	u32 k = 127;
	for (u32 len = 2; len <= 128; len <<= 1) {
		for (u32 start = 0; start < MLKEM_N; start += 2 * len) {
			const u32 zeta = table[MLKEM_TABLE_ZETAS + k];
			k--;
			for (u32 j = start; j < start + len; j++) {
				const u32 t = f[j], u = f[j + len];
				f[j] = (mlkem_coeff)mlkem_add(t, u);
				f[j + len] = (mlkem_coeff)mlkem_mont_mul(zeta, mlkem_sub(u, t));
			}
		}
	}
	for (u32 i = 0; i < MLKEM_N; i++)
		f[i] = (mlkem_coeff)mlkem_mont_mul(f[i], MLKEM_INV128);
}

/* mlkem_pair_mul_acc adds to coefficients 2p and 2p + 1 of acc those of
 * the product (FIPS 203's Algorithms 11 and 12) of a0 + a1·X (pair p of
 * an NTT-domain polynomial) and pair p of bm, which is in Montgomery form:
 * (a0·b0 + a1·b1·γ_p, a0·b1 + a1·b0). */
DEVICE_FN void mlkem_pair_mul_acc(mlkem_coeff *acc, const u32 p, const u32 a0, const u32 a1,
	const mlkem_coeff *bm, GLOBAL const u32 *RESTRICT table)
{
	const u32 b0 = bm[2 * p], b1 = bm[2 * p + 1];
	const u32 a1b1 = mlkem_mont_mul(a1, b1); /* a1·b1 */
	const u32 c0 = mlkem_mont_reduce(a0 * b0 + a1b1 * table[MLKEM_TABLE_GAMMAS + p]);
	const u32 c1 = mlkem_mont_reduce(a0 * b1 + a1 * b0);
	acc[2 * p] = (mlkem_coeff)mlkem_add(acc[2 * p], c0);
	acc[2 * p + 1] = (mlkem_coeff)mlkem_add(acc[2 * p + 1], c1);
}

/* acc += a ∘ bm, the NTT-domain product, bm in Montgomery form */
DEVICE_FN void mlkem_mul_acc(mlkem_coeff *acc, const mlkem_coeff *a, const mlkem_coeff *bm,
	GLOBAL const u32 *RESTRICT table)
{
	for (u32 p = 0; p < MLKEM_N / 2; p++)
		mlkem_pair_mul_acc(acc, p, a[2 * p], a[2 * p + 1], bm, table);
}

/* mlkem_cbd2_add adds to f the noise SamplePolyCBD_2(PRF_2(seed, nonce))
 * (FIPS 203's Algorithm 8 with η = 2, PRF = SHAKE256 of seed ‖ nonce,
 * 128 bytes): coefficient 2i + b is (x0 + x1) − (x2 + x3) for the bits
 * x0..x3 of nibble b of byte i. */
DEVICE_FN void mlkem_cbd2_add(mlkem_coeff *f, const u32 *seed, const u32 nonce)
{
	keccak_state s;
	shake256_init(&s);
	keccak_absorb_words(&s, seed, 8);
	keccak_absorb_byte(&s, nonce);
	shake_finish(&s);
	for (u32 w = 0; w < 32; w++) {
		const u32 x = keccak_squeeze_word(&s);
		const u32 t = (x & 0x55555555u) + ((x >> 1) & 0x55555555u); /* 2-bit sums */
		for (u32 j = 0; j < 8; j++) {
			const u32 plus = (t >> (4 * j)) & 3u, minus = (t >> (4 * j + 2)) & 3u;
			f[8 * w + j] = (mlkem_coeff)mlkem_add(f[8 * w + j], mlkem_sub(plus, minus));
		}
	}
}

/* Compress_d(x) = round(2^d·x/q) mod 2^d (FIPS 203 §4.2.1): the quotient
 * of 2^d·x + (q−1)/2 by q (q is odd: no tie) by a multiplication, exact
 * for numerators below 2^23 (d ≤ 11). */
DEVICE_FN u32 mlkem_compress(const u32 x, const u32 d)
{
	const u32 y = (x << d) + (MLKEM_Q - 1u) / 2u;
	const u32 quotient = (u32)(((u64)y * 10321340u) >> 35); /* ⌈2^35/q⌉ */
	return quotient & ((1u << d) - 1u);
}

/* Decompress_d(y) = round(q·y/2^d) */
DEVICE_FN u32 mlkem_decompress(const u32 y, const u32 d)
{
	return (y * MLKEM_Q + (1u << (d - 1u))) >> d;
}

/* The encoded byte strings travel as little-endian words. A bit stream of
 * d-bit values (ByteEncode_d, FIPS 203's Algorithm 5) is written and read
 * through a 64-bit window; 256·d bits is a whole number of words for every
 * d. */

/* mlkem_compress_encode appends ByteEncode_d(Compress_d(f)), 8·d words, at
 * out + *at (when out is not null), and ORs into *diff the XOR of each
 * word with the one at cmp + *at (when cmp is not null): decapsulation's
 * comparison of its re-encryption with the ciphertext, which reads every
 * word whatever the differences. *at advances by 8·d. */
DEVICE_FN void mlkem_compress_encode(const mlkem_coeff *f, const u32 d, GLOBAL u32 *RESTRICT out,
	GLOBAL const u32 *RESTRICT cmp, u32 *at, u32 *diff)
{
	u64 window = 0;
	u32 bits = 0;
	for (u32 i = 0; i < MLKEM_N; i++) {
		window |= (u64)mlkem_compress(f[i], d) << bits;
		bits += d;
		if (bits >= 32) {
			const u32 w = (u32)window;
			if (out)
				out[*at] = w;
			if (cmp)
				*diff |= w ^ cmp[*at];
			(*at)++;
			window >>= 32;
			bits -= 32;
		}
	}
}

/* mlkem_decode_decompress sets f to Decompress_d(ByteDecode_d(in)), in
 * being 8·d words. */
DEVICE_FN void mlkem_decode_decompress(mlkem_coeff *f, const u32 d, GLOBAL const u32 *RESTRICT in)
{
	u64 window = 0;
	u32 bits = 0, at = 0;
	const u32 mask = (1u << d) - 1u;
	for (u32 i = 0; i < MLKEM_N; i++) {
		if (bits < d) {
			window |= (u64)in[at++] << bits;
			bits += 32;
		}
		f[i] = (mlkem_coeff)mlkem_decompress((u32)window & mask, d);
		window >>= d;
		bits -= d;
	}
}

/* ByteEncode_12 of 8 coefficients (12 bytes, 3 words) */
DEVICE_FN void mlkem_encode12_group(const mlkem_coeff *c, u32 *w)
{
	w[0] = (u32)c[0] | ((u32)c[1] << 12) | ((u32)c[2] << 24);
	w[1] = ((u32)c[2] >> 8) | ((u32)c[3] << 4) | ((u32)c[4] << 16) | ((u32)c[5] << 28);
	w[2] = ((u32)c[5] >> 4) | ((u32)c[6] << 8) | ((u32)c[7] << 20);
}

/* ByteDecode_12 of 3 words (8 coefficients of 12 bits, not reduced) */
DEVICE_FN void mlkem_decode12_group(const u32 w0, const u32 w1, const u32 w2, u32 *c)
{
	c[0] = w0 & 0xfffu;
	c[1] = (w0 >> 12) & 0xfffu;
	c[2] = (w0 >> 24) | ((w1 & 0xfu) << 8);
	c[3] = (w1 >> 4) & 0xfffu;
	c[4] = (w1 >> 16) & 0xfffu;
	c[5] = (w1 >> 28) | ((w2 & 0xffu) << 4);
	c[6] = (w2 >> 8) & 0xfffu;
	c[7] = w2 >> 20;
}
