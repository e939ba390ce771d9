/* ladder_mt.h: the Montgomery ladder of RFC 7748 §5 with LANES = 2 or 4
 * consecutive work-items ("lanes", lanes.h) per scalar multiplication.
 * Experimental: built by ecdh/mt.go to measure against the one-work-item
 * ladder (ladder.h); the Engine does not use it, because it lost at
 * every batch size on the H100 (kernel ops/s, one lane / 2 / 4 lanes:
 * X25519 16.0M / 16.4M / 11.9M at 16384, 27.2M / 19.9M / 13.1M at 524288;
 * X448 3.25M / 2.99M / 2.39M at 16384; docs/BENCHMARKS.md). Squarings
 * become products, a level of 3 products idles a lane, and one work-item
 * per ladder already keeps the multipliers busy without spilling. Written once for both
 * curves; the including file defines, as for ladder.h,
 *   FE(op), NL, SCALAR_BITS, A24   the field, its limbs, the scalar width
 *   XMT_KERNEL, XMT_XZ_KERNEL      the kernels' names (the second stops
 *                                  before the inversion, for batch_invert.h)
 * and the host defines LANES and LANES_WG (the work-group size the kernel
 * must be launched with).
 *
 * The split: operation-level, not limb-level. A ladder step is nine field
 * multiplications in three dependent levels (with s/d the sums and
 * differences x ± z of the two points after the conditional swap:
 * A, B of (x2, z2) and C, D of (x3, z3)):
 *
 *   level 1   DA = D·A        CB = C·B        AA = A²          BB = B²
 *   level 2   X3 = (DA+CB)²   W = (DA−CB)²    X2 = AA·BB       Z2 = E·(AA + a24·E)
 *   level 3   Z3 = x1·W                                        (E = AA − BB)
 *
 * (z2 = E·(AA + a24·E) needs only AA and BB, so it moves up from level 3,
 * where ladder.h has it, to level 2.) Products are numbered j = 0..3 in
 * each level; lane l computes products j = l·PER + r, r = 0..PER−1, with
 * PER = 4/LANES: LANES = 2 gives lane 0 the x3 chain (DA, CB, X3, W, Z3)
 * and lane 1 the x2 chain (AA, BB, X2, Z2); LANES = 4 gives each lane one
 * product per level. A step is 5 rounds of one multiplication per lane
 * for LANES = 2 and 3 rounds for LANES = 4 (against 5M + 4S in one
 * work-item); every lane runs every round, with its operands picked by
 * masks of its (public) product number, so the squarings become
 * multiplications and the level-3 round does one useful product.
 *
 * Why not limb-level (each lane owning NL/LANES limbs of every element):
 * with 32-bit limbs and exact carries every field addition needs a carry
 * passed across lanes, and every product needs the operand words
 * broadcast, the high half folded onto the low half (×38) across lanes and
 * the carries resolved again: several exchanges per limb of every
 * operation, against a few per field element here. The operation split
 * also keeps the generated single-lane field code (field_gen.h) as it is.
 *
 * State between steps: lane l holds elements l·PER .. l·PER+PER−1 of
 * (X3, Z3, X2, Z2): the lower half of the group holds point 3, the upper
 * half point 2. Exchanges per step (each moves one 32-bit word per lane,
 * through lanes_shfl only):
 *   LANES = 4: 1 element to pair (x, z) of a point (lane ^ 1), s and d of
 *              the other point (lane ^ 2), 1 element between levels 1 and
 *              2 (lane ^ 1): 4 elements, 4·NL exchanges (32 for X25519)
 *   LANES = 2: s and d of the other point (lane ^ 1): 2·NL (16)
 * The conditional swap is masked, never a secret shuffle source: each lane
 * takes s and d of the other half's point unconditionally and swaps them
 * with its own under the mask swap XOR (lane in the lower half), which
 * leaves (s, d) of point 2 (A, B) in its own registers and those of point
 * 3 (C, D) in the other's. After the ladder the same exchange and swap
 * give every lane the result (x2 : z2); every lane inverts z2 (Fermat, as
 * ladder.h: the exponent is public, squarings stay squarings) and lane l
 * stores the canonical limbs j ≡ l (mod LANES).
 *
 * What to expect: per element and step LANES = 2 computes 10 products (9
 * useful, all full multiplications) and LANES = 4 computes 12, against
 * 5 multiplications and 4 cheaper squarings in one work-item, plus the
 * exchanges and the operand selection; the Fermat inversion is run by
 * every lane of the group. So the split can only win where the one-lane
 * kernel is held back by latency or too few work-items (small batches),
 * not where it is multiplier-bound; x25519_mt_xz with the batched
 * inversion removes the repeated inversion.
 *
 * Constant time: the scalar bit only feeds the swap mask; loop bounds,
 * exchange sources (lane ^ 1, lane ^ LANES/2), memory indices and branches
 * depend on public values (loop index, lane number, element index) only.
 * Every lane of every work-group runs every exchange: the host pads the
 * batch to whole work-groups; the padding groups recompute the last
 * element and store nothing (the stores are masked). Scalars arrive
 * clamped and u-coordinates masked by the host, as for ladder.h.
 */
#pragma once
#include "lanes.h"

#if LANES != 2 && LANES != 4
#error "ladder_mt.h: LANES must be 2 or 4 (a step has four independent products per level)"
#endif
#if LANES_WG % 32 != 0 || LANES_WG % LANES != 0
#error "ladder_mt.h: LANES_WG must be a multiple of 32 and of LANES"
#endif
#define XMT_PER (4 / LANES)   /* products of a level per lane */
#define XMT_HALF (LANES / 2)  /* lane ^ XMT_HALF is the other point's lane */

/* r = m ? a : b, for an all-ones or all-zero mask m */
DEVICE_FN void xmt_sel(u32 *r, const u32 m, const u32 *a, const u32 *b)
{
	for (int j = 0; j < NL; j++) r[j] = (a[j] & m) | (b[j] & ~m);
}

/* r = a of lane src of the group (r and a distinct) */
DEVICE_FN void xmt_shfl(const lanes_t L, u32 *r, const u32 *a, const u32 src)
{
	for (int j = 0; j < NL; j++) r[j] = lanes_shfl(L, a[j], src);
}

/* (x, z) of this lane's point from its elements st of (X3, Z3, X2, Z2) */
DEVICE_FN void xmt_point(const lanes_t L, u32 *x, u32 *z, u32 st[XMT_PER][NL])
{
#if XMT_PER == 2
	FE(copy)(x, st[0]);
	FE(copy)(z, st[1]);
#else
	u32 o[NL];
	const u32 odd = 0u - (L.lane & 1u);   /* this lane holds z, lane ^ 1 holds x */
	xmt_shfl(L, o, st[0], L.lane ^ 1u);
	xmt_sel(x, odd, o, st[0]);
	xmt_sel(z, odd, st[0], o);
#endif
}

/* Takes a and b of the other point's lane (ao, bo) and swaps them with
 * this lane's under mask m: afterwards (a, b) belong to the swapped point
 * 2 and (ao, bo) to point 3. */
DEVICE_FN void xmt_cross_swap(const lanes_t L, const u32 m, u32 *a, u32 *b, u32 *ao, u32 *bo)
{
	xmt_shfl(L, ao, a, L.lane ^ XMT_HALF);
	xmt_shfl(L, bo, b, L.lane ^ XMT_HALF);
	FE(cswap)(m, a, ao);
	FE(cswap)(m, b, bo);
}

/* x1 = u, read from the batch where level 3 needs it rather than held in
 * NL registers through the ladder (every lane of a group reads the same
 * words: one cached load each) */
DEVICE_FN void xmt_load(u32 *r, GLOBAL const u32 *p, const u32 stride)
{
	for (int j = 0; j < NL; j++) r[j] = LIMB(p, j, stride);
}

/* Leaves in (x, z) the point (x2 : z2) = k·(u) that ladder.h returns, in
 * every lane; k and u are limb-major with stride. */
DEVICE_FN void xmt_ladder(const lanes_t L, u32 *x, u32 *z, GLOBAL const u32 *k, GLOBAL const u32 *u, const u32 stride)
{
	u32 st[XMT_PER][NL];
	const u32 low = 0u - (u32)(L.lane < XMT_HALF);  /* lanes of point 3 */
	UNROLL_OUTER
	for (int r = 0; r < XMT_PER; r++) {          /* (X3, Z3, X2, Z2) = (u, 1, 1, 0) */
		const u32 e = L.lane * XMT_PER + r;
		u32 t[NL], x1[NL];
		xmt_load(x1, u, stride);
		FE(set_small)(t, (u32)(e != 3u));
		xmt_sel(st[r], 0u - (u32)(e == 0u), x1, t);
	}
	u32 swap = 0, kw = 0;
	for (int t = SCALAR_BITS - 1; t >= 0; t--) {
		if (t == SCALAR_BITS - 1 || (t & 31) == 31)   /* public: the loop index */
			kw = LIMB(k, t >> 5, stride);
		const u32 kt = (kw >> (t & 31)) & 1u;
		swap ^= kt;
		u32 A[NL], B[NL], C[NL], D[NL];
		xmt_point(L, x, z, st);
		FE(add)(A, x, z);                        /* s of this lane's point */
		FE(sub)(B, x, z);                        /* d */
		xmt_cross_swap(L, (0u - swap) ^ low, A, B, C, D);
		swap = kt;
		/* level 1: product j is D·A, C·B, A·A, B·B */
		u32 P[XMT_PER][NL];
		UNROLL_OUTER   /* P[r], st[r]: constant indices, registers */
		for (int r = 0; r < XMT_PER; r++) {
			const u32 j = L.lane * XMT_PER + r;
			const u32 m1 = 0u - (j & 1u), m2 = 0u - ((j >> 1) & 1u);
			u32 p[NL], q[NL];
			xmt_sel(q, m1, B, A);
			xmt_sel(p, m1, C, D);
			xmt_sel(p, m2, q, p);
			FE(mul)(P[r], p, q);
		}
		/* level 2 works on the pair (U, V) = (DA, CB) for j < 2, (AA, BB)
		 * for j ≥ 2 */
		u32 U[NL], V[NL], S[NL], E[NL], T[NL];
#if XMT_PER == 2
		FE(copy)(U, P[0]);
		FE(copy)(V, P[1]);
#else
		{
			u32 o[NL];
			const u32 odd = 0u - (L.lane & 1u);
			xmt_shfl(L, o, P[0], L.lane ^ 1u);
			xmt_sel(U, odd, o, P[0]);
			xmt_sel(V, odd, P[0], o);
		}
#endif
		FE(add)(S, U, V);                        /* DA + CB */
		FE(sub)(E, U, V);                        /* DA − CB, or E = AA − BB */
		FE(mul_small_add)(T, E, A24, U);         /* AA + a24·E */
		/* product j is S·S, E·E, U·V, E·T */
		UNROLL_OUTER   /* P[r], st[r]: constant indices, registers */
		for (int r = 0; r < XMT_PER; r++) {
			const u32 j = L.lane * XMT_PER + r;
			const u32 m1 = 0u - (j & 1u), m2 = 0u - ((j >> 1) & 1u);
			u32 p[NL], q[NL], t1[NL];
			xmt_sel(p, m2, U, S);
			xmt_sel(p, m1, E, p);
			xmt_sel(q, m1, E, S);
			xmt_sel(t1, m1, T, V);
			xmt_sel(q, m2, t1, q);
			FE(mul)(st[r], p, q);
		}
		/* level 3: Z3 = x1·W, product 1 of level 2 */
		{
			u32 w[NL], x1[NL];
			const u32 j = L.lane * XMT_PER + XMT_PER - 1;
			xmt_load(x1, u, stride);
			FE(mul)(w, st[XMT_PER - 1], x1);
			xmt_sel(st[XMT_PER - 1], 0u - (u32)(j == 1u), w, st[XMT_PER - 1]);
		}
	}
	{
		u32 xo[NL], zo[NL];
		xmt_point(L, x, z, st);
		xmt_cross_swap(L, (0u - swap) ^ low, x, z, xo, zo);
	}
}

/* out[i] = X(k[i], u[i]) over limb-major batches of NL limbs; LANES
 * work-items per element, launched in work-groups of LANES_WG over a
 * global size padded to whole work-groups. scratch is the lanes.h scratch
 * (LANES_WG words of local memory, unused on the shfl path), passed as an
 * argument rather than declared with LANES_SCRATCH: PoCL 3.1 running
 * work-groups on several threads gave wrong results in whole work-groups
 * with the kernel-scope array in this kernel, never with the argument. */
KERNEL void XMT_KERNEL(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT k,
	GLOBAL const u32 *RESTRICT u, const u32 count, LOCAL_PTR u32 *scratch)
{
	const lanes_t L = lanes_init(scratch);
	const u32 g = GID() / LANES;
	const u32 valid = g < count ? 1u : 0u;
	const u32 i = valid ? g : count - 1u;        /* padding: a copy of the last element */
	u32 x[NL], z[NL], r[NL];
	xmt_ladder(L, x, z, k + i, u + i, count);
	FE(invert)(z, z);                            /* u = x2·z2^(p−2): 0 when z2 = 0 */
	FE(mul)(r, x, z);
	FE(canon)(r);
	for (int j = 0; j < NL; j++)
		if (valid && (u32)(j & (LANES - 1)) == L.lane)
			LIMB(out + i, j, count) = r[j];
}

/* The same ladder without the inversion, as ladder.h's LADDER_XZ_KERNEL:
 * xz[i] = X and xz[NL·count + i] = Z of k[i]·(u[i]), limb-major, loosely
 * reduced, for the batched inversion kernel of batch_invert.h. */
KERNEL void XMT_XZ_KERNEL(GLOBAL u32 *RESTRICT xz, GLOBAL const u32 *RESTRICT k,
	GLOBAL const u32 *RESTRICT u, const u32 count, LOCAL_PTR u32 *scratch)
{
	const lanes_t L = lanes_init(scratch);
	const u32 g = GID() / LANES;
	const u32 valid = g < count ? 1u : 0u;
	const u32 i = valid ? g : count - 1u;
	u32 x[NL], z[NL];
	xmt_ladder(L, x, z, k + i, u + i, count);
	for (int j = 0; j < NL; j++)
		if (valid && (u32)(j & (LANES - 1)) == L.lane) {
			LIMB(xz + i, j, count) = x[j];
			LIMB(xz + i, NL + j, count) = z[j];
		}
}
