/* ecdsa.cl: batched ECDSA over P-256, one work-item per signature (per
 * group of signatures for the last step of signing).
 *
 * Signing (FIPS 186-5 §6.4.1), ecdsa_p256_sign_point then
 * ecdsa_p256_sign_finish (below): for the nonce k and the private key d
 * (secret; the host checks 1 ≤ d < n) and the hash's integer e,
 * R = k·G by the constant-time comb of p256_comb.h, r = x(R) mod n,
 * s = k^−1·(e + r·d) mod n, the inversions shared by a group of
 * signatures. The kernel derives k itself from 32 random
 * bytes Z, d and e as crypto/ecdsa does (hedged, hmac_drbg.h), so the host
 * only reads Z; or, for RFC 6979's deterministic nonces (the self-test's
 * known answers, the Server's Signer with a nil reader), the host derives
 * k (ecdsa/nonce.go) and hands it over in Z's place. Constant time in k,
 * d and Z: masked table scans, Fermat inversions with a fixed exponent,
 * Montgomery arithmetic without data-dependent branches, and a nonce
 * derivation whose only branch, its candidate loop, reveals nothing about
 * k (hmac_drbg.h). The host refuses r = 0 or s = 0 (probability about
 * 2^−256).
 *
 * The fault check of deterministic signatures, ecdsa_p256_sign_check
 * (below), runs after ecdsa_p256_sign_finish where the host gave the
 * nonces: it computes R a second time by other means and releases a
 * signature only where both agree, since one signature whose R came out
 * wrong beside a right one with the same nonce gives the private key.
 *
 * ecdsa_p256_verify (FIPS 186-5 §6.4.2): verdicts exactly crypto/ecdsa's:
 * for the
 * public key Q = (x, y), the signature (r, s) and the hash's integer e,
 *   w = s^−1, u1 = e·w, u2 = r·w (mod n), R = u1·G + u2·Q,
 * valid when R is not the point at infinity and R's x ≡ r (mod n).
 * The host has parsed the signature and checked 1 ≤ r, s < n and x, y < p
 * (and truncated the hash); the kernel checks that Q is on the curve.
 *
 * Values travel as 8 little-endian words, limb-major (dialect.h's LIMB),
 * in plain form; the kernel moves them into Montgomery form (p256.h).
 * Verification handles public values only and is variable-time: the
 * digits of u1 and u2 index the tables and decide the additions, and the
 * exceptions of the Jacobian additions are branches. (A width-5 NAF for
 * u2 and a radix-256 comb for u1·G, with fewer additions, run slower.)
 */
#include "p256_comb.h"
#include "p256_jacobian.h"
#include "radix16.h"
#include "hmac_drbg.h"

/* v = row `row` of element i (8 words) of a limb-major batch */
DEVICE_FN void ecdsa_load(u32 *v, GLOBAL const u32 *batch, const u32 row, const u32 i, const u32 count)
{
	for (int j = 0; j < 8; j++)
		v[j] = LIMB(batch + i, row + j, count);
}

/* R += (PX : PY : PZ) for verification (public values), the exceptions of
 * the Jacobian addition handled by branches: the accumulator at infinity
 * takes the point, and a sum of equal points is a doubling; *infinity
 * says whether R is the point at infinity, before and after */
DEVICE_FN void ecdsa_accumulate(u32 *RX, u32 *RY, u32 *RZ, bool *infinity,
	const u32 *PX, const u32 *PY, const u32 *PZ)
{
	if (*infinity) {
		for (int j = 0; j < 8; j++) {
			RX[j] = PX[j];
			RY[j] = PY[j];
			RZ[j] = PZ[j];
		}
	} else if (p256_jacobian_add(RX, RY, RZ, RX, RY, RZ, PX, PY, PZ)) {
		p256_jacobian_double(RX, RY, RZ, PX, PY, PZ);
	}
	*infinity = p256_is_zero(RZ) != 0;
}

/* R += (x, y), an affine point: ecdsa_accumulate with the mixed addition */
DEVICE_FN void ecdsa_accumulate_affine(u32 *RX, u32 *RY, u32 *RZ, bool *infinity,
	const u32 *x, const u32 *y)
{
	if (*infinity) {
		for (int j = 0; j < 8; j++) {
			RX[j] = x[j];
			RY[j] = y[j];
		}
		p256_set_one(RZ);
	} else if (p256_jacobian_add_affine(RX, RY, RZ, RX, RY, RZ, x, y)) {
		u32 one[8];
		p256_set_one(one);
		p256_jacobian_double(RX, RY, RZ, x, y, one);
	}
	*infinity = p256_is_zero(RZ) != 0;
}

/* scalars: 16 rows of count words, limb-major: u1 = e·s^−1 and
 * u2 = r·s^−1 (mod n), plain, for the signatures (r, s) (sigs) and the
 * hashes' integers e, one work-item per group of signatures that share
 * one inversion of their s (groups = G, the elements g, g + G, ... as in
 * ecdsa_p256_sign_finish; scalars holds the prefix products and each s in
 * Montgomery form until the backward pass). An s of 0 (an element the
 * host does not verify here, sent as zeros, whose verdict it discards)
 * counts as 1, so that its group's other inverses stay right. Public
 * values: no secret. */
KERNEL void ecdsa_p256_verify_scalars(GLOBAL u32 *RESTRICT scalars, GLOBAL const u32 *RESTRICT sigs,
	GLOBAL const u32 *RESTRICT hashes, const u32 count, const u32 groups)
{
	const u32 g = GID();
	if (g >= groups || g >= count) return;
	u32 acc[8], s[8], w[8], t[8], u[8], one[8];
	p256n_set_one(one);

	ecdsa_load(acc, sigs, 8, g, count);
	p256n_to_mont(acc, acc);
	p256n_cmov(acc, one, p256n_is_zero(acc));
	for (int j = 0; j < 8; j++)
		LIMB(scalars + g, j, count) = acc[j];
	u32 last = g;
	for (u32 i = g + groups; i < count; i += groups) {
		ecdsa_load(s, sigs, 8, i, count);
		p256n_to_mont(s, s);
		p256n_cmov(s, one, p256n_is_zero(s));
		p256n_mul(acc, acc, s);
		for (int j = 0; j < 8; j++) {
			LIMB(scalars + i, j, count) = acc[j];
			LIMB(scalars + i, 8 + j, count) = s[j];     /* for the backward pass */
		}
		last = i;
	}
	p256n_invert(acc, acc);             /* 1 / (s_0 ⋯ s_last) */
	for (u32 i = last;; i -= groups) {
		if (i != g) {
			ecdsa_load(w, scalars, 0, i - groups, count);
			p256n_mul(w, w, acc);       /* 1 / s_i */
			ecdsa_load(s, scalars, 8, i, count);
			p256n_mul(acc, acc, s);
		} else {
			for (int j = 0; j < 8; j++)
				w[j] = acc[j];
		}
		ecdsa_load(t, hashes, 0, i, count);
		p256n_to_mont(t, t);            /* reduces e mod n */
		p256n_mul(u, t, w);
		p256n_from_mont(u, u);
		ecdsa_load(t, sigs, 0, i, count);
		p256n_to_mont(t, t);
		p256n_mul(t, t, w);
		p256n_from_mont(t, t);
		for (int j = 0; j < 8; j++) {
			LIMB(scalars + i, j, count) = u[j];
			LIMB(scalars + i, 8 + j, count) = t[j];
		}
		if (i == g)
			break;
	}
}

/* Bounded to 4 work-groups of 128 (ecdsa.WorkGroup) per multiprocessor on
 * CUDA, which caps it at 128 registers (unbounded it takes 176: 2 groups):
 * the extra warps hide more latency than the spills cost. ECDH's scalar
 * multiplication, bounded alike, runs slower: it stays unbounded. */
KERNEL KERNEL_BOUNDS(128, 4) void ecdsa_p256_verify(GLOBAL u32 *RESTRICT verdicts, GLOBAL const u32 *RESTRICT keys,
	GLOBAL const u32 *RESTRICT sigs, GLOBAL const u32 *RESTRICT scalars,
	GLOBAL const u32 *RESTRICT comb, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 qx[8], qy[8], r[8], u1[8], u2[8];
	for (int j = 0; j < 8; j++) {
		qx[j] = LIMB(keys + i, j, count);
		qy[j] = LIMB(keys + i, 8 + j, count);
		r[j] = LIMB(sigs + i, j, count);
		u1[j] = LIMB(scalars + i, j, count);
		u2[j] = LIMB(scalars + i, 8 + j, count);
	}
	u32 X[8], Y[8], Z[8];
	p256_to_mont(X, qx);
	p256_to_mont(Y, qy);
	if (!p256_on_curve(X, Y)) {
		verdicts[i] = 0;
		return;
	}
	p256_set_one(Z);

	/* multiples[n] = (n + 1)·Q, n = 0..7, Jacobian: distinct and finite
	 * (n is a prime above 8), so the additions meet no exception */
	u32 multiples[8][24];
	for (int j = 0; j < 8; j++) {
		multiples[0][j] = X[j];
		multiples[0][8 + j] = Y[j];
		multiples[0][16 + j] = Z[j];
	}
	p256_jacobian_double(multiples[1], multiples[1] + 8, multiples[1] + 16, X, Y, Z);
	for (int n = 2; n < 8; n++)
		p256_jacobian_add(multiples[n], multiples[n] + 8, multiples[n] + 16,
			multiples[n - 1], multiples[n - 1] + 8, multiples[n - 1] + 16, X, Y, Z);

	/* R = u1·G + u2·Q, Straus' interleaving over signed radix-16 digits
	 * (the entries 1·G … 8·G are the comb's first row) */
	u32 d1[9], d2[9], RX[8], RY[8], RZ[8], PX[8], PY[8];
	radix16_recode(d1, u1);
	radix16_recode(d2, u2);
	for (int j = 0; j < 8; j++)
		RX[j] = RY[j] = RZ[j] = 0;      /* the point at infinity */
	bool infinity = true;
	for (int k = 64; k >= 0; k--) {
		if (k != 64 && !infinity)
			for (int dbl = 0; dbl < 4; dbl++)
				p256_jacobian_double(RX, RY, RZ, RX, RY, RZ);
		const int a = radix16_digit(d1, k);
		if (a != 0) {
			const u32 off = (u32)((a < 0 ? -a : a) - 1) * P256_COMB_ENTRY_WORDS;
			for (int j = 0; j < 8; j++) {
				PX[j] = comb[off + j];
				PY[j] = comb[off + 8 + j];
			}
			if (a < 0)
				p256_neg(PY, PY);
			ecdsa_accumulate_affine(RX, RY, RZ, &infinity, PX, PY);
		}
		const int c = radix16_digit(d2, k);
		if (c != 0) {
			const int n = (c < 0 ? -c : c) - 1;
			for (int j = 0; j < 8; j++)
				PY[j] = multiples[n][8 + j];
			if (c < 0)
				p256_neg(PY, PY);
			ecdsa_accumulate(RX, RY, RZ, &infinity, multiples[n], PY, multiples[n] + 16);
		}
	}

	/* x(R) = RX/RZ^2 ≡ r (mod n): x(R) < p < 2n, so x(R) is r or r + n;
	 * compared projectively, RX = x·RZ^2, with no inversion */
	u32 valid = ~p256_is_zero(RZ);
	u32 rz[8], cand[8], zz[8];
	p256_sqr(zz, RZ);
	p256_to_mont(cand, r);              /* r < n < p */
	p256_mul(rz, cand, zz);
	u32 hit = p256_equal(rz, RX);
	/* r + n, when below p */
	const u32 order[8] = P256_ORDER;
	const u32 field[8] = P256_FIELD_MODULUS;
	u32 rn[8];
	u64 carry = 0;
	for (int j = 0; j < 8; j++) {
		carry += (u64)r[j] + order[j];
		rn[j] = (u32)carry;
		carry >>= 32;
	}
	u32 below = carry == 0;
	for (int j = 7; j >= 0 && below; j--) {
		if (rn[j] != field[j]) {
			below = rn[j] < field[j];
			break;
		}
		if (j == 0)
			below = 0;                  /* r + n == p */
	}
	if (below) {
		p256_to_mont(cand, rn);
		p256_mul(rz, cand, zz);
		hit |= p256_equal(rz, RX);
	}
	verdicts[i] = (valid & hit) & 1u;
}

/* Signing runs as two kernels, so that the two inversions of a signature
 * (Z of R = k·G modulo p, and k modulo n) are shared by a group of
 * signatures, Montgomery's simultaneous inversion as batch_invert.h does
 * for X25519: ecdsa_p256_sign_point, one work-item per signature, derives
 * k and computes R in Jacobian coordinates; ecdsa_p256_sign_finish, one
 * work-item per group, inverts the group's Z and k with one inversion of
 * each product and finishes r and s. A group of K signatures costs 2·4K
 * products and 2 inversions instead of 2K inversions.
 *
 * points: 24 rows of count words, limb-major, secret (R's projective
 * coordinates reveal bits of k; the host zeroes the buffer): X, Z of
 * R = k·G (Montgomery form), then k in n's Montgomery form (the finishing
 * kernel's products take it so, once per pass); all zeros where the public key
 * (keys, x then y: crypto/ecdsa checks it before it signs) is not on the
 * curve. secrets holds Z (derive_nonces 1) or k (0), then d.
 * ECDSA_FAULT_INJECTION (a build option of the tests alone) adds a last
 * argument, faults, a word per element XORed into the low word of the
 * nonce that the base multiplication reads (0: none), so that R is
 * another point than k·G while s is computed with k. */
KERNEL void ecdsa_p256_sign_point(GLOBAL u32 *RESTRICT points, GLOBAL const u32 *RESTRICT keys,
	GLOBAL const u32 *RESTRICT secrets, GLOBAL const u32 *RESTRICT hashes,
	GLOBAL const u32 *RESTRICT comb, const u32 count, const u32 derive_nonces
#if defined(ECDSA_FAULT_INJECTION)
	, GLOBAL const u32 *RESTRICT faults
#endif
	)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 k[8], d[8], e[8], qx[8], qy[8];
	for (int j = 0; j < 8; j++) {
		k[j] = LIMB(secrets + i, j, count);     /* Z, or k itself */
		d[j] = LIMB(secrets + i, 8 + j, count);
		e[j] = LIMB(hashes + i, j, count);
		qx[j] = LIMB(keys + i, j, count);
		qy[j] = LIMB(keys + i, 8 + j, count);
	}
	p256_to_mont(qx, qx);
	p256_to_mont(qy, qy);
	if (!p256_on_curve(qx, qy)) {                /* public: may branch */
		for (int j = 0; j < 24; j++)
			LIMB(points + i, j, count) = 0;
		return;
	}
	if (derive_nonces) {                         /* the same for the whole launch */
		u32 z[8];
		for (int j = 0; j < 8; j++)
			z[j] = k[j];
		hmac_drbg_p256_nonce(k, z, d, e);
	}
	u32 X[8], Y[8], Z[8];
#if defined(ECDSA_FAULT_INJECTION)
	u32 faulty[8];
	for (int j = 0; j < 8; j++)
		faulty[j] = k[j];
	faulty[0] ^= faults[i];
	p256_base_mult(X, Y, Z, faulty, comb);
#else
	p256_base_mult(X, Y, Z, k, comb);
#endif
	p256n_to_mont(k, k);
	for (int j = 0; j < 8; j++) {
		LIMB(points + i, j, count) = X[j];
		LIMB(points + i, 8 + j, count) = Z[j];
		LIMB(points + i, 16 + j, count) = k[j];
	}
}

/* Z_i (Montgomery, mod p) and k_i (Montgomery, mod n) of element i,
 * each 0 replaced by 1 (Montgomery's) so that a signature the kernel does
 * not make (a key off the curve) leaves its group's products intact;
 * returns all ones for such an element */
DEVICE_FN u32 ecdsa_sign_denominators(u32 *z, u32 *k, GLOBAL const u32 *points, const u32 i,
	const u32 count)
{
	u32 one[8];
	ecdsa_load(z, points, 8, i, count);
	ecdsa_load(k, points, 16, i, count);
	const u32 absent = p256_is_zero(z) | p256n_is_zero(k);
	p256_set_one(one);
	p256_cmov(z, one, absent);
	p256n_set_one(one);
	p256n_cmov(k, one, absent);
	return absent;
}

/* (r, s) of element i from X (R's, Montgomery mod p), 1/Z (Montgomery mod
 * p) and 1/k (Montgomery mod n): x(R) = X/Z^2, r = x mod n,
 * s = k^−1·(e + r·d) mod n; zeros where absent */
DEVICE_FN void ecdsa_sign_store(GLOBAL u32 *sigs, GLOBAL const u32 *points,
	GLOBAL const u32 *secrets, GLOBAL const u32 *hashes, const u32 i, const u32 count,
	const u32 *zinv, const u32 *kinv, const u32 absent)
{
	u32 x[8], t[8], r[8], rm[8], u[8];
	ecdsa_load(x, points, 0, i, count);
	p256_sqr(t, zinv);
	p256_mul(x, x, t);
	p256_from_mont(x, x);
	p256n_to_mont(rm, x);               /* reduces x mod n */
	p256n_from_mont(r, rm);
	ecdsa_load(t, secrets, 8, i, count);         /* d */
	p256n_to_mont(t, t);
	p256n_mul(t, rm, t);                /* r·d */
	ecdsa_load(u, hashes, 0, i, count);          /* e */
	p256n_to_mont(u, u);                /* e mod n */
	p256n_add(t, t, u);
	p256n_mul(t, t, kinv);
	p256n_from_mont(t, t);
	for (int j = 0; j < 8; j++) {
		LIMB(sigs + i, j, count) = r[j] & ~absent;
		LIMB(sigs + i, 8 + j, count) = t[j] & ~absent;
	}
}

/* sigs[i] = (r, s), 16 words limb-major; (0, 0) where the key was off the
 * curve (ecdsa_p256_sign_point's zeros), which the host then hands to
 * crypto/ecdsa for its error. One work-item per group: with G = groups
 * (the host's ceil(count / K)), work-item g takes the elements g, g + G,
 * g + 2G, ... below count, as batch_invert.h does (coalesced loads; the
 * groups depend on count and G only). sigs holds the prefix products
 * (Π Z mod p in the r rows, Π k mod n in the s rows) until the backward
 * pass writes each element's signature over them.
 *
 * Constant time: loop bounds and indices depend on count, G and the
 * work-item only; k, Z and d feed arithmetic and masks only. */
KERNEL void ecdsa_p256_sign_finish(GLOBAL u32 *RESTRICT sigs, GLOBAL const u32 *RESTRICT points,
	GLOBAL const u32 *RESTRICT secrets, GLOBAL const u32 *RESTRICT hashes,
	const u32 count, const u32 groups)
{
	const u32 g = GID();
	if (g >= groups || g >= count) return;
	u32 zacc[8], kacc[8], z[8], k[8], zinv[8], kinv[8];

	/* forward: the products of the group's Z and k up to each element */
	u32 absent = ecdsa_sign_denominators(zacc, kacc, points, g, count);
	for (int j = 0; j < 8; j++) {
		LIMB(sigs + g, j, count) = zacc[j];
		LIMB(sigs + g, 8 + j, count) = kacc[j];
	}
	u32 last = g;
	for (u32 i = g + groups; i < count; i += groups) {
		(void)ecdsa_sign_denominators(z, k, points, i, count);
		p256_mul(zacc, zacc, z);
		p256n_mul(kacc, kacc, k);
		for (int j = 0; j < 8; j++) {
			LIMB(sigs + i, j, count) = zacc[j];
			LIMB(sigs + i, 8 + j, count) = kacc[j];
		}
		last = i;
	}

	p256_invert(zacc, zacc);            /* 1 / (Z_0 ⋯ Z_last) */
	p256n_invert(kacc, kacc);           /* 1 / (k_0 ⋯ k_last) */

	/* backward: zacc, kacc = the inverses of the products up to element i
	 * on entry to step i */
	for (u32 i = last; i != g; i -= groups) {
		ecdsa_load(zinv, sigs, 0, i - groups, count);
		ecdsa_load(kinv, sigs, 8, i - groups, count);
		p256_mul(zinv, zinv, zacc);     /* 1 / Z_i */
		p256n_mul(kinv, kinv, kacc);    /* 1 / k_i */
		absent = ecdsa_sign_denominators(z, k, points, i, count);
		p256_mul(zacc, zacc, z);
		p256n_mul(kacc, kacc, k);
		ecdsa_sign_store(sigs, points, secrets, hashes, i, count, zinv, kinv, absent);
	}
	absent = ecdsa_sign_denominators(z, k, points, g, count);
	ecdsa_sign_store(sigs, points, secrets, hashes, g, count, zacc, kacc, absent);
}

/* P256_CHECK_SCALAR is c^−1·R mod n, c = kernels.FaultCheckMultiple and
 * R = 2^256, so that the Montgomery product of a plain k by it is k/c mod
 * n (ecdsa/sign_check_internal_test.go recomputes it). */
#define P256_CHECK_SCALAR { 0x013448e5u, 0xaec211bfu, 0xc84d75d3u, 0x165dac70u, \
                            0x00000000u, 0x00000000u, 0x55555555u, 0x00000000u }

/* all ones when a < b (8 little-endian words each), by the borrow of
 * a − b; no branch */
DEVICE_FN u32 ecdsa_below(const u32 *a, const u32 *b)
{
	u32 borrow = 0;
	for (int j = 0; j < 8; j++) {
		const u64 d = (u64)a[j] - b[j] - borrow;
		borrow = (u32)(d >> 32) & 1u;
	}
	return 0u - borrow;
}

/* The fault check of deterministic signatures (RFC 6979: secrets holds k
 * itself, the host's, then d), one work-item per signature, after
 * ecdsa_p256_sign_finish has written sigs. A signature (r, s) is released
 * where
 *   r ≡ x(R) (mod n) for R = k·G computed a second time: as (k/c)·(c·G)
 *     by p256_base_mult over check_comb, the comb's table of c·G
 *     (kernels.P256CheckTable; c = kernels.FaultCheckMultiple), whose
 *     digits, entries and partial sums are all other than signing's;
 *     compared projectively, X = x·Z^2 for x = r or r + n (below p), no
 *     inversion; R not the point at infinity;
 *   s·k ≡ e + r·d (mod n), in the products' Montgomery scaling
 *     (mont(s, k) = mont(r, d) + e·R^−1): s is the one that k, d and e
 *     give with that r;
 *   r, s < n;
 * which is what the signing kernels compute when nothing faults. Where
 * it fails, the kernel writes (0, 1) for the element, which the host
 * takes for the check's verdict and signs on the CPU: the signing kernels
 * write r = 0 only for the keys off the curve, as (0, 0), which passes as
 * it is (and for an x(R) ≡ 0, probability about 2^−256, which the host
 * signs on the CPU as well). It costs about what ecdsa_p256_sign_point
 * costs with host nonces: one more comb and a few products, well below a
 * verification.
 *
 * Constant time: k and d feed the comb's masked scans and Montgomery
 * arithmetic only; every comparison is a mask, applied to the stored
 * words, and no branch or index depends on the values compared. k, d and
 * e are read from the same buffers as signing read them: the check covers
 * the computation, not those inputs. */
KERNEL void ecdsa_p256_sign_check(GLOBAL u32 *RESTRICT sigs, GLOBAL const u32 *RESTRICT secrets,
	GLOBAL const u32 *RESTRICT hashes, GLOBAL const u32 *RESTRICT check_comb, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	const u32 inverse[8] = P256_CHECK_SCALAR;
	const u32 order[8] = P256_ORDER;
	const u32 field[8] = P256_FIELD_MODULUS;
	u32 k[8], r[8], s[8], kc[8];
	ecdsa_load(k, secrets, 0, i, count);
	ecdsa_load(r, sigs, 0, i, count);
	ecdsa_load(s, sigs, 8, i, count);
	p256n_mul(kc, k, inverse);          /* k/c mod n */
	u32 X[8], Y[8], Z[8];
	p256_base_mult(X, Y, Z, kc, check_comb);

	/* x(R) ≡ r (mod n): x(R) < p < 2n is r or r + n */
	u32 zz[8], cand[8], t[8], rn[8];
	p256_sqr(zz, Z);
	p256_to_mont(cand, r);
	p256_mul(t, cand, zz);
	u32 hit = p256_equal(t, X);
	u64 carry = 0;
	for (int j = 0; j < 8; j++) {
		carry += (u64)r[j] + order[j];
		rn[j] = (u32)carry;
		carry >>= 32;
	}
	const u32 rnBelow = mask_if_zero((u32)carry) & ecdsa_below(rn, field);
	p256_to_mont(cand, rn);
	p256_mul(t, cand, zz);
	hit |= p256_equal(t, X) & rnBelow;
	u32 ok = hit & ~p256_is_zero(Z) & ecdsa_below(r, order) & ecdsa_below(s, order);

	/* s·k ≡ e + r·d (mod n), each side times R^−1 */
	u32 d[8], e[8], lhs[8], rhs[8];
	ecdsa_load(d, secrets, 8, i, count);
	ecdsa_load(e, hashes, 0, i, count);
	p256n_mul(lhs, s, k);
	p256n_mul(rhs, r, d);
	p256n_from_mont(e, e);
	p256n_add(rhs, rhs, e);
	ok &= p256n_equal(lhs, rhs);

	const u32 pass = ok | (p256_is_zero(r) & p256_is_zero(s));
	for (int j = 0; j < 8; j++) {
		LIMB(sigs + i, j, count) = r[j] & pass;
		LIMB(sigs + i, 8 + j, count) = (s[j] & pass) | ((j == 0 ? 1u : 0u) & ~pass);
	}
}
