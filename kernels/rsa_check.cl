/* rsa_check.cl: the fault check of RSA private results, m^e mod n == x
 * (zheng 2014 §5.2), with LANES work-items per element: the multi-thread
 * Montgomery product of modexp_mt.h at the modulus width. It runs after
 * rsa_combine built with RSA_CHECK_APART (rsa.cl) has written the
 * recombined values m into out; where the check fails it zeroes the
 * element's out and clears ok[i], so a faulty value never leaves the
 * device. One work-item per element spills its registers at 4096 bits,
 * where this check was most of a lone operation's time.
 *
 * Build options (rsa/device.go sets them):
 *   MT_N, LANES, LANES_WG  as for modexp_mt.h, MT_N the key table's modulus
 *                 width F (its r2n is 2^(64·F) mod n); WINDOW unused
 *   RSA_HW        the half width H of the key table's private fields (the
 *                 offsets of the fields after them, rsa_keys.h)
 *
 * e is public. Every element of a launch runs the same sequence of
 * products (lanes.h: every lane of a work-group makes the same exchanges),
 * the host's schedule: with one exponent for all elements (e_all nonzero,
 * ebits its length), a squaring per bit below the top and a product where
 * a bit is set; with several (e_all zero, ebits the longest), per bit a
 * squaring and a product by x·R or by R, picked by mask.
 */
#include "modexp_mt.h"

#define F MT_N
#define H RSA_HW
#include "rsa_keys.h"

KERNEL void rsa_check(GLOBAL u32 *RESTRICT out, GLOBAL u32 *RESTRICT ok,
	GLOBAL const u32 *RESTRICT x, GLOBAL const u32 *RESTRICT keys,
	GLOBAL const u32 *RESTRICT kidx, const u32 K, const u32 count,
	const u32 e_all, const u32 ebits, const u32 sched_lo, const u32 sched_hi,
	const u32 nsched, LOCAL_ARG(u32, scratch))
{
	LOCAL_BIND(u32, scratch);
	const lanes_t L = lanes_init(scratch);
	u32 valid;
	const u32 i = lanes_element(count, &valid);
	const u32 k = kidx[i];
	const u32 n0 = keys[KEY_N0N(H, K) + k];
	u32 n[MT_S], r2[MT_S], m[MT_S], xm[MT_S], one[MT_S], y[MT_S], a[MT_S], b[MT_S], unit[MT_S];
	mt_load(L, n, keys + KEY_N(H, K) + k, K);
	mt_load(L, r2, keys + KEY_R2N(H, K) + k, K);
	mt_load(L, m, out + i, count);
	UNROLL_OUTER
	for (int q = 0; q < MT_S; q++) {
		unit[q] = 0;
		xm[q] = 0;
		one[q] = 0;
	}
	unit[0] = L.lane == 0 ? 1u : 0u;
	const u32 e = e_all ? e_all : keys[KEY_E(H, K) + k];
	/* The products in order, through one call site in a counted loop
	 * (small code; on the portable path every exchange is a barrier, which
	 * PoCL wants in plain loops): step 0 takes m into Montgomery form
	 * (x·R, kept in xm), step 1 makes R (the form's one), the last leaves
	 * the form, and in between step 2 + j squares where bit j of the
	 * schedule (sched_lo, sched_hi) is clear and multiplies where it is
	 * set: by x·R with one exponent, with several by x·R or R as the bit
	 * ebits − 1 − j/2 of e picks (the host's schedule then alternates). */
	const u32 last = 3u + nsched - 1u;
	for (u32 t = 0; t <= last; t++) {
		const u32 j = t - 2u;               /* the schedule's step, for 2 <= t < last */
		const u32 multiply = t >= 2u && t < last ? ((j < 32u ? sched_lo >> j : sched_hi >> (j - 32u)) & 1u) : 0u;
		const int bit = (int)ebits - 1 - (int)(j >> 1);
		const u32 mask = e_all ? 0xffffffffu : 0u - ((e >> (bit & 31)) & 1u);
		UNROLL_OUTER
		for (int q = 0; q < MT_S; q++) {
			const u32 start = e_all ? xm[q] : one[q];
			a[q] = t == 0u ? m[q] : t == 1u ? r2[q] : t == 2u ? start : y[q];
			b[q] = t == 0u ? r2[q] : t == 1u || t == last ? unit[q] : multiply ? (xm[q] & mask) | (one[q] & ~mask) : a[q];
		}
		mt_mul(L, y, a, b, n, n0);
		UNROLL_OUTER
		for (int q = 0; q < MT_S; q++) {
			xm[q] = t == 0u ? y[q] : xm[q];
			one[q] = t == 1u ? y[q] : one[q];
		}
	}
	u32 diff = 0;
	UNROLL_OUTER
	for (int q = 0; q < MT_S; q++) diff |= y[q] ^ LIMB(x + i, L.lane * MT_S + q, count);
	for (u32 src = 0; src < LANES; src++)   /* every lane ends with the OR of all */
		diff |= lanes_shfl(L, diff, src);
	const u32 good = diff == 0u ? 1u : 0u;
	const u32 keep = 0u - good;
	if (valid) {
		UNROLL_OUTER
		for (int q = 0; q < MT_S; q++) LIMB(out + i, L.lane * MT_S + q, count) = m[q] & keep;
		if (L.lane == 0)
			ok[i] = good;
	}
}
