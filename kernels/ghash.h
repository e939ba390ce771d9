/* ghash.h: multiplication in GCM's field GF(2^128) mod x^128+x^7+x^2+x+1,
 * in constant time, with no table: the algorithm of aes/ghash.go, in
 * 32-bit words.
 *
 * A field element is four words, x[0] the most significant, of the block
 * read as a 128-bit big-endian integer, whose most significant bit is the
 * coefficient of x^0. The product is the carry-less product of the two
 * integers shifted left by one, reduced. The carry-less products come from
 * integer multiplications of operands with holes: of x only every fourth
 * bit is kept (four masks), so that the terms a 32×32-bit product adds at
 * one bit position never carry into the next kept position. No branch and
 * no memory index depends on the operands (the hash key H and the data,
 * both secret-dependent).
 *
 * Everything is written on 32-bit words, with the 64-bit products split at
 * once: the GPU's registers and logic operations are 32 bits wide, and
 * 64-bit shifts and ORs of the same values compile to extra additions and
 * moves. A 128×128-bit product is Karatsuba's three 64×64 products, each
 * Karatsuba's three 32×32 ones: 9 ghash_clmul32, 144 wide multiplies. */
#pragma once
#include "dialect.h"
#include "limb.h"

/* The 64-bit product of two 32-bit words (one wide multiply). */
#define GHASH_WIDE(a, b) ((u64)(a) * (u64)(b))

/* One 32-bit half of the classes' combination (ghash_clmul32): class 0's
 * three terms, class 1's two, class 2's three and class 3's four, each
 * XORed and its positions kept; each line is one or two three-input logic
 * operations. */
DEVICE_FN u32 ghash_merge(u32 a0, u32 b0, u32 c0, u32 a1, u32 b1, u32 a2, u32 b2, u32 c2,
	u32 a3, u32 b3, u32 c3, u32 d3) {
	u32 z0 = a0 ^ b0 ^ c0;
	u32 z1 = (a1 ^ b1) & 0x22222222u;
	u32 z2 = a2 ^ b2 ^ c2;
	u32 z3 = (a3 ^ b3 ^ c3) ^ d3;
	u32 z01 = (z0 & 0x11111111u) | z1;
	u32 z23 = (z2 & 0x44444444u) | (z3 & ~0x44444444u); /* classes 0 and 1 dropped below */
	return z01 | (z23 & 0xccccccccu);
}

/* Carry-less product of two 32-bit values: *hi:*lo.
 *
 * x_a = x's bits 4k+a and y_b = y's bits 4k+b (k = 0..7). The integer
 * product x_a·y_b has its terms at the positions a+b+4s (s = 0..14), 8−|s−7|
 * of them at each: at most 8, which the three bits above a position hold,
 * so the position's bit is the parity of its terms. The four products of
 * one class a+b ≡ c (mod 4) are combined by XOR and the class's positions
 * kept.
 *
 * Two products of one class whose a+b differ by 4 peak one position apart
 * and add at most 8+7 = 15 terms at any position, which still fit below
 * the next kept position: they are added instead, by the addend of the
 * second wide multiply, which costs no instruction. Classes 0, 1 and 2 have
 * such pairs ((0,0)+(1,3); (0,1)+(2,3) and (1,0)+(3,2); (0,2)+(3,3)); class
 * 3 (all four have a+b = 3) has none. 16 wide multiplies and 24 logic
 * operations (8 masks, 8 per half) instead of 36. */
DEVICE_FN void ghash_clmul32(u32 x, u32 y, u32 *lo, u32 *hi) {
	u32 x0 = x & 0x11111111u, x1 = x & 0x22222222u, x2 = x & 0x44444444u, x3 = x & 0x88888888u;
	u32 y0 = y & 0x11111111u, y1 = y & 0x22222222u, y2 = y & 0x44444444u, y3 = y & 0x88888888u;
	u64 a0 = GHASH_WIDE(x0, y0) + GHASH_WIDE(x1, y3), b0 = GHASH_WIDE(x2, y2), c0 = GHASH_WIDE(x3, y1);
	u64 a1 = GHASH_WIDE(x0, y1) + GHASH_WIDE(x2, y3), b1 = GHASH_WIDE(x1, y0) + GHASH_WIDE(x3, y2);
	u64 a2 = GHASH_WIDE(x0, y2) + GHASH_WIDE(x3, y3), b2 = GHASH_WIDE(x1, y1), c2 = GHASH_WIDE(x2, y0);
	u64 a3 = GHASH_WIDE(x0, y3), b3 = GHASH_WIDE(x1, y2), c3 = GHASH_WIDE(x2, y1), d3 = GHASH_WIDE(x3, y0);
	*lo = ghash_merge((u32)a0, (u32)b0, (u32)c0, (u32)a1, (u32)b1, (u32)a2, (u32)b2, (u32)c2,
		(u32)a3, (u32)b3, (u32)c3, (u32)d3);
	*hi = ghash_merge((u32)(a0 >> 32), (u32)(b0 >> 32), (u32)(c0 >> 32), (u32)(a1 >> 32), (u32)(b1 >> 32),
		(u32)(a2 >> 32), (u32)(b2 >> 32), (u32)(c2 >> 32), (u32)(a3 >> 32), (u32)(b3 >> 32), (u32)(c3 >> 32),
		(u32)(d3 >> 32));
}

/* Carry-less product of the 64-bit values x1:x0 and y1:y0 (Karatsuba
 * over the halves): r[0..3], r[0] the least significant word. */
DEVICE_FN void ghash_clmul64(u32 x1, u32 x0, u32 y1, u32 y0, u32 *r) {
	u32 p0, p1, q0, q1, m0, m1;
	ghash_clmul32(x1, y1, &p0, &p1);
	ghash_clmul32(x0, y0, &q0, &q1);
	ghash_clmul32(x1 ^ x0, y1 ^ y0, &m0, &m1);
	r[0] = q0;
	r[1] = q1 ^ m0 ^ p0 ^ q0;
	r[2] = p0 ^ m1 ^ p1 ^ q1;
	r[3] = p1;
}

/* acc ^= the carry-less product of x and h (255 bits in 8 words, acc[0]
 * the least significant; x and h are field elements, [0] the most
 * significant word). Products are summed unreduced and reduced once
 * (ghash_reduce): reduction is linear. */
DEVICE_FN void ghash_clmul_acc(const u32 *x, const u32 *h, u32 *acc) {
	u32 hh[4], ll[4], mm[4];
	ghash_clmul64(x[0], x[1], h[0], h[1], hh);
	ghash_clmul64(x[2], x[3], h[2], h[3], ll);
	ghash_clmul64(x[0] ^ x[2], x[1] ^ x[3], h[0] ^ h[2], h[1] ^ h[3], mm);
	acc[0] ^= ll[0];
	acc[1] ^= ll[1];
	acc[2] ^= ll[2] ^ mm[0] ^ hh[0] ^ ll[0];
	acc[3] ^= ll[3] ^ mm[1] ^ hh[1] ^ ll[1];
	acc[4] ^= hh[0] ^ mm[2] ^ hh[2] ^ ll[2];
	acc[5] ^= hh[1] ^ mm[3] ^ hh[3] ^ ll[3];
	acc[6] ^= hh[2];
	acc[7] ^= hh[3];
}

/* x = the field element of the product in acc (ghash_clmul_acc). */
DEVICE_FN void ghash_reduce(const u32 *acc, u32 *x) {
	/* The product shifted left by one: r7 (most significant) .. r0. */
	u32 r7 = (acc[7] << 1) | (acc[6] >> 31), r6 = (acc[6] << 1) | (acc[5] >> 31);
	u32 r5 = (acc[5] << 1) | (acc[4] >> 31), r4 = (acc[4] << 1) | (acc[3] >> 31);
	u32 r3 = (acc[3] << 1) | (acc[2] >> 31), r2 = (acc[2] << 1) | (acc[1] >> 31);
	u32 r1 = (acc[1] << 1) | (acc[0] >> 31), r0 = acc[0] << 1;
	/* r7..r4 is the low half of the product, r3..r0 the high half over
	 * x^128; x^128 = 1+x+x^2+x^7 is a right shift (of the 128-bit r3..r0)
	 * by 0, 1, 2 and 7, and what those shifts push out of r0 (e, the top
	 * word of the next 128 bits) is folded in once more. */
	u32 e = (r0 << 31) ^ (r0 << 30) ^ (r0 << 25);
	/* f(w, v): word w of the 128-bit value shifted right by 1, 2 and 7
	 * XORed with itself, v the word above w (0 for the top word). */
#define GHASH_FOLD(w, v) ((w) ^ (((w) >> 1) | ((v) << 31)) ^ (((w) >> 2) | ((v) << 30)) ^ (((w) >> 7) | ((v) << 25)))
	x[0] = r7 ^ GHASH_FOLD(r3, 0u) ^ GHASH_FOLD(e, 0u);
	x[1] = r6 ^ GHASH_FOLD(r2, r3) ^ ((e << 31) ^ (e << 30) ^ (e << 25));
	x[2] = r5 ^ GHASH_FOLD(r1, r2);
	x[3] = r4 ^ GHASH_FOLD(r0, r1);
#undef GHASH_FOLD
}

/* x = x·h. */
DEVICE_FN void ghash_mul(u32 *x, const u32 *h) {
	u32 acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
	ghash_clmul_acc(x, h, acc);
	ghash_reduce(acc, x);
}

/* A block loaded as little-endian words (memory order) to a field element. */
DEVICE_FN void ghash_from_block(u32 *x, u32 w0, u32 w1, u32 w2, u32 w3) {
	x[0] = BYTE_PERM(w0, 0u, 0x0123u); x[1] = BYTE_PERM(w1, 0u, 0x0123u);
	x[2] = BYTE_PERM(w2, 0u, 0x0123u); x[3] = BYTE_PERM(w3, 0u, 0x0123u);
}
