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
 * and may define LADDER_BOUNDS and LADDER_XZ_BOUNDS, the KERNEL_BOUNDS
 * (dialect.h) of LADDER_KERNEL and LADDER_XZ_KERNEL, and another field
 * for the ladder's steps (the inversion stays on FE):
 *   LADDER_FE(op)     its function prefix (default FE)
 *   LADDER_FE_T       the type of its digits (default u32)
 *   LADDER_FE_N       digits per element (default NL)
 *   LADDER_FE_IN(r, u), LADDER_FE_OUT(r, a)
 *                     an element from NL limbs (u < 2^(32·NL − 1)) and
 *                     back, loosely reduced (default FE(copy))
 *   LADDER_FE_CARRY(a) what makes a sum or difference a valid operand of
 *                     a square or the second operand of a product (the
 *                     first may be a sum or difference of two products;
 *                     default nothing: the integer field takes any
 *                     loosely reduced element)
 * (fe25519_fp64.h's doubles for X25519 on GPUs with fast fp64).
 * Constant time: the scalar bit only feeds a mask for the conditional swap;
 * the loop bounds, memory indices and branches depend on public values only.
 * Scalars arrive clamped and u-coordinates masked (decodeScalar /
 * decodeUCoordinate, exactly as the RFC writes them, are done by the
 * decoding kernel of ecdh_codec.h).
 */

#ifndef LADDER_BOUNDS
#define LADDER_BOUNDS
#endif
#ifndef LADDER_XZ_BOUNDS
#define LADDER_XZ_BOUNDS
#endif
#ifndef LADDER_FE
#define LADDER_FE(op) FE(op)
#define LADDER_FE_T u32
#define LADDER_FE_N NL
#define LADDER_FE_IN(r, u) FE(copy)(r, u)
#define LADDER_FE_OUT(r, a) FE(copy)(r, a)
#define LADDER_FE_CARRY(a)
#endif

/* (x2 : z2) = k·(u) in projective x-only coordinates, loosely reduced;
 * k is limb-major with stride. z2 ≡ 0 (mod p) exactly when k·(u) is the
 * point at infinity: for a clamped k, when u has low order (the all-zero
 * shared secret). */
DEVICE_FN void LADDER(u32 *x2_out, u32 *z2_out, GLOBAL const u32 *k, const u32 kstride, const u32 *u)
{
	LADDER_FE_T x1[LADDER_FE_N], x2[LADDER_FE_N], z2[LADDER_FE_N], x3[LADDER_FE_N], z3[LADDER_FE_N];
	LADDER_FE_T A[LADDER_FE_N], B[LADDER_FE_N], C[LADDER_FE_N], D[LADDER_FE_N];
	LADDER_FE_IN(x1, u);
	LADDER_FE(set_small)(x2, 1u);
	LADDER_FE(set_small)(z2, 0u);
	LADDER_FE(copy)(x3, x1);
	LADDER_FE(set_small)(z3, 1u);
	u32 swap = 0, kw = 0;
	for (int t = SCALAR_BITS - 1; t >= 0; t--) {
		if (t == SCALAR_BITS - 1 || (t & 31) == 31)   /* public: the loop index */
			kw = LIMB(k, t >> 5, kstride);
		const u32 kt = (kw >> (t & 31)) & 1u;
		swap ^= kt;
		LADDER_FE(cswap)(0u - swap, x2, x3);
		LADDER_FE(cswap)(0u - swap, z2, z3);
		swap = kt;
		LADDER_FE(add)(A, x2, z2);          /* A  = x2 + z2 */
		LADDER_FE_CARRY(A);
		LADDER_FE(sub)(B, x2, z2);          /* B  = x2 − z2 */
		LADDER_FE_CARRY(B);
		LADDER_FE(add)(C, x3, z3);          /* C  = x3 + z3 */
		LADDER_FE(sub)(D, x3, z3);          /* D  = x3 − z3 */
		LADDER_FE(mul)(D, D, A);            /* DA */
		LADDER_FE(mul)(C, C, B);            /* CB */
		LADDER_FE(sqr)(A, A);               /* AA */
		LADDER_FE(sqr)(B, B);               /* BB */
		LADDER_FE(add)(x3, D, C);
		LADDER_FE_CARRY(x3);
		LADDER_FE(sqr)(x3, x3);             /* x3 = (DA + CB)^2 */
		LADDER_FE(sub)(z3, D, C);
		LADDER_FE_CARRY(z3);
		LADDER_FE(sqr)(z3, z3);
		LADDER_FE(mul)(z3, z3, x1);         /* z3 = x1·(DA − CB)^2 */
		LADDER_FE(mul)(x2, A, B);           /* x2 = AA·BB */
		LADDER_FE(sub)(C, A, B);            /* E  = AA − BB */
		LADDER_FE(mul_small_add)(A, C, A24, A); /* AA + a24·E */
		LADDER_FE(mul)(z2, C, A);           /* z2 = E·(AA + a24·E) */
	}
	LADDER_FE(cswap)(0u - swap, x2, x3);
	LADDER_FE(cswap)(0u - swap, z2, z3);
	LADDER_FE_OUT(x2_out, x2);
	LADDER_FE_OUT(z2_out, z2);
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
KERNEL void LADDER_XZ_BOUNDS LADDER_XZ_KERNEL(GLOBAL u32 *RESTRICT xz, GLOBAL const u32 *RESTRICT k,
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
