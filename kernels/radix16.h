/* radix16.h: the signed radix-16 form of a 256-bit scalar, for the
 * table-driven scalar multiplications of Ed25519 (ed25519_point.h) and
 * P-256 (ecdsa.cl, p256_comb.h). With k' = k + Σ 8·16^i over the 64
 * nibbles (a plain addition, no branch), digit i < 64 is nibble i of k'
 * minus 8, in [−8, 7], and digit 64 is the addition's carry, 0 or 1:
 * k = Σ d_i·16^i. (comb.h recodes the same way over its curves' widths.)
 * Constant time: the digits' values only feed masks and arithmetic in the
 * callers that need it; the index i is public. */
#pragma once
#include "dialect.h"

/* r[0..7] = k + 0x8888…88, r[8] its carry (0 or 1) */
DEVICE_FN void radix16_recode(u32 *r, const u32 *k)
{
	u64 c = 0;
	for (int j = 0; j < 8; j++) {
		c += (u64)k[j] + 0x88888888u;
		r[j] = (u32)c;
		c >>= 32;
	}
	r[8] = (u32)c;
}

/* digit i (public, 0..64) of the recoded r, as a signed value */
DEVICE_FN i32 radix16_digit(const u32 *r, const int i)
{
	if (i == 64)
		return (i32)r[8];
	return (i32)((r[i >> 3] >> ((i & 7) << 2)) & 15u) - 8;
}
