/* steps_test.cl: the steps of the Ed25519 kernels one at a time, for
 * ed25519/steps_internal_test.go: a wrong signature or key on one backend
 * then says which step went wrong. */
#include "ed25519.cl"

/* out: h = SHA-512(seed) (16 words), then the clamped s (8), limb-major */
KERNEL void steps_expand(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT seeds, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 seed[NL], s[NL], h[16];
	for (int j = 0; j < NL; j++)
		seed[j] = LIMB(seeds + i, j, count);
	ed25519_expand(s, h, seed);
	for (int j = 0; j < 16; j++)
		LIMB(out + i, j, count) = h[j];
	for (int j = 0; j < NL; j++)
		LIMB(out + i, 16 + j, count) = s[j];
}

/* out: the encoding of [s]B by the comb (8 words) */
KERNEL void steps_base(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT scalars,
	GLOBAL const u32 *RESTRICT tab, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 s[NL], e[NL], f[NL], g[NL], h[NL], enc[NL];
	COMB_FE_T E[COMB_FE_N], F[COMB_FE_N], G[COMB_FE_N], H[COMB_FE_N];
	for (int j = 0; j < NL; j++)
		s[j] = LIMB(scalars + i, j, count);
	comb_sum(E, F, G, H, s, tab);
	ed_completed_out(e, f, g, h, E, F, G, H);
	ed_encode(enc, e, f, g, h);
	for (int j = 0; j < NL; j++)
		LIMB(out + i, j, count) = enc[j];
}

/* out: the encoding of the decoded point (8 words), and 1 where it
 * decoded */
KERNEL void steps_decode(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT points, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 a[NL], X[NL], Y[NL], Z[NL], T[NL], one[NL], enc[NL];
	for (int j = 0; j < NL; j++)
		a[j] = LIMB(points + i, j, count);
	const u32 ok = ed_decode(X, Y, Z, T, a);
	FE(set_small)(one, 1u);
	ed_encode(enc, X, Z, one, Y);       /* x = X/1, y = Y/Z */
	for (int j = 0; j < NL; j++)
		LIMB(out + i, j, count) = enc[j];
	LIMB(out + i, NL, count) = ok & 1u;
}

/* out: the comb's completed point (E, F, G, H) as canonical FE elements
 * (32 words): the test encodes it in Go, which tells a wrong sum from a
 * wrong encoding */
KERNEL void steps_completed(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT scalars,
	GLOBAL const u32 *RESTRICT tab, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 s[NL], e[NL], f[NL], g[NL], h[NL];
	COMB_FE_T E[COMB_FE_N], F[COMB_FE_N], G[COMB_FE_N], H[COMB_FE_N];
	for (int j = 0; j < NL; j++)
		s[j] = LIMB(scalars + i, j, count);
	comb_sum(E, F, G, H, s, tab);
	ed_completed_out(e, f, g, h, E, F, G, H);
	FE(canon)(e);
	FE(canon)(f);
	FE(canon)(g);
	FE(canon)(h);
	for (int j = 0; j < NL; j++) {
		LIMB(out + i, j, count) = e[j];
		LIMB(out + i, NL + j, count) = f[j];
		LIMB(out + i, 2 * NL + j, count) = g[j];
		LIMB(out + i, 3 * NL + j, count) = h[j];
	}
}

/* out: the field's operations on a and b (8 words each), canonical:
 * a·b, a², 1/a, a^((p − 5)/8), a + b, a − b (48 words) */
KERNEL void steps_field(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT in, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 a[NL], b[NL], r[6][NL];
	for (int j = 0; j < NL; j++) {
		a[j] = LIMB(in + i, j, count);
		b[j] = LIMB(in + i, NL + j, count);
	}
	FE(mul)(r[0], a, b);
	FE(sqr)(r[1], a);
	FE(invert)(r[2], a);
	ed_pow_p58(r[3], a);
	FE(add)(r[4], a, b);
	FE(sub)(r[5], a, b);
	for (int k = 0; k < 6; k++) {
		FE(canon)(r[k]);
		for (int j = 0; j < NL; j++)
			LIMB(out + i, k * NL + j, count) = r[k][j];
	}
}
