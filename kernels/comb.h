/* comb.h: fixed-base scalar multiplication k·B for public keys, written once
 * for both curves: a signed radix-16 comb on a complete twisted Edwards
 * model of the curve, in extended coordinates (Hisil, Wong, Carter, Dawson,
 * "Twisted Edwards curves revisited", 2008), then u = (1 + y)/(1 − y).
 * The including file defines
 *   FE(op), NL         as for ladder.h
 *   COMB_KERNEL        the kernel's name
 *   COMB_XZ_KERNEL     the name of the kernel that stops before the
 *                      inversion (for batch_invert.h)
 * (without COMB_KERNEL, comb.h defines no kernel: Ed25519's kernels call
 * comb_sum) and includes, before comb.h, the curve's generated constants
 * (comb25519_gen.h or comb448_gen.h: the COMB_* macros, documented there;
 * the curve models in kernels/internal/generate/comb.go).
 *
 * The point formulas may run on another field than FE (Ed25519 on doubles,
 * fe25519_fp64.h): the including file then defines
 *   COMB_FE(op), COMB_FE_T, COMB_FE_N   its function prefix, digit type and
 *                      digits per element (default FE, u32, NL)
 *   COMB_FE_IN(r, u)   an element from NL limbs below 2^(32·NL − 1) (the
 *                      table's entries; default FE(copy))
 *   COMB_FE_CARRY(a)   what makes a sum or difference of two products a
 *                      valid second operand of a product and operand of a
 *                      square (default nothing: FE takes any loosely
 *                      reduced element). The formulas call it where a
 *                      product's second operand or a square's operand is a
 *                      sum or difference, and nowhere a product's first
 *                      operand is a sum or difference of at most two
 *                      products (fe51_mul's rules).
 * The table scan stays on NL 32-bit limbs; COMB_KERNEL and COMB_XZ_KERNEL
 * need the default field.
 *
 * The table: the kernels take it as a global buffer argument after k (its
 * words come from kernels.CombTable). The masked scan reads every word of
 * a row in the same order in every work-item, so each load is uniform
 * across a warp, which the data caches serve well while the table
 * (24 KiB for X25519, 30.2 KiB for X448) stays cached. (A copy in
 * constant memory is slower: the constant cache holds the table only
 * while few warps share an SM.)
 *
 * Constant time: the scalar only feeds masks. Every table entry of a row is
 * read for every digit (digit 0 selects the neutral element, which no entry
 * matches), negation is a masked select, and every loop bound, branch and
 * memory index depends on public values only (the digit position, never
 * its value).
 *
 * Cost per key: X25519 64 mixed additions (3M + 4M to extended) and 4
 * doublings (4S + 3M); X448 113 mixed additions (4M + 4M) and 16
 * doublings; then one inversion and one multiplication. The ladder does
 * 5M + 4S per scalar bit (255 or 448 bits) before the same inversion.
 * COMB_XZ_KERNEL stops before the inversion; batch_invert.h then needs
 * about 4M and 1/K of an inversion per key for groups of K keys.
 */

#include "mask.h"

#ifndef COMB_FE
#define COMB_FE(op) FE(op)
#define COMB_FE_T u32
#define COMB_FE_N NL
#define COMB_FE_IN(r, u) FE(copy)(r, u)
#define COMB_FE_CARRY(a)
#endif

/* (p0, p1, p2) = entry |digit| of table row `row` by a masked scan of all
 * eight entries; the neutral element for absd = 0. */
DEVICE_FN void comb_select(u32 *p0, u32 *p1, u32 *p2, const u32 row, const u32 absd,
	GLOBAL const u32 *RESTRICT tab)
{
	u32 hit = 0;
	for (int w = 0; w < NL; w++)
		p0[w] = p1[w] = p2[w] = 0;
	const u32 base = row * (8u * COMB_ENTRY_WORDS);
	for (u32 n = 1; n <= 8; n++) {
		const u32 m = mask_if_zero(absd ^ n);
		const u32 off = base + (n - 1u) * COMB_ENTRY_WORDS;
		hit |= m;
		for (int w = 0; w < NL; w++) {
			p0[w] |= m & tab[off + w];
			p1[w] |= m & tab[off + NL + w];
			p2[w] |= m & tab[off + 2 * NL + w];
		}
	}
	/* the neutral element (0, 1): (y + x, y − x, 2dxy) = (1, 1, 0) or
	 * (x, y, dxy) = (0, 1, 0) */
#if COMB_A < 0
	p0[0] |= ~hit & 1u;
#endif
	p1[0] |= ~hit & 1u;
}

/* negate the selected point where neg is all ones: x → −x */
DEVICE_FN void comb_cneg(COMB_FE_T *p0, COMB_FE_T *p1, COMB_FE_T *p2, const u32 neg)
{
	COMB_FE_T zero[COMB_FE_N], t[COMB_FE_N];
	COMB_FE(set_small)(zero, 0u);
	COMB_FE(sub)(t, zero, p2);
	COMB_FE(cswap)(neg, p2, t);
#if COMB_A < 0
	COMB_FE(cswap)(neg, p0, p1);      /* y + x ↔ y − x */
#else
	COMB_FE(sub)(t, zero, p0);
	COMB_FE(cswap)(neg, p0, t);
#endif
}

/* A completed point (E, F, G, H) is x = E/G, y = H/F. To extended
 * coordinates (X : Y : Z : T), x = X/Z, y = Y/Z, T = XY/Z: 4M. */
DEVICE_FN void comb_ext(COMB_FE_T *X, COMB_FE_T *Y, COMB_FE_T *Z, COMB_FE_T *T,
	const COMB_FE_T *E, const COMB_FE_T *F, const COMB_FE_T *G, const COMB_FE_T *H)
{
	COMB_FE(mul)(X, E, F);
	COMB_FE(mul)(Y, G, H);
	COMB_FE(mul)(Z, F, G);
	COMB_FE(mul)(T, E, H);
}

/* the same without T, as the input of a doubling: 3M */
DEVICE_FN void comb_proj(COMB_FE_T *X, COMB_FE_T *Y, COMB_FE_T *Z,
	const COMB_FE_T *E, const COMB_FE_T *F, const COMB_FE_T *G, const COMB_FE_T *H)
{
	COMB_FE(mul)(X, E, F);
	COMB_FE(mul)(Y, G, H);
	COMB_FE(mul)(Z, F, G);
}

/* (E, F, G, H) = 2·(X : Y : Z): 4S (dbl-2008-hwcd without its products) */
DEVICE_FN void comb_dbl(COMB_FE_T *E, COMB_FE_T *F, COMB_FE_T *G, COMB_FE_T *H,
	const COMB_FE_T *X, const COMB_FE_T *Y, const COMB_FE_T *Z)
{
	COMB_FE_T A[COMB_FE_N], B[COMB_FE_N], C[COMB_FE_N];
	COMB_FE(sqr)(A, X);
	COMB_FE(sqr)(B, Y);
	COMB_FE(sqr)(C, Z);
	COMB_FE(add)(C, C, C);                /* 2Z² */
	COMB_FE(add)(E, X, Y);
	COMB_FE_CARRY(E);
	COMB_FE(sqr)(E, E);                   /* (X + Y)² */
#if COMB_A < 0
	/* G = aX² + Y², and H = X² + Y², F = 2Z² − G: both negated from
	 * H = aX² − Y², F = G − 2Z², so y = H/F is unchanged. F, G and H are
	 * second operands of comb_ext's products, E only a first one. */
	COMB_FE(sub)(G, B, A);
	COMB_FE_CARRY(G);
	COMB_FE(add)(H, A, B);
	COMB_FE_CARRY(H);
	COMB_FE(sub)(F, C, G);
	COMB_FE_CARRY(F);
	COMB_FE(sub)(E, E, H);                /* 2XY */
#else
	COMB_FE(add)(G, A, B);                /* X² + Y² */
	COMB_FE(sub)(H, A, B);
	COMB_FE(sub)(F, G, C);
	COMB_FE(sub)(E, E, G);                /* 2XY */
#endif
}

/* (E, F, G, H) = (X : Y : Z : T) + (p0, p1, p2), the table point affine:
 * the unified addition (add-2008-hwcd with Z2 = 1), complete for this
 * model. 3M for a = −1 (add-2008-hwcd-3), 4M for a = 1. */
DEVICE_FN void comb_madd(COMB_FE_T *E, COMB_FE_T *F, COMB_FE_T *G, COMB_FE_T *H,
	const COMB_FE_T *X, const COMB_FE_T *Y, const COMB_FE_T *Z, const COMB_FE_T *T,
	const COMB_FE_T *p0, const COMB_FE_T *p1, const COMB_FE_T *p2)
{
	COMB_FE_T A[COMB_FE_N], B[COMB_FE_N], C[COMB_FE_N], D[COMB_FE_N];
	COMB_FE(mul)(C, T, p2);               /* 2d·T·xy or d·T·xy; T and p2 dead */
#if COMB_A < 0
	/* p = (y + x, y − x, 2dxy); every output is twice the a = 1 form's */
	COMB_FE(sub)(A, Y, X);
	COMB_FE(mul)(A, A, p1);               /* (Y − X)(y − x) */
	COMB_FE(add)(B, Y, X);
	COMB_FE(mul)(B, B, p0);               /* (Y + X)(y + x) */
	COMB_FE(add)(D, Z, Z);
	COMB_FE(sub)(E, B, A);                /* 2(X·y + Y·x) */
	COMB_FE(add)(H, B, A);                /* 2(Y·y + X·x) = 2(Y·y − a·X·x) */
	COMB_FE(sub)(F, D, C);
	COMB_FE(add)(G, D, C);
	COMB_FE_CARRY(F);
	COMB_FE_CARRY(G);
	COMB_FE_CARRY(H);
#else
	/* p = (x, y, dxy) */
	COMB_FE(mul)(A, X, p0);               /* X·x */
	COMB_FE(mul)(B, Y, p1);               /* Y·y */
	COMB_FE(add)(D, X, Y);
	COMB_FE(add)(E, p0, p1);
	COMB_FE(mul)(E, D, E);
	COMB_FE(sub)(E, E, A);
	COMB_FE(sub)(E, E, B);                /* X·y + Y·x */
	COMB_FE(sub)(H, B, A);                /* Y·y − a·X·x */
	COMB_FE(sub)(F, Z, C);
	COMB_FE(add)(G, Z, C);
#endif
}

/* digit i (public) of the recoded scalar s' = s + Σ 8·16^i, as a signed
 * value in two's complement */
DEVICE_FN u32 comb_digit(const u32 *s, const int i)
{
#if COMB_DIGITS > COMB_NIBBLES
	if (i == COMB_NIBBLES)           /* the carry, 0 or 1 */
		return s[NL];
#endif
	u32 m = (s[i >> 3] >> ((i & 7) << 2)) & 15u;
#if COMB_TOP_FOLD
	if (i == COMB_NIBBLES - 1)       /* top digit in [−8, 8] */
		m += s[NL] << 4;
#endif
	return m - 8u;
}

/* (E, F, G, H) = k·B, completed (x = E/G, y = H/F), for the scalar k in
 * NL private words (the top one masked by COMB_TOP_MASK): the comb. */
DEVICE_FN void comb_sum(COMB_FE_T *E, COMB_FE_T *F, COMB_FE_T *G, COMB_FE_T *H, const u32 *k,
	GLOBAL const u32 *RESTRICT tab)
{
	/* s' = s + 0x8888…88 (NL words), carry in s[NL] */
	u32 s[NL + 1];
	u64 c = 0;
	for (int j = 0; j < NL; j++) {
		u32 w = k[j];
		if (j == NL - 1)
			w &= COMB_TOP_MASK;
		c += (u64)w + 0x88888888u;
		s[j] = (u32)c;
		c >>= 32;
	}
	s[NL] = (u32)c;

	COMB_FE_T X[COMB_FE_N], Y[COMB_FE_N], Z[COMB_FE_N], T[COMB_FE_N];
	COMB_FE_T p0[COMB_FE_N], p1[COMB_FE_N], p2[COMB_FE_N];
	u32 l0[NL], l1[NL], l2[NL];      /* the entry as the table holds it */
	COMB_FE(set_small)(E, 0u);       /* the neutral element */
	COMB_FE(set_small)(F, 1u);
	COMB_FE(set_small)(G, 1u);
	COMB_FE(set_small)(H, 1u);
	for (int r = COMB_SPACING - 1; r >= 0; r--) {
		if (r != COMB_SPACING - 1) {
			for (int t = 0; t < 4; t++) {
				comb_proj(X, Y, Z, E, F, G, H);
				comb_dbl(E, F, G, H, X, Y, Z);
			}
		}
		for (int j = 0; j < COMB_ROWS; j++) {
			const int i = COMB_SPACING * j + r;
			if (i >= COMB_DIGITS)    /* public: past the last digit */
				break;
			/* convert first: (E, F, G, H) is dead before the entry is live */
			comb_ext(X, Y, Z, T, E, F, G, H);
			const u32 e = comb_digit(s, i);
			const u32 neg = 0u - (e >> 31);
			comb_select(l0, l1, l2, (u32)j, (e ^ neg) - neg, tab);
			COMB_FE_IN(p0, l0);
			COMB_FE_IN(p1, l1);
			COMB_FE_IN(p2, l2);
			comb_cneg(p0, p1, p2, neg);
			comb_madd(E, F, G, H, X, Y, Z, T, p0, p1, p2);
		}
	}
}

#if defined(COMB_KERNEL)
/* u(k·B) = X/Y for the scalar k (limb-major with stride count), loosely
 * reduced: the comb, then the conversion from y. */
DEVICE_FN void comb_xz(u32 *X, u32 *Y, GLOBAL const u32 *k, const u32 count,
	GLOBAL const u32 *RESTRICT tab)
{
	u32 kw[NL];
	for (int j = 0; j < NL; j++)
		kw[j] = LIMB(k, j, count);
	u32 E[NL], F[NL], G[NL], H[NL];  /* the sum, completed */
	comb_sum(E, F, G, H, kw, tab);

	/* y = H/F. F − H = 0 only for y = 1, the neutral element (on the curve
	 * y = 1 forces x = 0), i.e. when the order q of B divides k. No clamped
	 * X25519 scalar is a multiple of q (8 | k, so 8q | k, but 8q > 2^255).
	 * The one clamped X448 scalar that is, k = 4q, gives the neutral
	 * element: inversion maps 0 to 0 and the result is u = 0, exactly what
	 * the ladder (z2 = 0) and RFC 7748's x2·z2^(p−2) give (the batched
	 * inversion gives 0 for a zero denominator too). */
	FE(add)(X, F, H);
#if COMB_U_NEG
	FE(sub)(Y, H, F);                /* u = (y + 1)/(y − 1) */
#else
	FE(sub)(Y, F, H);                /* u = (1 + y)/(1 − y) */
#endif
}

/* out[i] = u(k[i]·B) over limb-major batches of NL limbs: public keys.
 * tab is the comb table (kernels.CombTable). */
KERNEL void COMB_KERNEL(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT k,
	GLOBAL const u32 *RESTRICT tab, const u32 count)
{
	const u32 gid = GID();
	if (gid >= count) return;
	u32 X[NL], Y[NL];
	comb_xz(X, Y, k + gid, count, tab);
	FE(invert)(Y, Y);
	FE(mul)(X, X, Y);
	FE(canon)(X);
	for (int j = 0; j < NL; j++)
		LIMB(out + gid, j, count) = X[j];
}

/* The same without the inversion: xz[i] = X and xz[NL·count + i] = Y with
 * u(k[i]·B) = X/Y, limb-major, loosely reduced; the batched inversion
 * kernel (batch_invert.h) finishes them. tab as for COMB_KERNEL. */
KERNEL void COMB_XZ_KERNEL(GLOBAL u32 *RESTRICT xz, GLOBAL const u32 *RESTRICT k,
	GLOBAL const u32 *RESTRICT tab, const u32 count)
{
	const u32 gid = GID();
	if (gid >= count) return;
	u32 X[NL], Y[NL];
	comb_xz(X, Y, k + gid, count, tab);
	for (int j = 0; j < NL; j++) {
		LIMB(xz + gid, j, count) = X[j];
		LIMB(xz + gid, NL + j, count) = Y[j];
	}
}
#endif /* COMB_KERNEL */
