/* ed25519_check.h: the fault check of ed25519_sign (ed25519.cl). Ed25519
 * is deterministic: one signature whose R came out wrong (a flipped bit in
 * the comb, a silent error of the hardware) beside a right signature of
 * the same message gives the secret scalar, a = (S1 − S2)/(k1 − k2) mod L
 * for the one nonce r and the two challenges k. So the kernel computes
 * the nonce's point a second time, by another computation, and releases
 * a signature only where the two agree.
 *
 * The second computation: R = [r]B as [r/c mod L](c·B), c =
 * kernels.FaultCheckMultiple, by the comb of comb.h over the table of c·B
 * (kernels.CombCheckTable: another buffer, other entries) instead of B's.
 * The scalar r/c has other digits than r, so the two combs select other
 * entries and pass through other points: a fault in one of them, or in
 * the encoding, cannot give the other's result. It costs about what the
 * first comb costs (and a scalar product), well below a verification,
 * whose double-scalar multiplication adds 252 doublings to as many
 * additions.
 *
 * The comparison takes no inversion: the released encoding enc is
 * y ‖ sign(x) with the canonical x, y of the first point (ed_encode_x),
 * and the second point is completed, (E, F, G, H) with x = E/G and
 * y = H/F, F and G nonzero. enc is that point's encoding exactly when y
 * and x are canonical, enc's top bit is x's low bit, y·F ≡ H and
 * x·G ≡ E (mod p).
 *
 * Included by ed25519.cl after comb.h, ed25519_point.h and scalar25519.h.
 * Constant time: the nonce only feeds the comb (masked table scans,
 * comb.h) and the scalar product (scalar25519.h); the verdict is a mask,
 * which the kernel applies to the signature's words, and no branch or
 * index depends on it or on the values compared.
 *
 * ED25519_CHECK_SCALAR is c^−1·2^256 mod L, so that the Montgomery product
 * by it (sc25519_montgomery_multiply, a·b·2^−256) is r/c;
 * ed25519/faultcheck_internal_test.go recomputes it from
 * kernels.FaultCheckMultiple.
 */
#pragma once

#define ED25519_CHECK_SCALAR { 0x17d6befdu, 0x2d05a7e3u, 0x9324585fu, 0xa58f1a90u, \
                               0xffffffffu, 0xffffffffu, 0xffffffffu, 0x0fffffffu }

/* all ones when a (8 words) is canonical, below p */
DEVICE_FN u32 ed_fe_is_canonical(const u32 *a)
{
	u32 t[NL], diff = 0;
	FE(copy)(t, a);
	FE(canon)(t);
	for (int w = 0; w < NL; w++)
		diff |= t[w] ^ a[w];
	return mask_if_zero(diff);
}

/* all ones when a ≡ 0 (mod p), a loosely reduced */
DEVICE_FN u32 ed_fe_is_zero(const u32 *a)
{
	u32 t[NL], any = 0;
	FE(copy)(t, a);
	FE(canon)(t);
	for (int w = 0; w < NL; w++)
		any |= t[w];
	return mask_if_zero(any);
}

/* All ones when enc, R as ed_encode_x wrote it with x its canonical x, is
 * the encoding of [r]B recomputed over the table check_tab of c·B (see
 * the top of this file), else zero; r is the nonce, below 2^256. */
DEVICE_FN u32 ed_check_nonce_point(const u32 *enc, const u32 *x, const u32 *r,
	GLOBAL const u32 *RESTRICT check_tab)
{
	const u32 inverse[NL] = ED25519_CHECK_SCALAR;
	u32 rc[NL];
	sc25519_montgomery_multiply(rc, r, inverse);    /* ≡ r/c (mod L), below 2L */
	COMB_FE_T E[COMB_FE_N], F[COMB_FE_N], G[COMB_FE_N], H[COMB_FE_N];
	comb_sum(E, F, G, H, rc, check_tab);
	u32 e[NL], f[NL], g[NL], h[NL], y[NL], t[NL];
	ed_completed_out(e, f, g, h, E, F, G, H);
	for (int w = 0; w < NL; w++)
		y[w] = enc[w];
	y[NL - 1] &= 0x7fffffffu;
	u32 ok = ed_fe_is_canonical(y) & ed_fe_is_canonical(x);
	ok &= mask_if_zero((enc[NL - 1] >> 31) ^ (x[0] & 1u));
	ok &= ~ed_fe_is_zero(f) & ~ed_fe_is_zero(g);
	FE(mul)(t, y, f);
	ok &= ed_fe_equal(t, h);
	FE(mul)(t, x, g);
	ok &= ed_fe_equal(t, e);
	return ok;
}
