/* fe25519.h: arithmetic modulo 2^255 − 19 (the generated core,
 * field25519_gen.h) plus inversion by Fermat, z^(p−2), with the classic 254-square,
 * 11-multiply addition chain. The exponent is public: no secret branches. */
#pragma once
#include "field25519_gen.h"

DEVICE_FN void fe25519_invert(u32 *r, const u32 *z)
{
	u32 z2[8], z9[8], z11[8], t[8], a[8], b[8];
	fe25519_sqr(z2, z);                 /* 2 */
	fe25519_sqr_n(t, z2, 2);            /* 8 */
	fe25519_mul(z9, t, z);              /* 9 */
	fe25519_mul(z11, z9, z2);           /* 11 */
	fe25519_sqr(t, z11);                /* 22 */
	fe25519_mul(a, t, z9);              /* 2^5 − 1 */
	fe25519_sqr_n(t, a, 5);
	fe25519_mul(a, t, a);               /* 2^10 − 1 */
	fe25519_sqr_n(t, a, 10);
	fe25519_mul(b, t, a);               /* 2^20 − 1 */
	fe25519_sqr_n(t, b, 20);
	fe25519_mul(t, t, b);               /* 2^40 − 1 */
	fe25519_sqr_n(t, t, 10);
	fe25519_mul(a, t, a);               /* 2^50 − 1 */
	fe25519_sqr_n(t, a, 50);
	fe25519_mul(b, t, a);               /* 2^100 − 1 */
	fe25519_sqr_n(t, b, 100);
	fe25519_mul(t, t, b);               /* 2^200 − 1 */
	fe25519_sqr_n(t, t, 50);
	fe25519_mul(t, t, a);               /* 2^250 − 1 */
	fe25519_sqr_n(t, t, 5);
	fe25519_mul(r, t, z11);             /* 2^255 − 21 = p − 2 */
}
