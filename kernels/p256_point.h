/* p256_point.h: the curve of NIST P-256, y² = x³ − 3x + b modulo p
 * (FIPS 186-5), for the ECDSA and ECDH kernels: its constant b and the
 * check that a point given in affine coordinates lies on it. Arithmetic
 * on points is in p256_jacobian.h.
 *
 * (The complete projective formulas of Renes, Costello and Batina cost
 * more per doubling than the Jacobian ones: p256_jacobian.h.)
 */
#pragma once
#include "p256.h"

/* b in Montgomery form (b·2^256 mod p), little-endian words; the test
 * (kernels/p256_point_test.go) recomputes it */
#define P256_B_MONT {0x29c4bddfu, 0xd89cdf62u, 0x78843090u, 0xacf005cdu, 0xf7212ed6u, 0xe5a220abu, 0x04874834u, 0xdc30061du}

/* all ones when (x, y), Montgomery form, is on y² = x³ − 3x + b (the
 * public keys of verification and ECDH: public values) */
DEVICE_FN u32 p256_on_curve(const u32 *x, const u32 *y)
{
	const u32 b[8] = P256_B_MONT;
	u32 lhs[8], rhs[8], t[8];
	p256_sqr(lhs, y);
	p256_sqr(rhs, x);
	p256_mul(rhs, rhs, x);
	p256_add(t, x, x);
	p256_add(t, t, x);
	p256_sub(rhs, rhs, t);
	p256_add(rhs, rhs, b);
	return p256_equal(lhs, rhs);
}
