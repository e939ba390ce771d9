/* rsa.cl: the RSA kernels beside the exponentiations of modexp.cl.
 *
 * Build options (rsa/device.go sets them):
 *   MONT_W, MONT_VARIANT, MONT_FINAL_SUB, ...  as for modexp.h, for the CRT
 *                 halves (the primes p and q): width H
 *   RSA_FW        the arithmetic width F of the modulus n (its size class,
 *                 plus one word without final subtraction); MONT_WANT_<F>
 *   RSA_PRIVATE   defined: build rsa_split and rsa_combine (they need the
 *                 half width too)
 *   RSA_CHECK_APART  defined: rsa_combine writes the recombined values
 *                 unchecked and leaves the check to rsa_check (rsa_check.cl,
 *                 several work-items per element)
 *
 * Key material is a table of K keys, every field limb-major with stride K
 * (word j of key k at j·K + k), in this order:
 *   H-word fields: p, q, qinv (q^(−1) mod p), r2p (2^(64H) mod p)
 *   F-word fields: n, r2n (2^(64F) mod n)
 *   one-word fields: n0p (−p^(−1) mod 2^32), n0n (−n^(−1) mod 2^32), e
 * (rsa_public uses only the F-word and one-word fields of a table laid out
 * with H = 0.) */
#include "modexp.h"

#define F RSA_FW
#define FULL_MUL MX_CAT(mont_cios_, RSA_FW)
#define FULL_REDUCE_ONCE MX_CAT(mont_reduce_once_, RSA_FW)

#include "rsa_keys.h"

DEVICE_FN void full_load(u32 *r, GLOBAL const u32 *p, const u32 stride)
{
	for (int j = 0; j < F; j++) r[j] = LIMB(p, j, stride);
}

/* y = x^e mod n, canonical, by left-to-right square-and-multiply for a
 * public exponent e ≥ 1 (its bits steer the branches: they are public).
 * x below 2^(32F). Every product goes through one call site; op is what
 * the next product does: 0 enters Montgomery form (× r2n), 1 squares,
 * 2 multiplies by x·R, 3 leaves Montgomery form (× 1). */
DEVICE_FN void rsa_pow_e(u32 *y, const u32 *x, const u32 *n, const u32 n0, const u32 *r2n, const u32 e)
{
	u32 xm[F], b[F];
	int bit = 31;
	while (bit > 0 && !((e >> bit) & 1u)) bit--;
	for (int j = 0; j < F; j++) { y[j] = x[j]; b[j] = r2n[j]; }
	for (int op = 0;;) {
		if (op == 1) {
			for (int j = 0; j < F; j++) b[j] = y[j];
		} else if (op == 2) {
			for (int j = 0; j < F; j++) b[j] = xm[j];
		} else if (op == 3) {
			for (int j = 0; j < F; j++) b[j] = 0;
			b[0] = 1;
		}
		FULL_MUL(y, y, b, n, n0);
		if (op == 0)
			for (int j = 0; j < F; j++) xm[j] = y[j];
		if (op == 3)
			break;
		if (op == 1 && ((e >> bit) & 1u)) {
			op = 2;                 /* this bit is set: multiply after its squaring */
		} else {
			bit--;
			op = bit >= 0 ? 1 : 3;
		}
	}
	FULL_REDUCE_ONCE(y, n);
}

/* out[i] = x[i]^e mod n for the key kidx[i]: RSA verification and
 * encryption. x, out: F words per element (stride count). */
KERNEL void rsa_public(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT x,
	GLOBAL const u32 *RESTRICT keys, GLOBAL const u32 *RESTRICT kidx, const u32 K,
	const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	const u32 k = kidx[i];
	u32 n[F], r2n[F], xi[F], y[F];
	full_load(n, keys + KEY_N(0u, K) + k, K);
	full_load(r2n, keys + KEY_R2N(0u, K) + k, K);
	full_load(xi, x + i, count);
	rsa_pow_e(y, xi, n, keys[KEY_N0N(0u, K) + k], r2n, keys[KEY_E(0u, K) + k]);
	for (int j = 0; j < F; j++) LIMB(out + i, j, count) = y[j];
}

#ifdef RSA_PRIVATE
#define H MONT_W

/* The input is split into H-word chunks x = x1·R + x0 (R = 2^(32H)); a
 * modulus below 2^(32F) fits two of them (the host keeps F ≤ 2H). */
#if F > 2 * H
#error "rsa_split: the modulus must fit two half widths (RSA_FW <= 2 * MONT_W)"
#endif

/* r = x[j·H + w] for w < H (zero past word F − 1): chunk j of an F-word
 * input. */
DEVICE_FN void rsa_chunk(u32 *r, GLOBAL const u32 *x, const u32 stride, const int j)
{
	for (int w = 0; w < H; w++) r[w] = j * H + w < F ? LIMB(x, j * H + w, stride) : 0u;
}

/* r = (a + b) mod m for a, b < m, masked (no branch on the values). */
DEVICE_FN void rsa_addmod(u32 *r, const u32 *a, const u32 *b, const u32 *m)
{
	CARRY_DECL;
	u32 s[H], d[H], c, bw;
	ADD_CC(s[0], a[0], b[0]);
	for (int j = 1; j < H; j++) ADDC_CC(s[j], a[j], b[j]);
	ADDC(c, 0u, 0u);                        /* carry out of H words */
	SUB_CC(d[0], s[0], m[0]);
	for (int j = 1; j < H; j++) SUBC_CC(d[j], s[j], m[j]);
	SUBC(bw, 0u, 0u);                       /* all ones when s < m */
	const u32 keep = bw & (c - 1u);         /* s itself: no carry and s < m */
	for (int j = 0; j < H; j++) r[j] = (s[j] & keep) | (d[j] & ~keep);
}

/* The bases of the CRT halves, for the modexp kernel (modexp.cl): for an
 * element i < count with key k = kidx[i],
 *   base[i] = x[i] mod p_k,  base[count + i] = x[i] mod q_k  (canonical)
 *   midx[i] = k,             midx[count + i] = K + k
 * base: H words per half (stride 2·count); x: F words per element (stride
 * count), any value below 2^(32F). mods, ones, r2s (H words) and n0s are
 * the modexp kernel's table of the 2K primes (p_k at k, q_k at K + k;
 * stride 2K): m, R mod m, R² mod m and −m^(−1) mod 2^32, all canonical.
 * With x = x1·R + x0:
 *   x mod m = (x1·R² · R^(−1)) + (x0·(R mod m)·R^(−1))  (mod m),
 * two Montgomery products (each operand below R times one below m, so
 * each result is below 2m before its reduction) and a modular addition.
 * One work-item per half: 2·count of them. */
KERNEL void rsa_split(GLOBAL u32 *RESTRICT base, GLOBAL u32 *RESTRICT midx,
	GLOBAL const u32 *RESTRICT x, GLOBAL const u32 *RESTRICT mods,
	GLOBAL const u32 *RESTRICT ones, GLOBAL const u32 *RESTRICT r2s,
	GLOBAL const u32 *RESTRICT n0s, GLOBAL const u32 *RESTRICT kidx,
	const u32 K, const u32 count)
{
	const u32 i = GID();
	if (i >= 2u * count) return;
	const u32 h = i >= count ? 1u : 0u;     /* 0: the half mod p, 1: mod q */
	const u32 e = i - h * count;
	const u32 k = kidx[e] + h * K;
	const u32 K2 = 2u * K;
	const u32 n0 = n0s[k];
	u32 m[H], c[H], hi[H], lo[H];
	mx_load(m, mods + k, K2);
	rsa_chunk(hi, x + e, count, 1);
	mx_load(c, r2s + k, K2);
	MONT_MULW(hi, hi, c, m, n0);            /* x1·R mod m */
	MONT_REDUCE_ONCE(hi, m);
	rsa_chunk(lo, x + e, count, 0);
	mx_load(c, ones + k, K2);
	MONT_MULW(lo, lo, c, m, n0);            /* x0 mod m */
	MONT_REDUCE_ONCE(lo, m);
	rsa_addmod(hi, hi, lo, m);
	mx_store(base + i, 2u * count, hi);
	midx[i] = k;
}

/* Garner's recombination of the CRT halves and the fault check (zheng
 * 2014 §5.2):
 *   h = qinv·(mp − mq) mod p,  m = mq + h·q,  ok = (m^e mod n == x).
 * halves holds mp for elements [0, count) and mq for [count, 2·count)
 * (H words each, stride 2·count, canonical). x is the input (below n).
 * Where the check fails, out is zero and ok[i] = 0: the faulty value never
 * leaves the device. With RSA_CHECK_APART, out is m and ok is left to
 * rsa_check, which runs next. Tests build it with RSA_FAULT_INJECTION: it
 * then takes fault, an element whose mp is corrupted first (no element
 * has index 0xffffffff); production builds have no such argument. */
KERNEL void rsa_combine(GLOBAL u32 *RESTRICT out, GLOBAL u32 *RESTRICT ok,
	GLOBAL const u32 *RESTRICT halves, GLOBAL const u32 *RESTRICT x,
	GLOBAL const u32 *RESTRICT keys, GLOBAL const u32 *RESTRICT kidx, const u32 K,
	const u32 count
#ifdef RSA_FAULT_INJECTION
	, const u32 fault
#endif
	)
{
	const u32 i = GID();
	if (i >= count) return;
	const u32 k = kidx[i];
	const u32 hs = 2u * count;
	u32 p[H], r2p[H], mp[H], mq[H], t[H], d[H];
	mx_load(p, keys + KEY_P(H, K) + k, K);
	mx_load(r2p, keys + KEY_R2P(H, K) + k, K);
	mx_load(mp, halves + i, hs);
	mx_load(mq, halves + count + i, hs);
#ifdef RSA_FAULT_INJECTION
	if (i == fault) mp[0] ^= 1u;
#endif
	const u32 n0p = keys[KEY_N0P(H, K) + k];

	/* d ≡ (mp − mq)·R mod p, below 4p (no final subtraction) or p */
	MONT_MULW(t, mq, r2p, p, n0p);
	MONT_MULW(d, mp, r2p, p, n0p);
	{
		CARRY_DECL;
		u32 bw;
#if MONT_FINAL_SUB
		SUB_CC(d[0], d[0], t[0]);
		for (int j = 1; j < H; j++) SUBC_CC(d[j], d[j], t[j]);
		SUBC(bw, 0u, 0u);                   /* all ones on borrow: add p back */
		ADD_CC(d[0], d[0], p[0] & bw);
		for (int j = 1; j < H - 1; j++) ADDC_CC(d[j], d[j], p[j] & bw);
		ADDC(d[H - 1], d[H - 1], p[H - 1] & bw);
#else
		u32 p2[H];                          /* 2p − t, then + d: below 4p */
		p2[0] = p[0] << 1;
		for (int j = 1; j < H; j++) p2[j] = (p[j] << 1) | (p[j - 1] >> 31);
		SUB_CC(p2[0], p2[0], t[0]);
		for (int j = 1; j < H - 1; j++) SUBC_CC(p2[j], p2[j], t[j]);
		SUBC(p2[H - 1], p2[H - 1], t[H - 1]);
		ADD_CC(d[0], d[0], p2[0]);
		for (int j = 1; j < H - 1; j++) ADDC_CC(d[j], d[j], p2[j]);
		ADDC(d[H - 1], d[H - 1], p2[H - 1]);
		(void)bw;
#endif
	}
	mx_load(t, keys + KEY_QINV(H, K) + k, K);
	MONT_MULW(d, d, t, p, n0p);             /* h = (mp − mq)·qinv mod p */
	MONT_REDUCE_ONCE(d, p);                 /* canonical: h < p */

	/* m = mq + h·q over F words (the true value is below n) */
	u32 m[F];
	for (int j = 0; j < F; j++) m[j] = j < H ? mq[j] : 0u;
	mx_load(t, keys + KEY_Q(H, K) + k, K);
	for (int a = 0; a < H; a++) {
		u32 carry = 0;
		for (int b = 0; b < H && a + b < F; b++) {
			const u64 s = (u64)d[a] * t[b] + m[a + b] + carry;
			m[a + b] = (u32)s;
			carry = (u32)(s >> 32);
		}
		for (int j = a + H; j < F; j++) {
			const u64 s = (u64)m[j] + carry;
			m[j] = (u32)s;
			carry = (u32)(s >> 32);
		}
	}

#ifdef RSA_CHECK_APART
	for (int j = 0; j < F; j++) LIMB(out + i, j, count) = m[j];
	(void)ok; (void)x;
#else
	/* the check: m^e mod n must give back the input */
	u32 n[F], r2n[F], y[F];
	full_load(n, keys + KEY_N(H, K) + k, K);
	full_load(r2n, keys + KEY_R2N(H, K) + k, K);
	rsa_pow_e(y, m, n, keys[KEY_N0N(H, K) + k], r2n, keys[KEY_E(H, K) + k]);
	u32 diff = 0;
	for (int j = 0; j < F; j++) diff |= y[j] ^ LIMB(x + i, j, count);
	const u32 good = diff == 0u ? 1u : 0u;
	const u32 keep = 0u - good;
	for (int j = 0; j < F; j++) LIMB(out + i, j, count) = m[j] & keep;
	ok[i] = good;
#endif
}
#endif /* RSA_PRIVATE */
