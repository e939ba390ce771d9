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
 * The table: the kernels take it as a global buffer argument after k (its
 * words come from kernels.CombTable). The masked scan reads every word of
 * a row in the same order in every work-item, so each load is uniform
 * across a warp, which the data caches serve well while the table
 * (24 KiB for X25519, 30.2 KiB for X448) stays cached. (A copy in
 * constant memory was slower on the H100: the constant cache holds the
 * table only while few warps share an SM.)
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

/* r = m ? a : r for a mask m of all ones or zero */
DEVICE_FN void comb_cmov(u32 *r, const u32 *a, const u32 m)
{
	for (int w = 0; w < NL; w++)
		r[w] ^= m & (r[w] ^ a[w]);
}

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
		const u32 x = absd ^ n;
		const u32 m = ((x | (0u - x)) >> 31) - 1u; /* all ones iff absd == n */
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
DEVICE_FN void comb_cneg(u32 *p0, u32 *p1, u32 *p2, const u32 neg)
{
	u32 zero[NL], t[NL];
	FE(set_small)(zero, 0u);
	FE(sub)(t, zero, p2);
	comb_cmov(p2, t, neg);
#if COMB_A < 0
	FE(cswap)(neg, p0, p1);      /* y + x ↔ y − x */
#else
	FE(sub)(t, zero, p0);
	comb_cmov(p0, t, neg);
#endif
}

/* A completed point (E, F, G, H) is x = E/G, y = H/F. To extended
 * coordinates (X : Y : Z : T), x = X/Z, y = Y/Z, T = XY/Z: 4M. */
DEVICE_FN void comb_ext(u32 *X, u32 *Y, u32 *Z, u32 *T,
	const u32 *E, const u32 *F, const u32 *G, const u32 *H)
{
	FE(mul)(X, E, F);
	FE(mul)(Y, G, H);
	FE(mul)(Z, F, G);
	FE(mul)(T, E, H);
}

/* the same without T, as the input of a doubling: 3M */
DEVICE_FN void comb_proj(u32 *X, u32 *Y, u32 *Z,
	const u32 *E, const u32 *F, const u32 *G, const u32 *H)
{
	FE(mul)(X, E, F);
	FE(mul)(Y, G, H);
	FE(mul)(Z, F, G);
}

/* (E, F, G, H) = 2·(X : Y : Z): 4S (dbl-2008-hwcd without its products) */
DEVICE_FN void comb_dbl(u32 *E, u32 *F, u32 *G, u32 *H,
	const u32 *X, const u32 *Y, const u32 *Z)
{
	u32 A[NL], B[NL], C[NL];
	FE(sqr)(A, X);
	FE(sqr)(B, Y);
	FE(sqr)(C, Z);
	FE(add)(C, C, C);                /* 2Z² */
	FE(add)(E, X, Y);
	FE(sqr)(E, E);                   /* (X + Y)² */
#if COMB_A < 0
	/* G = aX² + Y², and H = X² + Y², F = 2Z² − G: both negated from
	 * H = aX² − Y², F = G − 2Z², so y = H/F is unchanged */
	FE(sub)(G, B, A);
	FE(add)(H, A, B);
	FE(sub)(F, C, G);
	FE(sub)(E, E, H);                /* 2XY */
#else
	FE(add)(G, A, B);                /* X² + Y² */
	FE(sub)(H, A, B);
	FE(sub)(F, G, C);
	FE(sub)(E, E, G);                /* 2XY */
#endif
}

/* (E, F, G, H) = (X : Y : Z : T) + (p0, p1, p2), the table point affine:
 * the unified addition (add-2008-hwcd with Z2 = 1), complete for this
 * model. 3M for a = −1 (add-2008-hwcd-3), 4M for a = 1. */
DEVICE_FN void comb_madd(u32 *E, u32 *F, u32 *G, u32 *H,
	const u32 *X, const u32 *Y, const u32 *Z, const u32 *T,
	const u32 *p0, const u32 *p1, const u32 *p2)
{
	u32 A[NL], B[NL], C[NL], D[NL];
	FE(mul)(C, T, p2);               /* 2d·T·xy or d·T·xy; T and p2 dead */
#if COMB_A < 0
	/* p = (y + x, y − x, 2dxy); every output is twice the a = 1 form's */
	FE(sub)(A, Y, X);
	FE(mul)(A, A, p1);               /* (Y − X)(y − x) */
	FE(add)(B, Y, X);
	FE(mul)(B, B, p0);               /* (Y + X)(y + x) */
	FE(add)(D, Z, Z);
	FE(sub)(E, B, A);                /* 2(X·y + Y·x) */
	FE(add)(H, B, A);                /* 2(Y·y + X·x) = 2(Y·y − a·X·x) */
	FE(sub)(F, D, C);
	FE(add)(G, D, C);
#else
	/* p = (x, y, dxy) */
	FE(mul)(A, X, p0);               /* X·x */
	FE(mul)(B, Y, p1);               /* Y·y */
	FE(add)(D, X, Y);
	FE(add)(E, p0, p1);
	FE(mul)(E, D, E);
	FE(sub)(E, E, A);
	FE(sub)(E, E, B);                /* X·y + Y·x */
	FE(sub)(H, B, A);                /* Y·y − a·X·x */
	FE(sub)(F, Z, C);
	FE(add)(G, Z, C);
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
DEVICE_FN void comb_sum(u32 *E, u32 *F, u32 *G, u32 *H, const u32 *k,
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

	u32 X[NL], Y[NL], Z[NL], T[NL];
	u32 p0[NL], p1[NL], p2[NL];
	FE(set_small)(E, 0u);            /* the neutral element */
	FE(set_small)(F, 1u);
	FE(set_small)(G, 1u);
	FE(set_small)(H, 1u);
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
			comb_select(p0, p1, p2, (u32)j, (e ^ neg) - neg, tab);
			comb_cneg(p0, p1, p2, neg);
			comb_madd(E, F, G, H, X, Y, Z, T, p0, p1, p2);
		}
	}
}

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

#if defined(COMB_KERNEL)
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
