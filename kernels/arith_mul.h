/* arith_mul.h: the loop form of the product-scanning (Comba) product, for
 * widths too large to unroll with both operands in registers. */
#pragma once
#include "limb.h"

/* r (2n limbs) = a (n limbs) * b (n limbs); all limb-major with stride. */
DEVICE_FN void mul_comba(GLOBAL u32 *RESTRICT r, GLOBAL const u32 *RESTRICT a,
	GLOBAL const u32 *RESTRICT b, const u32 n, const u32 stride)
{
	CARRY_DECL;
	u32 c0 = 0, c1 = 0, c2 = 0;
	for (u32 k = 0; k < 2 * n - 1; k++) {
		const u32 lo = k < n ? 0 : k - n + 1;
		const u32 hi = k < n ? k : n - 1;
		for (u32 j = lo; j <= hi; j++) {
			const u32 x = LIMB(a, j, stride), y = LIMB(b, k - j, stride);
			MADLO_CC(c0, x, y, c0); MADHIC_CC(c1, x, y, c1); ADDC(c2, c2, 0u);
		}
		LIMB(r, k, stride) = c0; c0 = c1; c1 = c2; c2 = 0;
	}
	LIMB(r, 2 * n - 1, stride) = c0;
}
