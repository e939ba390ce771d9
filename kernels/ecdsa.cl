/* ecdsa.cl: batched ECDSA over P-256, one work-item per signature.
 *
 * ecdsa_p256_sign (FIPS 186-5 §6.4.1): for the nonce k and the private
 * key d (secret; the host checks 1 ≤ d < n) and the hash's integer e,
 * R = k·G by the constant-time comb of p256_comb.h, r = x(R) mod n,
 * s = k^−1·(e + r·d) mod n. The kernel derives k itself from 32 random
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
 * digits of u1 and u2 index the tables and decide the additions.
 */
#include "p256_comb.h"
#include "p256_jacobian.h"
#include "radix16.h"
#include "hmac_drbg.h"

KERNEL void ecdsa_p256_verify(GLOBAL u32 *RESTRICT verdicts, GLOBAL const u32 *RESTRICT keys,
	GLOBAL const u32 *RESTRICT sigs, GLOBAL const u32 *RESTRICT hashes,
	GLOBAL const u32 *RESTRICT table, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 qx[8], qy[8], r[8], s[8], e[8];
	for (int j = 0; j < 8; j++) {
		qx[j] = LIMB(keys + i, j, count);
		qy[j] = LIMB(keys + i, 8 + j, count);
		r[j] = LIMB(sigs + i, j, count);
		s[j] = LIMB(sigs + i, 8 + j, count);
		e[j] = LIMB(hashes + i, j, count);
	}
	u32 X[8], Y[8], Z[8];
	p256_to_mont(X, qx);
	p256_to_mont(Y, qy);
	if (!p256_on_curve(X, Y)) {
		verdicts[i] = 0;
		return;
	}
	p256_set_one(Z);

	/* u1 = e·s^−1, u2 = r·s^−1 (mod n), plain */
	u32 w[8], u1[8], u2[8], t[8];
	p256n_to_mont(w, s);
	p256n_invert(w, w);
	p256n_to_mont(t, e);                /* reduces e mod n */
	p256n_mul(u1, t, w);
	p256n_from_mont(u1, u1);
	p256n_to_mont(t, r);
	p256n_mul(u2, t, w);
	p256n_from_mont(u2, u2);

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

	/* R = u1·G + u2·Q, Straus' interleaving over signed radix-16 digits,
	 * Jacobian; the exceptions of the additions (p256_jacobian.h) are
	 * handled by branches: the accumulator at infinity takes the entry,
	 * and a sum of equal points is a doubling */
	u32 d1[9], d2[9], RX[8], RY[8], RZ[8], PX[8], PY[8], PZ[8];
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
			const u32 off = (u32)((a < 0 ? -a : a) - 1) * 16u;
			for (int j = 0; j < 8; j++) {
				PX[j] = table[off + j];
				PY[j] = table[off + 8 + j];
			}
			if (a < 0)
				p256_neg(PY, PY);
			if (infinity) {
				for (int j = 0; j < 8; j++) {
					RX[j] = PX[j];
					RY[j] = PY[j];
				}
				p256_set_one(RZ);
			} else if (p256_jacobian_add_affine(RX, RY, RZ, RX, RY, RZ, PX, PY)) {
				p256_set_one(PZ);
				p256_jacobian_double(RX, RY, RZ, PX, PY, PZ);
			}
			infinity = p256_is_zero(RZ) != 0;
		}
		const int c = radix16_digit(d2, k);
		if (c != 0) {
			const int n = (c < 0 ? -c : c) - 1;
			for (int j = 0; j < 8; j++) {
				PX[j] = multiples[n][j];
				PY[j] = multiples[n][8 + j];
				PZ[j] = multiples[n][16 + j];
			}
			if (c < 0)
				p256_neg(PY, PY);
			if (infinity) {
				for (int j = 0; j < 8; j++) {
					RX[j] = PX[j];
					RY[j] = PY[j];
					RZ[j] = PZ[j];
				}
			} else if (p256_jacobian_add(RX, RY, RZ, RX, RY, RZ, PX, PY, PZ)) {
				p256_jacobian_double(RX, RY, RZ, PX, PY, PZ);
			}
			infinity = p256_is_zero(RZ) != 0;
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

/* sigs[i] = (r, s), 16 words limb-major; (0, 0) where the public key
 * (keys, x then y: crypto/ecdsa checks it before it signs) is not on the
 * curve, which the host then hands to crypto/ecdsa for its error.
 * secrets holds Z (derive_nonces 1) or k (0), then d. */
KERNEL void ecdsa_p256_sign(GLOBAL u32 *RESTRICT sigs, GLOBAL const u32 *RESTRICT keys,
	GLOBAL const u32 *RESTRICT secrets, GLOBAL const u32 *RESTRICT hashes,
	GLOBAL const u32 *RESTRICT comb, const u32 count, const u32 derive_nonces)
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
	const u32 onCurve = p256_on_curve(qx, qy);   /* public: may branch */
	if (!onCurve) {
		for (int j = 0; j < 16; j++)
			LIMB(sigs + i, j, count) = 0;
		return;
	}
	if (derive_nonces) {                         /* the same for the whole launch */
		u32 z[8];
		for (int j = 0; j < 8; j++)
			z[j] = k[j];
		hmac_drbg_p256_nonce(k, z, d, e);
	}
	/* R = k·G; x(R) = X/Z^2 */
	u32 X[8], Y[8], Z[8], x[8];
	p256_base_mult(X, Y, Z, k, comb);
	p256_invert(Z, Z);
	p256_sqr(Z, Z);
	p256_mul(x, X, Z);
	p256_from_mont(x, x);
	/* r = x mod n; s = k^−1·(e + r·d) mod n, in n's Montgomery form */
	u32 r[8], rm[8], t[8], u[8];
	p256n_to_mont(rm, x);               /* reduces x mod n */
	p256n_from_mont(r, rm);
	p256n_to_mont(t, d);
	p256n_mul(t, rm, t);                /* r·d */
	p256n_to_mont(u, e);                /* e mod n */
	p256n_add(t, t, u);
	p256n_to_mont(u, k);
	p256n_invert(u, u);                 /* k^−1 */
	p256n_mul(t, t, u);
	p256n_from_mont(t, t);
	for (int j = 0; j < 8; j++) {
		LIMB(sigs + i, j, count) = r[j];
		LIMB(sigs + i, 8 + j, count) = t[j];
	}
}
