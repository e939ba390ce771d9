/* p256_point_test.cl: kernels over p256_jacobian.h and p256_comb.h for kernels/p256_point_test.go.
 * Points travel as affine (x, y) in plain form, 8 words each, element after
 * element, with a flag word: 1 for the point at infinity. */
#include "p256_comb.h"
#include "p256_jacobian.h"

/* (X : Y : Z) = the point in[0..16] in Jacobian coordinates with Z = 1,
 * or (0 : 0 : 0) for the point at infinity */
DEVICE_FN void load_point(u32 *X, u32 *Y, u32 *Z, GLOBAL const u32 *in)
{
	u32 x[8], y[8];
	for (int w = 0; w < 8; w++) {
		x[w] = in[w];
		y[w] = in[8 + w];
	}
	p256_to_mont(X, x);
	p256_to_mont(Y, y);
	p256_set_one(Z);
	const u32 zeros[8] = { 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u };
	p256_jacobian_cmov(X, Y, Z, zeros, zeros, zeros, 0u - (in[16] & 1u));
}

/* (X : Y : Z) = (λ^2·X, λ^3·Y, λ·Z): the same point in other Jacobian
 * coordinates (λ ≠ 0), so that the formulas meet Z ≠ 1 */
DEVICE_FN void jacobian_scale(u32 *X, u32 *Y, u32 *Z, const u32 *lambda)
{
	u32 l2[8], l3[8];
	p256_sqr(l2, lambda);
	p256_mul(l3, l2, lambda);
	p256_mul(X, X, l2);
	p256_mul(Y, Y, l3);
	p256_mul(Z, Z, lambda);
}

/* affine (x, y) and the flag of the point at infinity from Jacobian */
DEVICE_FN void store_jacobian(GLOBAL u32 *out, const u32 *X, const u32 *Y, const u32 *Z)
{
	u32 zi[8], z2[8], z3[8], x[8], y[8];
	p256_invert(zi, Z);
	p256_sqr(z2, zi);
	p256_mul(z3, z2, zi);
	p256_mul(x, X, z2);
	p256_mul(y, Y, z3);
	p256_from_mont(x, x);
	p256_from_mont(y, y);
	for (int w = 0; w < 8; w++) {
		out[w] = x[w];
		out[8 + w] = y[w];
	}
	out[16] = p256_is_zero(Z) & 1u;
}

/* out[i]: a + b by p256_jacobian_add, 2·a by p256_jacobian_double, and
 * a + b by p256_jacobian_add_affine (b as affine; a where b is the point
 * at infinity), 51 words; the exceptions handled as ecdsa.cl's
 * verification does (the point at infinity takes the other point, a sum
 * of equal points is a doubling), with a and b in coordinates scaled by
 * lambda[i] */
KERNEL void p256_point_test_jacobian(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT a,
	GLOBAL const u32 *RESTRICT b, GLOBAL const u32 *RESTRICT lambda, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 X1[8], Y1[8], Z1[8], X2[8], Y2[8], Z2[8], X3[8], Y3[8], Z3[8], x2[8], y2[8], l[8];
	for (int w = 0; w < 8; w++)
		l[w] = lambda[8 * i + w];
	p256_to_mont(l, l);
	load_point(X1, Y1, Z1, a + 17 * i);
	load_point(X2, Y2, Z2, b + 17 * i);
	for (int w = 0; w < 8; w++) {
		x2[w] = X2[w];
		y2[w] = Y2[w];
	}
	const bool infinity1 = (a[17 * i + 16] & 1u) != 0, infinity2 = (b[17 * i + 16] & 1u) != 0;
	jacobian_scale(X1, Y1, Z1, l);
	jacobian_scale(X2, Y2, Z2, l);

	if (infinity1) {
		for (int w = 0; w < 8; w++) {
			X3[w] = X2[w];
			Y3[w] = Y2[w];
			Z3[w] = Z2[w];
		}
	} else if (infinity2) {
		for (int w = 0; w < 8; w++) {
			X3[w] = X1[w];
			Y3[w] = Y1[w];
			Z3[w] = Z1[w];
		}
	} else if (p256_jacobian_add(X3, Y3, Z3, X1, Y1, Z1, X2, Y2, Z2)) {
		p256_jacobian_double(X3, Y3, Z3, X2, Y2, Z2);
	}
	store_jacobian(out + 51 * i, X3, Y3, Z3);

	for (int w = 0; w < 8; w++) {       /* doubled in place: the outputs alias the inputs */
		X3[w] = X1[w];
		Y3[w] = Y1[w];
		Z3[w] = Z1[w];
	}
	p256_jacobian_double(X3, Y3, Z3, X3, Y3, Z3);
	store_jacobian(out + 51 * i + 17, X3, Y3, Z3);

	if (infinity2) {
		for (int w = 0; w < 8; w++) {
			X3[w] = X1[w];
			Y3[w] = Y1[w];
			Z3[w] = Z1[w];
		}
	} else if (infinity1) {
		for (int w = 0; w < 8; w++) {
			X3[w] = x2[w];
			Y3[w] = y2[w];
		}
		p256_set_one(Z3);
	} else if (p256_jacobian_add_affine(X3, Y3, Z3, X1, Y1, Z1, x2, y2)) {
		p256_set_one(Z3);
		p256_jacobian_double(X3, Y3, Z3, x2, y2, Z3);
	}
	store_jacobian(out + 51 * i + 34, X3, Y3, Z3);
}

/* out[i] = k[i]·G by the constant-time comb (p256_comb.h), Jacobian */
KERNEL void p256_point_test_base_mult(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT k,
	GLOBAL const u32 *RESTRICT table, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 s[8], X[8], Y[8], Z[8];
	for (int w = 0; w < 8; w++)
		s[w] = k[8 * i + w];
	p256_base_mult(X, Y, Z, s, table);
	store_jacobian(out + 17 * i, X, Y, Z);
}
