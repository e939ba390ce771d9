/* modexp_mt.h: modular exponentiation with LANES work-items per number
 * (the multi-thread form of zheng 2014 §4 and of CGBN), over lanes.h.
 *
 * Build options (the host sets them, see arith/mont.go):
 *   MT_N      modulus width n in 32-bit words; LANES must divide it
 *   LANES     work-items per number (2..32, a power of two)
 *   LANES_WG  work-group size (a multiple of 32 and of LANES)
 *   WINDOW    fixed-window width in bits (1..6)
 *
 * Each lane holds S = n/LANES consecutive words of every number: lane l
 * has words l·S .. l·S+S−1. The Montgomery product is CIOS distributed
 * over the lanes: for each word a_i of the multiplier (broadcast from the
 * lane that holds it) every lane adds a_i·b and then m·N to its S words,
 * the factor m = t_0·n0 coming from lane 0, and the accumulator moves down
 * one word (lane l+1's lowest word becomes lane l's top word). What a row
 * carries out of a lane's top word is not passed on at once: it stays with
 * the lane as a carry C attached to its top word, which after the shift is
 * where it belongs, and is added into that word at the next row. So a
 * product costs three exchanges per word of the multiplier and no serial
 * carry chain across lanes; the carries are resolved once at the end by a
 * parallel prefix (lanes_carry_in), and the final subtraction is masked,
 * its borrow resolved the same way. Values stay canonical (below N).
 *
 * Bounds: a lane's S words plus a_i·b plus m·N stay below 2^(32(S+1)),
 * so each row carries out one word; C < 2^33 + 8 (a 64-bit value).
 *
 * Secret exponents: as in modexp.h, windows at public positions, WINDOW
 * squarings and one product per window, and the entry read by a masked
 * scan of the whole table. No branch or memory index depends on a secret;
 * the exchanges are the same for every number.
 */
#pragma once
#include "lanes.h"
#include "exp_window.h"

#ifndef MT_N
#error "modexp_mt.h: define MT_N (modulus words)"
#endif
#define MT_S (MT_N / LANES)
#if MT_S * LANES != MT_N
#error "modexp_mt.h: LANES must divide MT_N"
#endif

/* t += x·y over this lane's S words; returns the word carried out. */
DEVICE_FN u32 mt_row(u32 *t, const u32 x, const u32 *y)
{
	CARRY_DECL;
	u32 h;
	MADLO_CC(t[0], x, y[0], t[0]);
	UNROLL_OUTER
	for (int j = 1; j < MT_S; j++) MADLOC_CC(t[j], x, y[j], t[j]);
	ADDC(h, 0u, 0u);
#if MT_S > 1
	MADHI_CC(t[1], x, y[0], t[1]);
	UNROLL_OUTER
	for (int j = 2; j < MT_S; j++) MADHIC_CC(t[j], x, y[j - 1], t[j]);
	MADHIC(h, x, y[MT_S - 1], h);
#else
	h += MUL_HI(x, y[0]);
#endif
	return h;
}

/* Adds the 64-bit carry C into word S−1 of t; returns what goes on to
 * word S (at most C/2^32 + 1). */
DEVICE_FN u32 mt_fold(u32 *t, const u64 C)
{
	CARRY_DECL;
	u32 c;
	ADD_CC(t[MT_S - 1], t[MT_S - 1], (u32)C);
	ADDC(c, (u32)(C >> 32), 0u);
	return c;
}

/* Adds the small value c to word 0 of t; returns the carry out (0 or 1). */
DEVICE_FN u32 mt_add_small(u32 *t, const u32 c)
{
	CARRY_DECL;
	u32 g;
	ADD_CC(t[0], t[0], c);
	UNROLL_OUTER
	for (int j = 1; j < MT_S; j++) ADDC_CC(t[j], t[j], 0u);
	ADDC(g, 0u, 0u);
	return g;
}

/* 1 when every word of t equals v, else 0. */
DEVICE_FN u32 mt_all(const u32 *t, const u32 v)
{
	u32 x = 0;
	UNROLL_OUTER
	for (int j = 0; j < MT_S; j++) x |= t[j] ^ v;
	return ((x | (0u - x)) >> 31) ^ 1u; /* top bit of x | −x: x ≠ 0 */
}

/* r = a·b·2^(−32n) mod m, canonical, for a, b < 2^(32n) with a·b < 2^(32n)·m
 * (a or b below m). r may be a or b. n0 = −m^(−1) mod 2^32. */
DEVICE_FN void mt_mul(const lanes_t L, u32 *r, const u32 *a, const u32 *b, const u32 *m, const u32 n0)
{
	u32 t[MT_S];
	UNROLL_OUTER
	for (int j = 0; j < MT_S; j++) t[j] = 0;
	u64 C = 0; /* attached to word S−1 */
	for (u32 src = 0; src < LANES; src++) {
		UNROLL_OUTER
		for (int q = 0; q < MT_S; q++) {
			const u32 ai = lanes_shfl(L, a[q], src);
			u64 H = mt_row(t, ai, b);
			H += mt_fold(t, C);      /* before m: with S = 1 word 0 is word S−1 */
			const u32 mi = lanes_shfl(L, t[0] * n0, 0);
			H += mt_row(t, mi, m);
			const u32 up = lanes_down(L, t[0], 0); /* lane 0's word 0 is 0: dropped */
			UNROLL_OUTER
			for (int j = 0; j < MT_S - 1; j++) t[j] = t[j + 1];
			t[MT_S - 1] = up;
			C = H;
		}
	}
	/* carries: C into the top word, its overflow into the next lane, then
	 * the ripple of single carries by a parallel prefix */
	const u32 hout = mt_fold(t, C);
	u32 g = mt_add_small(t, lanes_up(L, hout, 0));
	const u32 cin = lanes_carry_in(L, g, mt_all(t, 0xffffffffu) & (g ^ 1u));
	g |= mt_add_small(t, cin);
	/* bits 32n and up of t (0 or 1): the top lane's overflow */
	const u32 top = lanes_shfl(L, hout + g, LANES - 1);
	/* d = t − m, the borrow resolved the same way */
	u32 d[MT_S], bw;
	{
		CARRY_DECL;
		SUB_CC(d[0], t[0], m[0]);
		UNROLL_OUTER
		for (int j = 1; j < MT_S; j++) SUBC_CC(d[j], t[j], m[j]);
		SUBC(bw, 0u, 0u);
		bw &= 1u;
	}
	const u32 bin = lanes_carry_in(L, bw, mt_all(d, 0u) & (bw ^ 1u));
	u32 bout;
	{
		CARRY_DECL;
		SUB_CC(d[0], d[0], bin);
		UNROLL_OUTER
		for (int j = 1; j < MT_S; j++) SUBC_CC(d[j], d[j], 0u);
		SUBC(bout, 0u, 0u);
		bout &= 1u;
	}
	const u32 borrow = lanes_shfl(L, bw | bout, LANES - 1);
	const u32 keep = ct_eq_mask(top | (borrow ^ 1u), 0u); /* all ones: t < m */
	UNROLL_OUTER
	for (int j = 0; j < MT_S; j++) r[j] = (t[j] & keep) | (d[j] & ~keep);
}

/* r = this lane's words of the n-word number at p, limb-major with
 * stride. */
DEVICE_FN void mt_load(const lanes_t L, u32 *r, GLOBAL const u32 *p, const u32 stride)
{
	UNROLL_OUTER
	for (int q = 0; q < MT_S; q++) r[q] = LIMB(p, L.lane * MT_S + q, stride);
}

/* The table: word q of this lane's part of entry e of element i at
 * ((e·S + q)·count + i)·LANES + lane, so the lanes of a warp read
 * consecutive words. */
DEVICE_FN u32 mt_tidx(const lanes_t L, const u32 e, const u32 q, const u32 i, const u32 count)
{
	return ((e * MT_S + q) * count + i) * LANES + L.lane;
}

DEVICE_FN void mt_tstore(const lanes_t L, GLOBAL u32 *table, const u32 e, const u32 i, const u32 count, const u32 *a)
{
	UNROLL_OUTER
	for (int q = 0; q < MT_S; q++) table[mt_tidx(L, e, q, i, count)] = a[q];
}

/* r = entry d of the table, read by a masked scan of every entry. */
DEVICE_FN void mt_select(const lanes_t L, u32 *r, GLOBAL const u32 *table, const u32 i, const u32 count, const u32 d)
{
	UNROLL_OUTER
	for (int q = 0; q < MT_S; q++) r[q] = 0;
	for (u32 e = 0; e < WINDOW_SIZE; e++) {
		const u32 mask = ct_eq_mask(e, d);
		UNROLL_OUTER
		for (int q = 0; q < MT_S; q++) r[q] |= table[mt_tidx(L, e, q, i, count)] & mask;
	}
}

/* out = base^e mod m (this lane's words), canonical; base is any value
 * below 2^(32n); one = 2^(32n) mod m, r2 = 2^(64n) mod m. The table
 * (WINDOW_SIZE·n words per element) is written only when store is set
 * (padding groups share a real element's table and must not write it).
 * The steps are those of modexp_ct (modexp.h). */
DEVICE_FN void modexp_mt(const lanes_t L, u32 *out, const u32 *base, GLOBAL const u32 *e, const u32 estride,
	const u32 ewords, const u32 *m, const u32 n0, const u32 *one, const u32 *r2,
	GLOBAL u32 *table, const u32 i, const u32 count, const u32 store)
{
	u32 acc[MT_S], b[MT_S];
	const int nt = (int)WINDOW_SIZE - 1;
	const int nwin = (int)((32u * ewords + WINDOW - 1u) / WINDOW);
	if (store)
		mt_tstore(L, table, 0, i, count, one);
	UNROLL_OUTER
	for (int j = 0; j < MT_S; j++) {
		acc[j] = base[j];
		b[j] = r2[j];
	}
	for (int it = 0; it < nt + nwin; it++) {
		const int win = nwin - 2 - (it - nt);
		if (it >= nt && win >= 0) {
			for (int s = 0; s < WINDOW; s++)
				mt_mul(L, acc, acc, acc, m, n0);
			mt_select(L, b, table, i, count, mx_window(e, estride, ewords, (u32)win * WINDOW));
		} else if (it >= nt) { /* last step: leave Montgomery form */
			UNROLL_OUTER
			for (int j = 0; j < MT_S; j++) b[j] = 0;
			b[0] = L.lane == 0 ? 1u : 0u;
		}
		mt_mul(L, acc, acc, b, m, n0);
		if (it < nt) {
			if (store)
				mt_tstore(L, table, (u32)(it + 1), i, count, acc);
			if (it == 0) {
				UNROLL_OUTER
				for (int j = 0; j < MT_S; j++) b[j] = acc[j];
			}
			if (it == nt - 1)
				mt_select(L, acc, table, i, count, mx_window(e, estride, ewords, (u32)(nwin - 1) * WINDOW));
		}
	}
	UNROLL_OUTER
	for (int j = 0; j < MT_S; j++) out[j] = acc[j];
}
