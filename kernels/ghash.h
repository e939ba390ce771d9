/* ghash.h: multiplication in GCM's field GF(2^128) mod x^128+x^7+x^2+x+1,
 * in constant time, with no table: the same algorithm as aes/ghash.go.
 *
 * A field element is four words, x[0] the most significant, of the block
 * read as a 128-bit big-endian integer, whose most significant bit is the
 * coefficient of x^0. The product is the carry-less product of the two
 * integers shifted left by one, reduced. The carry-less products come from
 * integer multiplications of operands with holes: of x only every fourth
 * bit is kept (four masks), so that the at most 8 terms a 32×32-bit product
 * adds at one bit position never carry into the next kept position. No
 * branch and no memory index depends on the operands (the hash key H and
 * the data, both secret-dependent). */
#pragma once
#include "dialect.h"
#include "limb.h"

DEVICE_FN u64 ghash_clmul32(u32 x, u32 y) {
	u64 x0 = x & 0x11111111u, x1 = x & 0x22222222u, x2 = x & 0x44444444u, x3 = x & 0x88888888u;
	u64 y0 = y & 0x11111111u, y1 = y & 0x22222222u, y2 = y & 0x44444444u, y3 = y & 0x88888888u;
	u64 z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
	u64 z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
	u64 z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
	u64 z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
	return (z0 & 0x1111111111111111ul) | (z1 & 0x2222222222222222ul) |
	       (z2 & 0x4444444444444444ul) | (z3 & 0x8888888888888888ul);
}

/* Carry-less product of two 64-bit values (Karatsuba over 32-bit halves). */
DEVICE_FN void ghash_clmul64(u64 x, u64 y, u64 *hi, u64 *lo) {
	u64 p = ghash_clmul32((u32)(x >> 32), (u32)(y >> 32));
	u64 q = ghash_clmul32((u32)x, (u32)y);
	u64 r = ghash_clmul32((u32)(x >> 32) ^ (u32)x, (u32)(y >> 32) ^ (u32)y) ^ p ^ q;
	*hi = p ^ (r >> 32);
	*lo = q ^ (r << 32);
}

/* r ^= the carry-less product of x and h (255 bits; r[3] most
 * significant). Products are summed unreduced and reduced once
 * (ghash_reduce): reduction is linear. */
DEVICE_FN void ghash_clmul_acc(const u32 *x, const u32 *h, u64 *r) {
	u64 xh = ((u64)x[0] << 32) | x[1], xl = ((u64)x[2] << 32) | x[3];
	u64 yh = ((u64)h[0] << 32) | h[1], yl = ((u64)h[2] << 32) | h[3];
	u64 hh, hl, lh, ll, mh, ml;
	ghash_clmul64(xh, yh, &hh, &hl);
	ghash_clmul64(xl, yl, &lh, &ll);
	ghash_clmul64(xh ^ xl, yh ^ yl, &mh, &ml);
	mh ^= hh ^ lh;
	ml ^= hl ^ ll;
	r[3] ^= hh; r[2] ^= hl ^ mh; r[1] ^= lh ^ ml; r[0] ^= ll;
}

/* x = the field element of the product r. */
DEVICE_FN void ghash_reduce(const u64 *r, u32 *x) {
	/* The product shifted left by one. */
	u64 r3 = (r[3] << 1) | (r[2] >> 63);
	u64 r2 = (r[2] << 1) | (r[1] >> 63);
	u64 r1 = (r[1] << 1) | (r[0] >> 63);
	u64 r0 = r[0] << 1;
	/* r3:r2 is the low half of the product, r1:r0 the high half over
	 * x^128; x^128 = 1+x+x^2+x^7 is a right shift by 0, 1, 2 and 7, and
	 * what those shifts push out (e) is folded in once more. */
	u64 e = (r0 << 63) ^ (r0 << 62) ^ (r0 << 57);
	u64 oh = r3 ^ r1 ^ (r1 >> 1) ^ (r1 >> 2) ^ (r1 >> 7) ^ e ^ (e >> 1) ^ (e >> 2) ^ (e >> 7);
	u64 ol = r2 ^ r0 ^ ((r0 >> 1) | (r1 << 63)) ^ ((r0 >> 2) | (r1 << 62)) ^ ((r0 >> 7) | (r1 << 57)) ^
	         (e << 63) ^ (e << 62) ^ (e << 57);
	x[0] = (u32)(oh >> 32); x[1] = (u32)oh; x[2] = (u32)(ol >> 32); x[3] = (u32)ol;
}

/* x = x·h. */
DEVICE_FN void ghash_mul(u32 *x, const u32 *h) {
	u64 r[4] = {0, 0, 0, 0};
	ghash_clmul_acc(x, h, r);
	ghash_reduce(r, x);
}

/* A block loaded as little-endian words (memory order) to a field element. */
DEVICE_FN void ghash_from_block(u32 *x, u32 w0, u32 w1, u32 w2, u32 w3) {
	x[0] = BYTE_PERM(w0, 0u, 0x0123u); x[1] = BYTE_PERM(w1, 0u, 0x0123u);
	x[2] = BYTE_PERM(w2, 0u, 0x0123u); x[3] = BYTE_PERM(w3, 0u, 0x0123u);
}
