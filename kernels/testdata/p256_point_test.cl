/* p256_point_test.cl: kernels over p256_point.h for kernels/p256_point_test.go.
 * Points travel as affine (x, y) in plain form, 8 words each, element after
 * element, with a flag word: 1 for the point at infinity. */
#include "p256_comb.h"

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
	u32 ox[8], oy[8], oz[8];
	p256_point_infinity(ox, oy, oz);
	p256_point_cmov(X, Y, Z, ox, oy, oz, 0u - (in[16] & 1u));
}

DEVICE_FN void store_point(GLOBAL u32 *out, const u32 *X, const u32 *Y, const u32 *Z)
{
	u32 zi[8], x[8], y[8];
	p256_invert(zi, Z);                 /* 0 for the point at infinity */
	p256_mul(x, X, zi);
	p256_mul(y, Y, zi);
	p256_from_mont(x, x);
	p256_from_mont(y, y);
	for (int w = 0; w < 8; w++) {
		out[w] = x[w];
		out[8 + w] = y[w];
	}
	out[16] = p256_is_zero(Z) & 1u;
}

/* out[i] = a[i] + b[i] (addition) and 2·a[i] (doubling), 34 words each */
KERNEL void p256_point_test_add(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT a,
	GLOBAL const u32 *RESTRICT b, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 X1[8], Y1[8], Z1[8], X2[8], Y2[8], Z2[8], X3[8], Y3[8], Z3[8];
	load_point(X1, Y1, Z1, a + 17 * i);
	load_point(X2, Y2, Z2, b + 17 * i);
	p256_point_add(X3, Y3, Z3, X1, Y1, Z1, X2, Y2, Z2);
	store_point(out + 34 * i, X3, Y3, Z3);
	p256_point_double(X3, Y3, Z3, X1, Y1, Z1);
	store_point(out + 34 * i + 17, X3, Y3, Z3);
	/* aliasing: the sum into the first operand */
	p256_point_add(X1, Y1, Z1, X1, Y1, Z1, X2, Y2, Z2);
}

/* out[i] = k[i]·p[i] by a double-and-add over all 256 bits with masked
 * selection (the complete formulas need no special case) */
KERNEL void p256_point_test_mul(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT p,
	GLOBAL const u32 *RESTRICT k, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 PX[8], PY[8], PZ[8], X[8], Y[8], Z[8], TX[8], TY[8], TZ[8];
	load_point(PX, PY, PZ, p + 17 * i);
	p256_point_infinity(X, Y, Z);
	for (int bit = 255; bit >= 0; bit--) {
		p256_point_double(X, Y, Z, X, Y, Z);
		p256_point_add(TX, TY, TZ, X, Y, Z, PX, PY, PZ);
		const u32 m = 0u - ((k[8 * i + (bit >> 5)] >> (bit & 31)) & 1u);
		p256_point_cmov(X, Y, Z, TX, TY, TZ, m);
	}
	store_point(out + 17 * i, X, Y, Z);
}

/* out[i] = k[i]·G by the constant-time comb (p256_comb.h) */
KERNEL void p256_point_test_base_mult(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT k,
	GLOBAL const u32 *RESTRICT table, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 s[8], X[8], Y[8], Z[8];
	for (int w = 0; w < 8; w++)
		s[w] = k[8 * i + w];
	p256_base_mult(X, Y, Z, s, table);
	store_point(out + 17 * i, X, Y, Z);
}
