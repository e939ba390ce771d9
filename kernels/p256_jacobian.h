/* p256_jacobian.h: points of NIST P-256 in Jacobian coordinates
 * (X : Y : Z), x = X/Z^2 and y = Y/Z^3, for the variable-base scalar
 * multiplications (ECDH's d·Q, verification's u1·G + u2·Q), where
 * doublings are most of the work: a doubling here is 3M + 5S against the
 * complete formulas' 8M + 3S + 2 products by b (p256_point.h), and
 * squarings are cheaper than products (mont256_sqr). Coordinates are in
 * the Montgomery form of p256.h's field; a point with Z = 0 is the point
 * at infinity, whatever X and Y hold.
 *
 * The formulas are not complete, so the callers handle the exceptions:
 *   - doubling is exact for every point (P-256 has no point of order 2),
 *     the point at infinity included (Z stays 0);
 *   - an addition P + Q is exact when P ≠ Q and neither is the point at
 *     infinity; for P = −Q it gives Z = 0, the point at infinity, as it
 *     should; for P = Q it gives (0 : 0 : 0), and returns a mask that
 *     says so, for the caller to take 2·P instead; a point at infinity
 *     among the inputs gives Z = 0, which the caller replaces by the other
 *     input.
 * Verification handles them with branches (public values); ECDH with
 * masks, and an argument that P = Q cannot occur before the last
 * addition (p256_ecdh.cl).
 *
 * Formulas: the Explicit-Formulas Database (Bernstein and Lange),
 * short Weierstrass curves with a = −3 in Jacobian coordinates:
 * dbl-2001-b (3M + 5S), add-2007-bl (11M + 5S), madd-2007-bl (7M + 4S).
 * Every output may alias the input in the same position (X3 the X1, ...).
 */
#pragma once
#include "p256.h"

/* (X3 : Y3 : Z3) = 2·(X1 : Y1 : Z1), dbl-2001-b for a = −3:
 *   δ = Z1^2, γ = Y1^2, β = X1·γ, α = 3·(X1 − δ)·(X1 + δ),
 *   X3 = α^2 − 8β, Z3 = (Y1 + Z1)^2 − γ − δ, Y3 = α·(4β − X3) − 8γ^2 */
DEVICE_FN void p256_jacobian_double(u32 *X3, u32 *Y3, u32 *Z3,
	const u32 *X1, const u32 *Y1, const u32 *Z1)
{
	u32 delta[8], gamma[8], beta[8], alpha[8], t[8];
	p256_sqr(delta, Z1);
	p256_sqr(gamma, Y1);
	p256_mul(beta, X1, gamma);
	p256_sub(t, X1, delta);
	p256_add(alpha, X1, delta);
	p256_mul(alpha, t, alpha);
	p256_add(t, alpha, alpha);
	p256_add(alpha, t, alpha);
	p256_add(t, Y1, Z1);
	p256_sqr(t, t);
	p256_sub(t, t, gamma);
	p256_sub(Z3, t, delta);             /* X1, Y1 and Z1 are read for the last time above */
	p256_add(beta, beta, beta);
	p256_add(beta, beta, beta);         /* 4β */
	p256_sqr(t, alpha);
	p256_sub(t, t, beta);
	p256_sub(X3, t, beta);
	p256_sub(t, beta, X3);
	p256_mul(t, alpha, t);
	p256_sqr(gamma, gamma);
	p256_add(gamma, gamma, gamma);
	p256_add(gamma, gamma, gamma);
	p256_add(gamma, gamma, gamma);      /* 8γ^2 */
	p256_sub(Y3, t, gamma);
}

/* The last steps of both additions: from H = U2 − U1, r = 2·(S2 − S1),
 * I = (2H)^2 (or 4·H^2), U1 and S1,
 *   J = H·I, V = U1·I, X3 = r^2 − J − 2V, Y3 = r·(V − X3) − 2·S1·J.
 * Returns the mask of P = Q: all ones when H = 0 and r = 0. */
DEVICE_FN u32 p256_jacobian_add_tail(u32 *X3, u32 *Y3, const u32 *h, const u32 *r,
	const u32 *i, u32 *u1, u32 *s1)
{
	u32 j[8], x3[8];
	const u32 same = p256_is_zero(h) & p256_is_zero(r);
	p256_mul(j, h, i);
	p256_mul(u1, u1, i);                /* V */
	p256_sqr(x3, r);
	p256_sub(x3, x3, j);
	p256_sub(x3, x3, u1);
	p256_sub(x3, x3, u1);
	p256_sub(u1, u1, x3);
	p256_mul(u1, r, u1);
	p256_mul(s1, s1, j);
	p256_add(s1, s1, s1);
	p256_sub(Y3, u1, s1);
	for (int w = 0; w < 8; w++)
		X3[w] = x3[w];
	return same;
}

/* (X3 : Y3 : Z3) = (X1 : Y1 : Z1) + (X2 : Y2 : Z2), add-2007-bl:
 *   U1 = X1·Z2^2, U2 = X2·Z1^2, S1 = Y1·Z2^3, S2 = Y2·Z1^3,
 *   H = U2 − U1, r = 2·(S2 − S1), I = (2H)^2,
 *   Z3 = ((Z1 + Z2)^2 − Z1^2 − Z2^2)·H, and the tail above.
 * Returns all ones where P1 = P2 (the result is then (0 : 0 : 0), not
 * 2·P1); see the top of this file for the other exceptions. */
DEVICE_FN u32 p256_jacobian_add(u32 *X3, u32 *Y3, u32 *Z3,
	const u32 *X1, const u32 *Y1, const u32 *Z1,
	const u32 *X2, const u32 *Y2, const u32 *Z2)
{
	u32 z1z1[8], z2z2[8], u1[8], u2[8], s1[8], s2[8], z3[8];
	p256_sqr(z1z1, Z1);
	p256_sqr(z2z2, Z2);
	p256_mul(u1, X1, z2z2);
	p256_mul(u2, X2, z1z1);
	p256_mul(s1, Y1, Z2);
	p256_mul(s1, s1, z2z2);
	p256_mul(s2, Y2, Z1);
	p256_mul(s2, s2, z1z1);
	p256_add(z3, Z1, Z2);
	p256_sqr(z3, z3);
	p256_sub(z3, z3, z1z1);
	p256_sub(z3, z3, z2z2);             /* 2·Z1·Z2 */
	p256_sub(u2, u2, u1);               /* H */
	p256_mul(Z3, z3, u2);               /* the inputs are read for the last time above */
	p256_sub(s2, s2, s1);
	p256_add(s2, s2, s2);               /* r */
	p256_add(z1z1, u2, u2);
	p256_sqr(z1z1, z1z1);               /* I */
	return p256_jacobian_add_tail(X3, Y3, u2, s2, z1z1, u1, s1);
}

/* (X3 : Y3 : Z3) = (X1 : Y1 : Z1) + (x2, y2), the second point affine
 * (Z2 = 1), madd-2007-bl:
 *   U2 = x2·Z1^2, S2 = y2·Z1^3, H = U2 − X1, r = 2·(S2 − Y1), I = 4H^2,
 *   Z3 = (Z1 + H)^2 − Z1^2 − H^2, and the tail with U1 = X1, S1 = Y1.
 * Returns all ones where the points are equal, as p256_jacobian_add. */
DEVICE_FN u32 p256_jacobian_add_affine(u32 *X3, u32 *Y3, u32 *Z3,
	const u32 *X1, const u32 *Y1, const u32 *Z1, const u32 *x2, const u32 *y2)
{
	u32 z1z1[8], h[8], hh[8], r[8], u1[8], s1[8], z3[8];
	p256_sqr(z1z1, Z1);
	p256_mul(h, x2, z1z1);
	p256_sub(h, h, X1);
	p256_mul(r, y2, Z1);
	p256_mul(r, r, z1z1);
	p256_sub(r, r, Y1);
	p256_add(r, r, r);
	p256_sqr(hh, h);
	p256_add(z3, Z1, h);
	p256_sqr(z3, z3);
	p256_sub(z3, z3, z1z1);
	for (int w = 0; w < 8; w++) {
		u1[w] = X1[w];
		s1[w] = Y1[w];
	}
	p256_sub(Z3, z3, hh);               /* the inputs are read for the last time above */
	p256_add(hh, hh, hh);
	p256_add(hh, hh, hh);               /* I = 4H^2 */
	return p256_jacobian_add_tail(X3, Y3, h, r, hh, u1, s1);
}

/* (X : Y : Z) = m ? (A : B : C) : (X : Y : Z), for a mask m of all ones or
 * zero */
DEVICE_FN void p256_jacobian_cmov(u32 *X, u32 *Y, u32 *Z,
	const u32 *A, const u32 *B, const u32 *C, const u32 m)
{
	p256_cmov(X, A, m);
	p256_cmov(Y, B, m);
	p256_cmov(Z, C, m);
}
