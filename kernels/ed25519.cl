/* ed25519.cl: batched Ed25519 (RFC 8032), one work-item per element,
 * results byte for byte crypto/ed25519's:
 *   ed25519_public  public keys from seeds: [s]B with s the clamped first
 *                   half of SHA-512(seed)
 *   ed25519_sign    signatures R ‖ S: r = SHA-512(dom ‖ prefix ‖ M) mod L,
 *                   R = [r]B, k = SHA-512(dom ‖ R ‖ A ‖ M) mod L,
 *                   S = r + k·s mod L
 *   ed25519_verify  verdicts: [k](−A) + [S]B encodes to R exactly
 * Values of 32 bytes (seeds, public keys, R, S) travel as 8 little-endian
 * words, signatures and private keys as 16 (R, then S; the seed, then the
 * public key): element by element for signing and key generation (below),
 * limb-major (dialect.h's LIMB) for verification.
 * Messages lie in one byte buffer, element i's at offsets[i], lengths[i]
 * bytes long; dom is the call's RFC 8032 dom2 prefix (Ed25519ctx,
 * Ed25519ph; none for Ed25519: domLength 0).
 * A length of ED25519_SKIP marks an element the kernels leave alone (the
 * host judged or computes it: a malformed input, a message too long for
 * the kernels); ED25519_HASHED (verification) one whose k the host
 * computed and passes in ks.
 *
 * Constant time in the secrets (seeds, the scalar s, its prefix, the
 * nonce r): the hashes branch on lengths only, the comb (comb.h) scans
 * its table with masks, the inversion's exponent and the scalar
 * arithmetic (scalar25519.h) are fixed. Verification handles public data
 * only and is variable-time (ed25519_point.h).
 *
 * The fault check (ed25519_check.h): ed25519_sign computes R a second
 * time, over the table check_tab, and where the two disagree writes the
 * element's signature as zeros, which the host takes for the check's
 * verdict (no signature has R = 0: the point with y = 0 has order 4,
 * and [r]B has order 1 or L) and signs that element on the CPU.
 * Build options of the tests alone: ED25519_NO_FAULT_CHECK leaves the
 * check out (to measure its cost); ED25519_FAULT_INJECTION gives
 * ed25519_sign a last argument, faults, a word per element: its low half
 * is XORed into the low word of the nonce that the first computation of
 * R reads, its high half into the top half of R's last word once
 * encoded (a wrong point, a wrong encoding; 0: none). */
#include "fe25519.h"
#define FE(op) fe25519_##op
#define NL 8
/* ED25519_FP64 (GPUs with fast fp64): the point additions and doublings
 * on fe25519_fp64.h's doubles, as the X25519 ladder's steps; decoding,
 * encoding and the inversions stay on fe25519.h */
#if defined(ED25519_FP64)
#include "fe25519_fp64.h"
#define COMB_FE(op) fe51_##op
#define COMB_FE_T double
#define COMB_FE_N FE51_N
#define COMB_FE_IN(r, u) fe51_from_limbs(r, u)
#define COMB_FE_CARRY(a) fe51_carry(a)
#define ED_FE_OUT(r, a) fe51_to_limbs(r, a)
#else
#define ED_FE_OUT(r, a) FE(copy)(r, a)
#endif
#include "comb25519_gen.h"
#include "comb.h"
#include "ed25519_point.h"
#include "sha512.h"
#include "scalar25519.h"
#include "ed25519_check.h"

#define ED25519_SKIP 0xffffffffu
#define ED25519_HASHED 0xfffffffeu

/* h = SHA-512(seed); s = its first half clamped (RFC 8032 §5.1.5), the
 * second half (the nonce's prefix) left in h[8..15] */
DEVICE_FN void ed25519_expand(u32 *s, u32 *h, const u32 *seed)
{
	sha512_state st;
	sha512_init(&st);
	sha512_update_words(&st, seed, NL);
	sha512_final(&st, h);
	for (int w = 0; w < NL; w++)
		s[w] = h[w];
	s[0] &= ~7u;
	s[NL - 1] = (s[NL - 1] & 0x7fffffffu) | 0x40000000u;
}

/* r = SHA-512(dom ‖ a ‖ b ‖ message) mod L, a and b 8 words each (b
 * absent when null) */
DEVICE_FN void ed25519_hash_scalar(u32 *r, GLOBAL const u8 *RESTRICT dom, const u32 domLength,
	const u32 *a, const u32 *b, GLOBAL const u8 *RESTRICT message, const u32 length)
{
	sha512_state st;
	u32 h[16];
	sha512_init(&st);
	if (domLength > 0)
		sha512_update_global(&st, dom, domLength);
	sha512_update_words(&st, a, NL);
	if (b)
		sha512_update_words(&st, b, NL);
	sha512_update_global(&st, message, length);
	sha512_final(&st, h);
	sc25519_reduce(r, h);
}

/* Signing and key generation read their keys and write their results
 * element by element (element i's words at i·words .. i·words + words − 1:
 * its bytes as the host has them), not in rows: the host then moves each
 * element with one copy, where the rows cost it a transposition per batch
 * (most of its time in a large call). These loads and stores are few
 * beside the kernels' work. Verification keeps the rows. */

/* pubs: 8 words per element; seeds: 8 words per element */
KERNEL void ed25519_public(GLOBAL u32 *RESTRICT pubs, GLOBAL const u32 *RESTRICT seeds,
	GLOBAL const u32 *RESTRICT tab, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 seed[NL], s[NL], h[16], enc[NL];
	u32 e[NL], f[NL], g[NL], hh[NL];
	COMB_FE_T E[COMB_FE_N], F[COMB_FE_N], G[COMB_FE_N], H[COMB_FE_N];
	for (int j = 0; j < NL; j++)
		seed[j] = seeds[i * NL + j];
	ed25519_expand(s, h, seed);
	comb_sum(E, F, G, H, s, tab);
	ed_completed_out(e, f, g, hh, E, F, G, H);
	ed_encode(enc, e, f, g, hh);
	for (int j = 0; j < NL; j++)
		pubs[i * NL + j] = enc[j];
}

/* sigs: 16 words per element (R, then S; zeros where the fault check
 * failed); keys: 16 words per element (a private key's 64 bytes: the
 * seed, then the public key); tab and check_tab: the comb tables of B and
 * of c·B (kernels.CombTable, kernels.CombCheckTable) */
KERNEL void ed25519_sign(GLOBAL u32 *RESTRICT sigs, GLOBAL const u32 *RESTRICT keys,
	GLOBAL const u8 *RESTRICT messages,
	GLOBAL const u32 *RESTRICT offsets, GLOBAL const u32 *RESTRICT lengths,
	GLOBAL const u8 *RESTRICT dom, const u32 domLength,
	GLOBAL const u32 *RESTRICT tab, GLOBAL const u32 *RESTRICT check_tab, const u32 count
#if defined(ED25519_FAULT_INJECTION)
	, GLOBAL const u32 *RESTRICT faults
#endif
	)
{
	const u32 i = GID();
	if (i >= count) return;
	const u32 length = lengths[i];
	if (length == ED25519_SKIP) return;
	GLOBAL const u8 *message = messages + offsets[i];
	u32 seed[NL], a[NL], s[NL], h[16], r[NL], k[NL], R[NL], x[NL], S[NL];
	u32 e[NL], f[NL], g[NL], hh[NL];
	COMB_FE_T E[COMB_FE_N], F[COMB_FE_N], G[COMB_FE_N], H[COMB_FE_N];
	for (int j = 0; j < NL; j++) {
		seed[j] = keys[i * 2 * NL + j];
		a[j] = keys[i * 2 * NL + NL + j];
	}
	ed25519_expand(s, h, seed);
	ed25519_hash_scalar(r, dom, domLength, h + NL, 0, message, length);
#if defined(ED25519_FAULT_INJECTION)
	const u32 fault = faults[i];
	u32 faulty[NL];
	for (int j = 0; j < NL; j++)
		faulty[j] = r[j];
	faulty[0] ^= fault & 0xffffu;
	comb_sum(E, F, G, H, faulty, tab);
#else
	comb_sum(E, F, G, H, r, tab);
#endif
	ed_completed_out(e, f, g, hh, E, F, G, H);
	ed_encode_x(R, x, e, f, g, hh);
#if defined(ED25519_FAULT_INJECTION)
	R[NL - 1] ^= fault & 0xffff0000u;
#endif
	ed25519_hash_scalar(k, dom, domLength, R, a, message, length);
	sc25519_muladd(S, k, s, r);
#if defined(ED25519_NO_FAULT_CHECK)
	const u32 ok = 0xffffffffu;
#else
	const u32 ok = ed_check_nonce_point(R, x, r, check_tab);
#endif
	for (int j = 0; j < NL; j++) {
		sigs[i * 2 * NL + j] = R[j] & ok;
		sigs[i * 2 * NL + NL + j] = S[j] & ok;
	}
}

KERNEL void ed25519_verify(GLOBAL u32 *RESTRICT verdicts, GLOBAL const u32 *RESTRICT pubs,
	GLOBAL const u32 *RESTRICT sigs, GLOBAL const u32 *RESTRICT ks,
	GLOBAL const u8 *RESTRICT messages, GLOBAL const u32 *RESTRICT offsets,
	GLOBAL const u32 *RESTRICT lengths, GLOBAL const u8 *RESTRICT dom, const u32 domLength,
	GLOBAL const u32 *RESTRICT tab, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	const u32 length = lengths[i];
	if (length == ED25519_SKIP) {
		verdicts[i] = 0;
		return;
	}
	u32 a[NL], R[NL], S[NL], k[NL];
	for (int j = 0; j < NL; j++) {
		a[j] = LIMB(pubs + i, j, count);
		R[j] = LIMB(sigs + i, j, count);
		S[j] = LIMB(sigs + i, NL + j, count);
	}
	if (length == ED25519_HASHED) {
		for (int j = 0; j < NL; j++)
			k[j] = LIMB(ks + i, j, count);
	} else {
		ed25519_hash_scalar(k, dom, domLength, R, a, messages + offsets[i], length);
	}
	u32 X[NL], Y[NL], Z[NL], T[NL];
	if (!ed_decode(X, Y, Z, T, a)) {
		verdicts[i] = 0;
		return;
	}
	ed_fe_neg(X, X);                    /* −A */
	ed_fe_neg(T, T);
	u32 e[NL], f[NL], g[NL], h[NL], enc[NL];
	COMB_FE_T E[COMB_FE_N], F[COMB_FE_N], G[COMB_FE_N], H[COMB_FE_N];
	ed_double_scalar(E, F, G, H, k, X, Y, Z, T, S, tab);
	ed_completed_out(e, f, g, h, E, F, G, H);
	ed_encode(enc, e, f, g, h);
	u32 diff = 0;
	for (int j = 0; j < NL; j++)
		diff |= enc[j] ^ R[j];
	verdicts[i] = diff == 0;
}
