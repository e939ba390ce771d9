/* modexp_fp64.h: modular exponentiation by the floating-point Montgomery
 * multiplication of fp64_gen.h (51-bit digits in doubles, see fp64.h),
 * one work-item per exponentiation, with the structure of modexp.h: fixed
 * windows, a table read by masked scans (mx_select, mx_window and the
 * table layout are modexp.h's), every product through one call site.
 *
 * The host interface is the integer kernel's: 32-bit words in and out,
 * MONT_W = n words per number (the modulus width), R2 = 2^(64n) mod m and
 * n0 = −m^(−1) mod 2^32 per modulus. The kernel derives what it needs
 * itself: n0 mod 2^51 by one Newton step, R'^2 mod m (R' = 2^(51d)) by
 * two products, R' mod m by a third. Table entries are stored as n
 * canonical words (below m), which halves their memory traffic against
 * doubles (zheng 2014 §5.1 does the same).
 *
 * Build options (arith.Mont.Defines): MONT_W, MONT_WANT_<W>, WINDOW and
 * the integer MONT_VARIANT/MONT_SQR/MONT_FINAL_SUB that modexp.h needs to
 * compile (its integer exponentiation is compiled, never called);
 * FP64_WANT_<W>, FP64_SQR (1: squarings use fp64_sqr_<W>) and FP64_UNROLL.
 */
#pragma once
#include "modexp.h"
#include "fp64_gen.h"

#define FP64_N MX_CAT(FP64_DIGITS_, MONT_W)
#define FP64_SHIFT MX_CAT(FP64_SHIFT_, MONT_W)
#define FP64_FROM_WORDS MX_CAT(fp64_from_words_, MONT_W)
#define FP64_TO_WORDS MX_CAT(fp64_to_words_, MONT_W)
#define FP64_MULW MX_CAT(fp64_mul_, MONT_W)

/* The multiplier's slot: FP64_N digits as bit patterns, digit j at
 * slot[j·stride]. fp64_mul reads its multiplier from there a digit per
 * row (see fp64Mul in the generator). */
DEVICE_FN void fp64_slot_put(GLOBAL u64 *slot, const u32 stride, const double *a)
{
	UNROLL_OUTER
	for (int j = 0; j < FP64_N; j++) slot[(u32)j * stride] = F64_BITS(a[j]);
}

#if FP64_SQR
#define FP64_SQRW(r, a, m, n0, slot, stride) MX_CAT(fp64_sqr_, MONT_W)(r, a, m, n0)
#else
#define FP64_SQRW(r, a, m, n0, slot, stride) fp64_sqr_by_mul(r, a, m, n0, slot, stride)
/* a² by the general product, the multiplier a copy of a in the slot */
DEVICE_FN void fp64_sqr_by_mul(double *r, const double *a, const double *m, const u64 n0,
	GLOBAL u64 *slot, const u32 stride)
{
	fp64_slot_put(slot, stride, a);
	FP64_MULW(r, a, slot, stride, m, n0);
}
#endif

/* r = a mod m for a < 2m, digits: a − m by a signed borrow chain over the
 * digits, kept when it does not borrow (masked, no branch). r may alias a. */
DEVICE_FN void fp64_canon(double *r, const double *a, const double *m)
{
	u64 d[FP64_N];
	i64 bw = 0;
	UNROLL_OUTER
	for (int j = 0; j < FP64_N; j++) {
		const i64 v = (i64)FP64_VALUE(a[j]) - (i64)FP64_VALUE(m[j]) + bw;
		d[j] = (u64)v & FP64_MASK;
		bw = v >> 51;                                   /* 0 or −1 */
	}
	const u64 keep = (u64)bw;                           /* all ones when a < m */
	UNROLL_OUTER
	for (int j = 0; j < FP64_N; j++)
		r[j] = FP64_DIGIT((FP64_VALUE(a[j]) & keep) | (d[j] & ~keep));
}

/* Table entry at p (stride tstride) = a mod m (a < 2m) as MONT_W words. */
DEVICE_FN void fp64_store(GLOBAL u32 *p, const u32 tstride, const double *a, const double *m)
{
	double c[FP64_N];
	u32 w[MONT_W];
	fp64_canon(c, a, m);
	FP64_TO_WORDS(w, c);
	mx_store(p, tstride, w);
}

/* r = table entry d (masked scan of every entry), as digits. */
DEVICE_FN void fp64_select(double *r, GLOBAL const u32 *table, const u32 tstride, const u32 d)
{
	u32 w[MONT_W];
	mx_select(w, table, tstride, d);
	FP64_FROM_WORDS(r, w);
}

/* r = 1 as digits */
DEVICE_FN void fp64_set_one(double *r)
{
	UNROLL_OUTER
	for (int j = 0; j < FP64_N; j++) r[j] = 0.0;
	r[0] = 1.0;
}

/* out = base^e mod m, canonical, as MONT_W words. base (MONT_W words,
 * stride bstride, any value below 2^(32·MONT_W)) is copied into the table
 * slot of T[1] first and read back when it is needed, so it holds no
 * registers through the exponentiation. m: the modulus in words, n0 =
 * −m^(−1) mod 2^32, r2 = 2^(64·MONT_W) mod m. table: this work-item's
 * scratch of WINDOW_SIZE·MONT_W words (stride tstride). The running time
 * depends on ewords only.
 *
 * slot: this work-item's FP64_N 64-bit words (stride tstride), where the
 * multiplier of every product waits (fp64_slot_put), so it holds no
 * registers either.
 *
 * Steps through the one product call site: R2·R2/R' (below 2m: R2 < m);
 * ·2^FP64_SHIFT/R' = R'^2 mod m (below 2m); 1·R'^2/R' = R' mod m = T[0];
 * base·R'^2/R' = T[1]; T[k] = T[k−1]·T[1]; then per window below the top
 * one WINDOW squarings and a product by the selected entry; then a product
 * by 1, which leaves at most m (the input is below 2m), and one masked
 * subtraction. Every operand is below 2m, and base < 2^(32·MONT_W) ≤ R'/4
 * keeps base·R'^2/R' below 2m too. */
DEVICE_FN void fp64_modexp(u32 *out, GLOBAL const u32 *base, const u32 bstride,
	GLOBAL const u32 *e, const u32 estride, const u32 ewords, const u32 *m32, const u32 n0_32,
	const u32 *r2, GLOBAL u32 *table, const u32 tstride, GLOBAL u64 *slot)
{
	double m[FP64_N], acc[FP64_N], b[FP64_N];
	const u64 n0 = fp64_n0(m32, n0_32) & FP64_MASK;
	const int nt = (int)WINDOW_SIZE - 1;                   /* table products */
	const int nwin = (int)((32u * ewords + WINDOW - 1u) / WINDOW);
	GLOBAL u32 *t1 = table + MONT_W * tstride;
	{
		u32 w[MONT_W];
		mx_load(w, base, bstride);
		mx_store(t1, tstride, w);                          /* parked until step −1 */
	}
	FP64_FROM_WORDS(m, m32);
	FP64_FROM_WORDS(acc, r2);
	fp64_slot_put(slot, tstride, acc);
	/* the constants and the table: one product per step */
	for (int it = -3; it < nt; it++) {
		FP64_MULW(acc, acc, slot, tstride, m, n0);
		if (it == -3) {                                    /* acc = R2²/R'; b = 2^FP64_SHIFT */
			UNROLL_OUTER
			for (int j = 0; j < FP64_N; j++) b[j] = 0.0;
			b[FP64_SHIFT / 51] = FP64_DIGIT((u64)1 << (FP64_SHIFT % 51));
			fp64_slot_put(slot, tstride, b);
		} else if (it == -2) {                             /* acc = R'^2 mod m: b = it, acc = 1 */
			fp64_slot_put(slot, tstride, acc);
			fp64_set_one(acc);
		} else if (it == -1) {                             /* acc = R' mod m = T[0]; then the base */
			fp64_store(table, tstride, acc, m);
			u32 w[MONT_W];
			mx_load(w, t1, tstride);
			FP64_FROM_WORDS(acc, w);
		} else {
			fp64_store(table + (u32)(it + 1) * MONT_W * tstride, tstride, acc, m);
			if (it == 0)                                   /* b = T[1] for the rest of the table */
				fp64_slot_put(slot, tstride, acc);
		}
	}
	/* the windows below the top one: WINDOW squarings and a product by the
	 * selected entry; then a product by 1 */
	fp64_select(acc, table, tstride, mx_window(e, estride, ewords, (u32)(nwin - 1) * WINDOW));
	for (int win = nwin - 2; win >= -1; win--) {
		if (win >= 0) {
			for (int s = 0; s < WINDOW; s++)
				FP64_SQRW(acc, acc, m, n0, slot, tstride);
			fp64_select(b, table, tstride, mx_window(e, estride, ewords, (u32)win * WINDOW));
		} else {                                           /* last step: leave Montgomery form */
			fp64_set_one(b);
		}
		fp64_slot_put(slot, tstride, b);
		FP64_MULW(acc, acc, slot, tstride, m, n0);
	}
	fp64_canon(acc, acc, m);                               /* at most m before: canonical */
	FP64_TO_WORDS(out, acc);
}
