/* modexp.h: modular exponentiation by Montgomery multiplication, one
 * work-item per exponentiation, over the generated arithmetic of
 * mont_gen.h (kernels.Source generates it for the options below).
 *
 * The program is built with (the host sets them, see arith/mont.go):
 *   MONT_W          width of the Montgomery arithmetic in 32-bit words: the
 *                   modulus width n, or n+1 for the no-final-subtraction form
 *   MONT_WANT_<W>   the widths mont_gen.h holds: MONT_W, and any other the
 *                   program names itself (rsa.cl: RSA_FW)
 *   MONT_FINAL_SUB  1: masked final subtraction in every product; 0: none,
 *                   values kept below 2m (needs W = n+1)
 *   MONT_VARIANT    cios, fios or fips: the interleaving of the products
 *   MONT_SQR        1: squarings use mont_sqr_<W>; 0: they use MONT_VARIANT
 *   MONT_UNROLL_<W> defined: the loop over the rows of a product unrolled
 *   WINDOW          fixed-window width in bits (1..6)
 *
 * Secret exponents: the exponent is read window by window at public
 * positions, every window costs WINDOW squarings and one multiplication by
 * a table entry, and the entry is chosen by a masked scan over the whole
 * table: no branch and no memory index depends on the exponent's value.
 */
#pragma once
#include "mont_gen.h"
#include "exp_window.h"

#define MX_CAT_(a, b) a##b
#define MX_CAT(a, b) MX_CAT_(a, b)
/* mont_<variant>_<W>, mont_sqr_<W>, mont_reduce_once_<W> */
#define MONT_MULW MX_CAT(MX_CAT(mont_, MONT_VARIANT), MX_CAT(_, MONT_W))
#define MONT_REDUCE_ONCE MX_CAT(mont_reduce_once_, MONT_W)
#if MONT_SQR
#define MONT_SQRW(r, a, m, n0) MX_CAT(mont_sqr_, MONT_W)(r, a, m, n0)
#else
#define MONT_SQRW(r, a, m, n0) mx_sqr_by_mul(r, a, m, n0)
/* a² by the general product. b is a copy: the product indexes b with the
 * row number, and a must not share that array (it would leave registers
 * when the rows stay a loop). */
DEVICE_FN void mx_sqr_by_mul(u32 *r, const u32 *a, const u32 *m, const u32 n0)
{
	u32 b[MONT_W];
	for (int j = 0; j < MONT_W; j++) b[j] = a[j];
	MONT_MULW(r, a, b, m, n0);
}
#endif

/* Load W words of a limb-major batch (p points at element i's word 0). */
DEVICE_FN void mx_load(u32 *r, GLOBAL const u32 *p, const u32 stride)
{
	UNROLL_OUTER
	for (int j = 0; j < MONT_W; j++) r[j] = LIMB(p, j, stride);
}

DEVICE_FN void mx_store(GLOBAL u32 *p, const u32 stride, const u32 *a)
{
	UNROLL_OUTER
	for (int j = 0; j < MONT_W; j++) LIMB(p, j, stride) = a[j];
}

/* r = table entry d, read by a masked scan of all WINDOW_SIZE entries. The
 * table of one work-item is entry-major: word j of entry e at
 * (e·W + j)·stride. */
DEVICE_FN void mx_select(u32 *r, GLOBAL const u32 *table, const u32 stride, const u32 d)
{
	UNROLL_OUTER
	for (int j = 0; j < MONT_W; j++) r[j] = 0;
	for (u32 e = 0; e < WINDOW_SIZE; e++) {
		const u32 mask = ct_eq_mask(e, d);
		GLOBAL const u32 *t = table + e * MONT_W * stride;
		UNROLL_OUTER
		for (int j = 0; j < MONT_W; j++) r[j] |= LIMB(t, j, stride) & mask;
	}
}

/* out = base^e mod m, canonical (below m). base is any W-word value below
 * 2^(32n) (the first product reduces it); e has ewords words (limb-major
 * with estride); one = 2^(32W) mod m (one in Montgomery form), r2 =
 * 2^(64W) mod m, n0 = −m^(−1) mod 2^32. table is this work-item's scratch
 * of WINDOW_SIZE·W words (stride tstride). The running time depends on
 * ewords only.
 *
 * Every product goes through one call site (and every squaring through
 * another), so a compiler that inlines and unrolls them emits one copy of
 * each: the steps are, in order, the table T[1] = base·R, T[k] = T[k−1]·T[1]
 * (k < WINDOW_SIZE), then per window below the top one WINDOW squarings and
 * a product by the selected entry, then a product by 1 that leaves the
 * Montgomery form. */
DEVICE_FN void modexp_ct(u32 *out, const u32 *base, GLOBAL const u32 *e, const u32 estride,
	const u32 ewords, const u32 *m, const u32 n0, const u32 *one, const u32 *r2,
	GLOBAL u32 *table, const u32 tstride)
{
	u32 acc[MONT_W], b[MONT_W];
	const int nt = (int)WINDOW_SIZE - 1;                   /* table products */
	const int nwin = (int)((32u * ewords + WINDOW - 1u) / WINDOW);
	mx_store(table, tstride, one);                        /* T[0] = 1 */
	UNROLL_OUTER
	for (int j = 0; j < MONT_W; j++) {
		acc[j] = base[j];
		b[j] = r2[j];
	}
	for (int it = 0; it < nt + nwin; it++) {
		const int win = nwin - 2 - (it - nt);              /* window of this step */
		if (it >= nt && win >= 0) {
			for (int s = 0; s < WINDOW; s++)
				MONT_SQRW(acc, acc, m, n0);
			mx_select(b, table, tstride, mx_window(e, estride, ewords, (u32)win * WINDOW));
		} else if (it >= nt) {                             /* last step: leave Montgomery form */
			UNROLL_OUTER
			for (int j = 0; j < MONT_W; j++) b[j] = 0;
			b[0] = 1;
		}
		MONT_MULW(acc, acc, b, m, n0);
		if (it < nt) {
			mx_store(table + (u32)(it + 1) * MONT_W * tstride, tstride, acc);
			if (it == 0) {                                 /* b = T[1] for the rest of the table */
				UNROLL_OUTER
				for (int j = 0; j < MONT_W; j++) b[j] = acc[j];
			}
			if (it == nt - 1)                              /* start from the top window's entry */
				mx_select(acc, table, tstride, mx_window(e, estride, ewords, (u32)(nwin - 1) * WINDOW));
		}
	}
	UNROLL_OUTER
	for (int j = 0; j < MONT_W; j++) out[j] = acc[j];
	MONT_REDUCE_ONCE(out, m);                              /* at most m before: canonical */
}
