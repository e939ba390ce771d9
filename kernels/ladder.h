/* ladder.h: the Montgomery ladder of RFC 7748 §5 for shared secrets
 * (variable u; public keys use the comb of comb.h), written once for both
 * curves. The including file defines
 *   FE(op)            the field function prefix (fe25519_##op, fe448_##op)
 *   NL                limbs per field element
 *   SCALAR_BITS       255 (X25519) or 448 (X448)
 *   A24               (A − 2) / 4: 121665 or 39081
 *   LADDER            the name of the ladder function to define
 *   LADDER_KERNEL     the kernel's name
 *   LADDER_XZ_KERNEL  the name of the kernel that stops before the
 *                     inversion (for batch_invert.h)
 * and may define LADDER_BOUNDS, the KERNEL_BOUNDS (dialect.h) of
 * LADDER_KERNEL.
 * Constant time: the scalar bit only feeds a mask for the conditional swap;
 * the loop bounds, memory indices and branches depend on public values only.
 * Scalars arrive clamped and u-coordinates masked (decodeScalar /
 * decodeUCoordinate, exactly as the RFC writes them, are done by the
 * decoding kernel of ecdh_codec.h).
 */

#ifndef LADDER_BOUNDS
#define LADDER_BOUNDS
#endif

/* (x2 : z2) = k·(u) in projective x-only coordinates, loosely reduced;
 * k is limb-major with stride. z2 ≡ 0 (mod p) exactly when k·(u) is the
 * point at infinity: for a clamped k, when u has low order (the all-zero
 * shared secret). */
DEVICE_FN void LADDER(u32 *x2, u32 *z2, GLOBAL const u32 *k, const u32 kstride, const u32 *u)
{
	u32 x1[NL], x3[NL], z3[NL], A[NL], B[NL], C[NL], D[NL];
	FE(copy)(x1, u);
	FE(set_small)(x2, 1u);
	FE(set_small)(z2, 0u);
	FE(copy)(x3, u);
	FE(set_small)(z3, 1u);
	u32 swap = 0, kw = 0;
	for (int t = SCALAR_BITS - 1; t >= 0; t--) {
		if (t == SCALAR_BITS - 1 || (t & 31) == 31)   /* public: the loop index */
			kw = LIMB(k, t >> 5, kstride);
		const u32 kt = (kw >> (t & 31)) & 1u;
		swap ^= kt;
		FE(cswap)(0u - swap, x2, x3);
		FE(cswap)(0u - swap, z2, z3);
		swap = kt;
		FE(add)(A, x2, z2);          /* A  = x2 + z2 */
		FE(sub)(B, x2, z2);          /* B  = x2 − z2 */
		FE(add)(C, x3, z3);          /* C  = x3 + z3 */
		FE(sub)(D, x3, z3);          /* D  = x3 − z3 */
		FE(mul)(D, D, A);            /* DA */
		FE(mul)(C, C, B);            /* CB */
		FE(sqr)(A, A);               /* AA */
		FE(sqr)(B, B);               /* BB */
		FE(add)(x3, D, C);
		FE(sqr)(x3, x3);             /* x3 = (DA + CB)^2 */
		FE(sub)(z3, D, C);
		FE(sqr)(z3, z3);
		FE(mul)(z3, z3, x1);         /* z3 = x1·(DA − CB)^2 */
		FE(mul)(x2, A, B);           /* x2 = AA·BB */
		FE(sub)(C, A, B);            /* E  = AA − BB */
		FE(mul_small_add)(A, C, A24, A); /* AA + a24·E */
		FE(mul)(z2, C, A);           /* z2 = E·(AA + a24·E) */
	}
	FE(cswap)(0u - swap, x2, x3);
	FE(cswap)(0u - swap, z2, z3);
}

/* out[i] = X(k[i], u[i]) over limb-major batches of NL limbs. */
KERNEL void LADDER_BOUNDS LADDER_KERNEL(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT k,
	GLOBAL const u32 *RESTRICT u, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 ui[NL], x2[NL], z2[NL], r[NL];
	for (int j = 0; j < NL; j++) ui[j] = LIMB(u + i, j, count);
	LADDER(x2, z2, k + i, count, ui);
	FE(invert)(z2, z2);              /* u = x2·z2^(p−2): 0 when z2 = 0 */
	FE(mul)(r, x2, z2);
	FE(canon)(r);
	for (int j = 0; j < NL; j++) LIMB(out + i, j, count) = r[j];
}

/* The same ladder without the inversion: xz[i] = X and xz[NL·count + i] =
 * Z of k[i]·(u[i]), limb-major, loosely reduced; the batched inversion
 * kernel (batch_invert.h) turns them into u = X/Z. */
KERNEL void LADDER_XZ_KERNEL(GLOBAL u32 *RESTRICT xz, GLOBAL const u32 *RESTRICT k,
	GLOBAL const u32 *RESTRICT u, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 ui[NL], x2[NL], z2[NL];
	for (int j = 0; j < NL; j++) ui[j] = LIMB(u + i, j, count);
	LADDER(x2, z2, k + i, count, ui);
	for (int j = 0; j < NL; j++) {
		LIMB(xz + i, j, count) = x2[j];
		LIMB(xz + i, NL + j, count) = z2[j];
	}
}
