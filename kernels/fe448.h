/* fe448.h: arithmetic modulo 2^448 − 2^224 − 1 (the generated core,
 * field448_gen.h) plus inversion by Fermat. p − 2 has bits 447..225 set, bit
 * 224 clear, bits 223..2 set, bit 1 clear, bit 0 set, so
 * z^(p−2) = ((z^(2^223−1))^(2^223) · z^(2^222−1))^4 · z. */
#pragma once
#include "field448_gen.h"

DEVICE_FN void fe448_invert(u32 *r, const u32 *z)
{
	u32 t3[14], t6[14], t30[14], a[14], t[14];
	fe448_sqr(t, z);
	fe448_mul(t, t, z);                 /* 2^2 − 1 */
	fe448_sqr(t, t);
	fe448_mul(t3, t, z);                /* 2^3 − 1 */
	fe448_sqr_n(t, t3, 3);
	fe448_mul(t6, t, t3);               /* 2^6 − 1 */
	fe448_sqr_n(t, t6, 6);
	fe448_mul(a, t, t6);                /* 2^12 − 1 */
	fe448_sqr_n(t, a, 12);
	fe448_mul(a, t, a);                 /* 2^24 − 1 */
	fe448_sqr_n(t, a, 6);
	fe448_mul(t30, t, t6);              /* 2^30 − 1 */
	fe448_sqr_n(t, a, 24);
	fe448_mul(a, t, a);                 /* 2^48 − 1 */
	fe448_sqr_n(t, a, 48);
	fe448_mul(a, t, a);                 /* 2^96 − 1 */
	fe448_sqr_n(t, a, 96);
	fe448_mul(a, t, a);                 /* 2^192 − 1 */
	fe448_sqr_n(t, a, 30);
	fe448_mul(a, t, t30);               /* 2^222 − 1 */
	fe448_sqr(t, a);
	fe448_mul(t, t, z);                 /* 2^223 − 1 */
	fe448_sqr_n(t, t, 223);
	fe448_mul(t, t, a);                 /* (2^223 − 1)·2^223 + 2^222 − 1 */
	fe448_sqr_n(t, t, 2);
	fe448_mul(r, t, z);                 /* p − 2 */
}
