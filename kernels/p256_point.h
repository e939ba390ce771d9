/* p256_point.h: points of NIST P-256 (y² = x³ − 3x + b modulo p, FIPS 186-5)
 * for the ECDSA and ECDH kernels: projective coordinates (X : Y : Z),
 * x = X/Z and y = Y/Z, the point at infinity (0 : 1 : 0), coordinates in
 * the Montgomery form of p256.h's field (p256_*).
 *
 * The formulas are the complete ones of Renes, Costello and Batina,
 * "Complete addition formulas for prime order elliptic curves" (2016,
 * eprint 2015/1060), for a = −3: Algorithm 4 (addition) and Algorithm 6
 * (doubling). They hold for every pair of points, the point at infinity
 * and P + P and P + (−P) included, so scalar multiplications need no
 * branch on exceptional cases: constant time wherever the scalar is
 * secret, and exactly the group law wherever inputs are hostile.
 *
 * Cost: an addition 12M + 2 products by b, a mixed addition (affine
 * second point) 11M + 2, a doubling 8M + 3S (counted as products: the
 * field has no separate squaring cost here).
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

/* (X3 : Y3 : Z3) = (X1 : Y1 : Z1) + (X2 : Y2 : Z2): RCB Algorithm 4.
 * The outputs may alias the inputs. */
DEVICE_FN void p256_point_add(u32 *X3, u32 *Y3, u32 *Z3,
	const u32 *X1, const u32 *Y1, const u32 *Z1,
	const u32 *X2, const u32 *Y2, const u32 *Z2)
{
	const u32 b[8] = P256_B_MONT;
	u32 t0[8], t1[8], t2[8], t3[8], t4[8], x3[8], y3[8], z3[8];
	p256_mul(t0, X1, X2);
	p256_mul(t1, Y1, Y2);
	p256_mul(t2, Z1, Z2);
	p256_add(t3, X1, Y1);
	p256_add(t4, X2, Y2);
	p256_mul(t3, t3, t4);
	p256_add(t4, t0, t1);
	p256_sub(t3, t3, t4);               /* X1·Y2 + X2·Y1 */
	p256_add(t4, Y1, Z1);
	p256_add(x3, Y2, Z2);
	p256_mul(t4, t4, x3);
	p256_add(x3, t1, t2);
	p256_sub(t4, t4, x3);               /* Y1·Z2 + Y2·Z1 */
	p256_add(x3, X1, Z1);
	p256_add(y3, X2, Z2);
	p256_mul(x3, x3, y3);
	p256_add(y3, t0, t2);
	p256_sub(y3, x3, y3);               /* X1·Z2 + X2·Z1 */
	p256_mul(z3, b, t2);
	p256_sub(x3, y3, z3);
	p256_add(z3, x3, x3);
	p256_add(x3, x3, z3);
	p256_sub(z3, t1, x3);
	p256_add(x3, t1, x3);
	p256_mul(y3, b, y3);
	p256_add(t1, t2, t2);
	p256_add(t2, t1, t2);               /* 3·Z1·Z2 */
	p256_sub(y3, y3, t2);
	p256_sub(y3, y3, t0);
	p256_add(t1, y3, y3);
	p256_add(y3, t1, y3);
	p256_add(t1, t0, t0);
	p256_add(t0, t1, t0);               /* 3·X1·X2 */
	p256_sub(t0, t0, t2);
	p256_mul(t1, t4, y3);
	p256_mul(t2, t0, y3);
	p256_mul(y3, x3, z3);
	p256_add(Y3, y3, t2);
	p256_mul(x3, t3, x3);
	p256_sub(X3, x3, t1);
	p256_mul(z3, t4, z3);
	p256_mul(t1, t3, t0);
	p256_add(Z3, z3, t1);
}

/* (X3 : Y3 : Z3) = (X1 : Y1 : Z1) + (x2, y2), the second point affine
 * (never the point at infinity): RCB Algorithm 5, 11M + 2 products by b;
 * where skip is all ones the result is (X1 : Y1 : Z1) instead, chosen by
 * mask after the same work (a comb digit 0, in constant time). The outputs
 * may alias the first point. */
DEVICE_FN void p256_point_add_affine(u32 *X3, u32 *Y3, u32 *Z3,
	const u32 *X1, const u32 *Y1, const u32 *Z1,
	const u32 *x2, const u32 *y2, const u32 skip)
{
	const u32 b[8] = P256_B_MONT;
	u32 t0[8], t1[8], t2[8], t3[8], t4[8], x3[8], y3[8], z3[8];
	p256_mul(t0, X1, x2);
	p256_mul(t1, Y1, y2);
	p256_add(t3, x2, y2);
	p256_add(t4, X1, Y1);
	p256_mul(t3, t3, t4);
	p256_add(t4, t0, t1);
	p256_sub(t3, t3, t4);
	p256_mul(t4, y2, Z1);
	p256_add(t4, t4, Y1);
	p256_mul(y3, x2, Z1);
	p256_add(y3, y3, X1);
	p256_mul(z3, b, Z1);
	p256_sub(x3, y3, z3);
	p256_add(z3, x3, x3);
	p256_add(x3, x3, z3);
	p256_sub(z3, t1, x3);
	p256_add(x3, t1, x3);
	p256_mul(y3, b, y3);
	p256_add(t1, Z1, Z1);
	p256_add(t2, t1, Z1);
	p256_sub(y3, y3, t2);
	p256_sub(y3, y3, t0);
	p256_add(t1, y3, y3);
	p256_add(y3, t1, y3);
	p256_add(t1, t0, t0);
	p256_add(t0, t1, t0);
	p256_sub(t0, t0, t2);
	p256_mul(t1, t4, y3);
	p256_mul(t2, t0, y3);
	p256_mul(y3, x3, z3);
	p256_add(y3, y3, t2);
	p256_mul(x3, t3, x3);
	p256_sub(x3, x3, t1);
	p256_mul(z3, t4, z3);
	p256_mul(t1, t3, t0);
	p256_add(z3, z3, t1);
	/* keep the first point where skip is set: X3 = skip ? X1 : x3 */
	for (int w = 0; w < 8; w++) {
		X3[w] = (X1[w] & skip) | (x3[w] & ~skip);
		Y3[w] = (Y1[w] & skip) | (y3[w] & ~skip);
		Z3[w] = (Z1[w] & skip) | (z3[w] & ~skip);
	}
}

/* (X3 : Y3 : Z3) = 2·(X : Y : Z): RCB Algorithm 6. The outputs may alias
 * the inputs. */
DEVICE_FN void p256_point_double(u32 *X3, u32 *Y3, u32 *Z3,
	const u32 *X, const u32 *Y, const u32 *Z)
{
	const u32 b[8] = P256_B_MONT;
	u32 t0[8], t1[8], t2[8], t3[8], x3[8], y3[8], z3[8];
	p256_sqr(t0, X);
	p256_sqr(t1, Y);
	p256_sqr(t2, Z);
	p256_mul(t3, X, Y);
	p256_add(t3, t3, t3);
	p256_mul(z3, X, Z);
	p256_add(z3, z3, z3);
	p256_mul(y3, b, t2);
	p256_sub(y3, y3, z3);
	p256_add(x3, y3, y3);
	p256_add(y3, x3, y3);
	p256_sub(x3, t1, y3);
	p256_add(y3, t1, y3);
	p256_mul(y3, x3, y3);
	p256_mul(x3, x3, t3);
	p256_add(t3, t2, t2);
	p256_add(t2, t2, t3);
	p256_mul(z3, b, z3);
	p256_sub(z3, z3, t2);
	p256_sub(z3, z3, t0);
	p256_add(t3, z3, z3);
	p256_add(z3, z3, t3);
	p256_add(t3, t0, t0);
	p256_add(t0, t3, t0);
	p256_sub(t0, t0, t2);
	p256_mul(t0, t0, z3);
	p256_add(y3, y3, t0);
	p256_mul(t0, Y, Z);
	p256_add(t0, t0, t0);
	p256_mul(z3, t0, z3);
	p256_sub(X3, x3, z3);
	p256_mul(z3, t0, t1);
	p256_add(z3, z3, z3);
	p256_add(Z3, z3, z3);
	for (int w = 0; w < 8; w++)
		Y3[w] = y3[w];
}

/* the point at infinity, (0 : 1 : 0) */
DEVICE_FN void p256_point_infinity(u32 *X, u32 *Y, u32 *Z)
{
	for (int w = 0; w < 8; w++)
		X[w] = Z[w] = 0;
	p256_set_one(Y);
}

/* (X : Y : Z) = m ? (A : B : C) : (X : Y : Z), for a mask m of all ones or
 * zero */
DEVICE_FN void p256_point_cmov(u32 *X, u32 *Y, u32 *Z,
	const u32 *A, const u32 *B, const u32 *C, const u32 m)
{
	p256_cmov(X, A, m);
	p256_cmov(Y, B, m);
	p256_cmov(Z, C, m);
}
