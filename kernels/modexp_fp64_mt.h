/* modexp_fp64_mt.h: modular exponentiation on the floating-point
 * Montgomery product (fp64.h's split and bit-pattern sums) with LANES
 * work-items per number: CIOS distributed over the lanes as in
 * modexp_mt.h, each lane holding S = FP64_S consecutive digits of every
 * number, 52-bit digits where the split can round toward zero (the PTX
 * path: fma.rz), else fp64.h's 51-bit ones. One work-item per number
 * (modexp_fp64.h) holds a number, the modulus and d + 1 columns in
 * registers: at 1024 bits it needs all 255, and eight warps per
 * multiprocessor cannot hide the latency of its chains. A lane here holds
 * S digits of each.
 *
 * Build options (arith.Mont.Defines):
 *   MONT_W      modulus width n in 32-bit words
 *   LANES       work-items per number (lanes.h: a power of two)
 *   LANES_WG    work-group size
 *   FP64_BITS   bits per digit, b: 51, or 52 with the PTX path
 *   FP64_S      digits per lane; d = LANES·FP64_S digits, bd ≥ 32n + 2
 *               so that R' = 2^(bd) ≥ 4m
 *   FP64_SHIFT  4·(bd − 32n): R'^2 mod m is (R2²/R')·2^FP64_SHIFT/R'
 *   WINDOW      fixed-window width in bits
 *
 * The product (f64mt_mul). Row i (digit y_i of the multiplier, broadcast
 * from the lane that holds it) adds x·y_i into the lane's columns c[0..S−1]
 * and its top column, then q = c_0·n0 mod 2^b (c_0 of lane 0, broadcast)
 * and m·q the same way; lane 0's c_0, now a multiple of 2^b, carries into
 * its c_1; every column moves down one place: lane l's c[S−1] becomes its
 * top plus lane l+1's c[0] (the two halves of one column: the high halves
 * of the lane's top digit products and the low halves of the next lane's
 * lowest). Three exchanges of 64 bits per row (y_i, c_0, the column that
 * crosses a lane), no serial chain across lanes.
 *
 * The split with 52-bit digits. hi = fma(a, b, 2^104) rounded toward zero
 * is 2^104 + H·2^52 with H = ⌊a·b/2^52⌋ (a·b < 2^104, where doubles are
 * 2^52 apart); K − hi with K = 2^104 + 2^52 (a double) is (1 − H)·2^52,
 * exact; fma(a, b, K − hi) = a·b − H·2^52 + 2^52 = L + 2^52 with
 * 0 ≤ L < 2^52, an integer in [2^52, 2^53): exact. So a·b = H·2^52 + L,
 * the bit patterns 2^104's + H and 2^52's + L, as fp64.h's are with 51.
 *
 * Offsets. Every low half carries BL and every high half BH in its bit
 * pattern (fp64.h); each row adds 2(BL + BH) to an inner column, 2BL to a
 * lane's c[0] and 2BH to its top. A column starts at minus what it will
 * receive until it is read at position 0: at position p of the first row,
 * 2BL + 2p(BL + BH) (in lane l's c[0] where the column crosses lanes, the
 * top of lane l−1 starting at zero); entering at position d after a row,
 * 2d(BL + BH). So lane 0 reads its true value, as q and the carry need;
 * after the last row the column at position p lacks 2BL + 2p(BL + BH),
 * which f64mt_normalize adds back.
 *
 * Digits between products are canonical (each in [0, 2^b)): the split
 * needs digits ≥ 0. f64mt_normalize carries through each lane, then
 * passes each lane's signed carry on, one lane per round (LANES − 1
 * exchanges and carry chains per product, a few percent of it). A lone
 * carry added into the next lane's lowest digit without propagating it
 * (biased so as to stay ≥ 0) was tried: a lane whose part of the value is
 * zero then ends with a borrow that the top lane cannot give back.
 *
 * Secret exponents: as modexp.h, windows at public positions, the table
 * read by a masked scan of every entry; no branch or memory index depends
 * on a secret, and the exchanges are the same for every number.
 */
#pragma once
#include "fp64.h"
#include "lanes.h"
#include "exp_window.h"

#if !defined(MONT_W) || !defined(FP64_S) || !defined(FP64_SHIFT) || !defined(FP64_BITS)
#error "modexp_fp64_mt.h: define MONT_W, FP64_BITS, FP64_S and FP64_SHIFT"
#endif
#define FP64_D (LANES * FP64_S)
#if FP64_S < 2
#error "modexp_fp64_mt.h: at least two digits per lane"
#endif
#if FP64_BITS * FP64_D < 32 * MONT_W + 2
#error "modexp_fp64_mt.h: LANES·FP64_S digits must hold 4m"
#endif
#if FP64_SHIFT + 1 >= FP64_BITS * FP64_D
#error "modexp_fp64_mt.h: 2^FP64_SHIFT must stay below R'/2 (fewer lanes: arith.Mont)"
#endif

#if FP64_BITS == 52
#if !defined(FMA_RZ)
#error "modexp_fp64_mt.h: 52-bit digits need fma rounded toward zero (the PTX path)"
#endif
#define F64MT_SPLIT(hi, lo, a, b) const double hi = FMA_RZ(a, b, 0x1p104), lo = fma(a, b, 0x1.0000000000001p104 - hi)
#define F64MT_BL ((u64)0x4330000000000000ul)     /* bits of 2^52: offset of a low half */
#define F64MT_BH ((u64)0x4670000000000000ul)     /* bits of 2^104: offset of a high half */
#elif FP64_BITS == 51
#define F64MT_SPLIT FP64_SPLIT
#define F64MT_BL FP64_BL
#define F64MT_BH FP64_BH
#else
#error "modexp_fp64_mt.h: FP64_BITS is 51 or 52"
#endif
#define F64MT_MASK ((((u64)1) << FP64_BITS) - 1u)
#define F64MT_FULL (2u * (F64MT_BL + F64MT_BH))  /* what an inner column gets per row */

DEVICE_FN u64 lanes_shfl64(const lanes_t L, const u64 v, const u32 src)
{
	const u32 lo = lanes_shfl(L, (u32)v, src);
	const u32 hi = lanes_shfl(L, (u32)(v >> 32), src);
	return (u64)lo | ((u64)hi << 32);
}

/* v of lane + 1; 0 in the last lane */
DEVICE_FN u64 lanes_down64(const lanes_t L, const u64 v)
{
	const u64 r = lanes_shfl64(L, v, (L.lane + 1u) & (LANES - 1u));
	return L.lane == LANES - 1u ? 0u : r;
}

/* r = the canonical digits of the columns c after the last row
 * (f64mt_mul): their missing offsets added back and a carry chain through
 * the lane, whose signed carry out (a few bits) the next lane takes, one
 * lane per round. The value is below 2m < 2^(bd): the top lane's carry
 * is zero. */
DEVICE_FN void f64mt_normalize(const lanes_t L, double *r, const u64 *c)
{
	const u64 p0 = (u64)(L.lane * FP64_S);               /* position of c[0] */
	u64 d[FP64_S];
	i64 carry = 0;
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) {
		const u64 v = c[j] + 2u * F64MT_BL + (p0 + (u64)j) * F64MT_FULL + (u64)carry;
		d[j] = v & F64MT_MASK;
		carry = (i64)v >> FP64_BITS;
	}
	for (u32 round = 1; round < LANES; round++) {
		const u32 in = lanes_up(L, (u32)carry, 0u);
		i64 c_in = L.lane == round ? (i64)(int)in : 0;
		UNROLL_OUTER
		for (int j = 0; j < FP64_S; j++) {
			const i64 v = (i64)d[j] + c_in;
			d[j] = (u64)v & F64MT_MASK;
			c_in = v >> FP64_BITS;
		}
		carry += c_in;
	}
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) r[j] = FP64_DIGIT(d[j]);
}

/* Adds a·v (this lane's digits of a, the digit v) into the columns c and
 * the top column: the low half of digit product j into c[j], the high
 * half into c[j + 1] (the top for the last). */
DEVICE_FN void f64mt_row(u64 *c, u64 *top, const double *a, const double v)
{
	F64MT_SPLIT(h, lo, a[0], v);
	c[0] += F64_BITS(lo);
	u64 hprev = F64_BITS(h);
	UNROLL_OUTER
	for (int j = 1; j < FP64_S; j++) {
		F64MT_SPLIT(hj, lj, a[j], v);
		c[j] += F64_BITS(lj) + hprev;
		hprev = F64_BITS(hj);
	}
	*top += hprev;
}

/* r = x·y·R'^(−1) mod m, below 2m, in this lane's digits, for x, y below
 * 2m (digits as f64mt_normalize leaves them) and n0 = −m^(−1) mod 2^b.
 * r may be x or y. */
DEVICE_FN void f64mt_mul(const lanes_t L, double *r, const double *x, const double *y, const double *m, const u64 n0)
{
	const u64 top_fresh = L.lane == LANES - 1u ? (u64)0 - (u64)FP64_D * F64MT_FULL : 0u;
	u64 c[FP64_S], top = top_fresh;
	{
		const u64 p0 = (u64)(L.lane * FP64_S);
		UNROLL_OUTER
		for (int j = 0; j < FP64_S; j++)                 /* where a column crosses lanes, c[0] */
			c[j] = (u64)0 - (2u * F64MT_BL + (p0 + (u64)j) * F64MT_FULL);
	}
	const u64 carry_mask = L.lane == 0u ? ~(u64)0 : 0u;
	for (u32 src = 0; src < LANES; src++) {
		UNROLL_OUTER
		for (int k = 0; k < FP64_S; k++) {
			const double yi = F64_FROM_BITS(lanes_shfl64(L, F64_BITS(y[k]), src));
			f64mt_row(c, &top, x, yi);
			const u64 t0 = lanes_shfl64(L, c[0], 0u);
			f64mt_row(c, &top, m, FP64_DIGIT((t0 * n0) & F64MT_MASK));
			c[1] += (u64)((i64)c[0] >> FP64_BITS) & carry_mask;  /* lane 0: c_0 is a multiple of 2^b */
			const u64 below = lanes_down64(L, c[0]);
			UNROLL_OUTER
			for (int j = 0; j < FP64_S - 1; j++) c[j] = c[j + 1];
			c[FP64_S - 1] = top + below;
			top = top_fresh;
		}
	}
	f64mt_normalize(L, r, c);
}

/* r = this lane's digits of the n-word value at p (word k at k·stride),
 * any value below 2^(32n). */
DEVICE_FN void f64mt_load(const lanes_t L, double *r, GLOBAL const u32 *p, const u32 stride)
{
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) {
		const u32 bit = FP64_BITS * (L.lane * FP64_S + (u32)j), k = bit >> 5, s = bit & 31u;
		u64 v = 0;
		if (k < MONT_W) v = (u64)LIMB(p, k, stride) >> s;
		if (k + 1u < MONT_W) v |= (u64)LIMB(p, k + 1u, stride) << (32u - s);
		if (k + 2u < MONT_W && s + FP64_BITS > 64u) v |= (u64)LIMB(p, k + 2u, stride) << (64u - s);
		r[j] = FP64_DIGIT(v & F64MT_MASK);
	}
}

/* r = the digit 1 (lane 0's lowest), or 2^b as digits */
DEVICE_FN void f64mt_set_pow2(const lanes_t L, double *r, const u32 b)
{
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++)
		r[j] = L.lane * FP64_S + (u32)j == b / FP64_BITS ? FP64_DIGIT((u64)1 << (b % FP64_BITS)) : 0.0;
}

/* d = a mod m as canonical digits (integers), for canonical digits a of a
 * value below 2m: a − m, kept unless it borrows (the borrow resolved over
 * the lanes by a parallel prefix). */
DEVICE_FN void f64mt_canon(const lanes_t L, u64 *d, const double *a, const double *m)
{
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) d[j] = FP64_VALUE(a[j]);
	/* t = d − m by a borrow chain; its borrow resolved the same way */
	u64 t[FP64_S], z = 0;
	i64 bw = 0;
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) {
		const i64 v = (i64)d[j] - (i64)FP64_VALUE(m[j]) + bw;
		t[j] = (u64)v & F64MT_MASK;
		bw = v >> FP64_BITS;                                   /* 0 or −1 */
		z |= t[j];
	}
	const u32 bgen = (u32)(bw & 1), bpass = (z == 0u ? 1u : 0u) & (bgen ^ 1u);
	const u32 bin = lanes_carry_in(L, bgen, bpass);
	bw = -(i64)bin;
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) {
		const i64 v = (i64)t[j] + bw;
		t[j] = (u64)v & F64MT_MASK;
		bw = v >> FP64_BITS;
	}
	const u32 borrow = lanes_shfl(L, bgen | (bpass & bin), LANES - 1u); /* a < m */
	const u64 keep = (u64)0 - (u64)borrow;
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) d[j] = (d[j] & keep) | (t[j] & ~keep);
}

/* Stores the n words of the canonical digits d (this lane's) at out (word
 * k at k·stride) when store is set: each lane writes the words whose low
 * bit lies in its digits, with the next lane's lowest digit for the top. */
DEVICE_FN void f64mt_store_words(const lanes_t L, GLOBAL u32 *out, const u32 stride, const u64 *d, const u32 store)
{
	u64 v[FP64_S + 1];
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) v[j] = d[j];
	v[FP64_S] = lanes_down64(L, d[0]);
	const u32 lo = L.lane * FP64_S;
	const u32 k0 = (FP64_BITS * lo + 31u) / 32u, k1 = min((FP64_BITS * (lo + FP64_S) + 31u) / 32u, (u32)MONT_W);
	if (!store)
		return;
	for (u32 k = k0; k < k1; k++) {
		const u32 i = 32u * k / FP64_BITS - lo, s = 32u * k % FP64_BITS;
		u64 w = v[i] >> s;
		if (s + 32u > FP64_BITS) w |= v[i + 1u] << (FP64_BITS - s);
		LIMB(out, k, stride) = (u32)w;
	}
}

/* The table: digit j of this lane's part of entry e of element i at
 * ((e·S + j)·count + i)·LANES + lane (64-bit words), so the lanes of a warp
 * touch consecutive words. */
DEVICE_FN u32 f64mt_tidx(const lanes_t L, const u32 e, const u32 j, const u32 i, const u32 count)
{
	return ((e * FP64_S + j) * count + i) * LANES + L.lane;
}

DEVICE_FN void f64mt_tstore(const lanes_t L, GLOBAL u64 *table, const u32 e, const u32 i, const u32 count, const double *a)
{
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) table[f64mt_tidx(L, e, (u32)j, i, count)] = F64_BITS(a[j]);
}

/* r = entry d of the table, read by a masked scan of every entry */
DEVICE_FN void f64mt_select(const lanes_t L, double *r, GLOBAL const u64 *table, const u32 i, const u32 count, const u32 d)
{
	u64 v[FP64_S];
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) v[j] = 0;
	for (u32 e = 0; e < WINDOW_SIZE; e++) {
		const u32 m32 = ct_eq_mask(e, d);
		const u64 mask = (u64)m32 | ((u64)m32 << 32);
		UNROLL_OUTER
		for (int j = 0; j < FP64_S; j++) v[j] |= table[f64mt_tidx(L, e, (u32)j, i, count)] & mask;
	}
	UNROLL_OUTER
	for (int j = 0; j < FP64_S; j++) r[j] = F64_FROM_BITS(v[j]);
}

/* out = base^e mod m, canonical n words, for element i (stores only when
 * store is set: padding groups compute a copy of a real element and share
 * its table, which they must not write). base: the element's n words
 * (stride bstride), any value below 2^(32n); mod, r2: the modulus and
 * 2^(64n) mod m (stride K), n0_32 = −m^(−1) mod 2^32. Every product goes
 * through one call site, in this order: R2·R2/R'; ·2^FP64_SHIFT/R' =
 * R'^2 mod m; 1·R'^2/R' = R' mod m = T[0]; base·R'^2/R' = T[1];
 * T[k] = T[k−1]·T[1]; then per window below the top one WINDOW squarings
 * and a product by the selected entry; then a product by 1 (at most m),
 * and f64mt_canon. The running time depends on ewords only. */
DEVICE_FN void f64mt_modexp(const lanes_t L, GLOBAL u32 *out, GLOBAL const u32 *base, const u32 bstride,
	GLOBAL const u32 *e, const u32 estride, const u32 ewords,
	GLOBAL const u32 *mod, GLOBAL const u32 *r2, const u32 K, const u32 n0_32,
	GLOBAL u64 *table, const u32 i, const u32 count, const u32 store)
{
	double m[FP64_S], acc[FP64_S], y[FP64_S];
	u32 m01[2] = { LIMB(mod, 0, K), LIMB(mod, 1, K) };
	const u64 n0 = fp64_n0(m01, n0_32) & F64MT_MASK;
	f64mt_load(L, m, mod, K);
	f64mt_load(L, acc, r2, K);
	const int nt = (int)WINDOW_SIZE - 1;                 /* table products after T[1] */
	const int nwin = (int)((32u * ewords + WINDOW - 1u) / WINDOW);
	const int nsteps = 3 + nt + (nwin - 1) * (WINDOW + 1) + 1;
	for (int st = 0; st < nsteps; st++) {
		if (st == 0) {                                   /* R2·R2/R' */
			UNROLL_OUTER
			for (int j = 0; j < FP64_S; j++) y[j] = acc[j];
		} else if (st == 1) {                            /* ·2^FP64_SHIFT/R' = R'^2 mod m */
			f64mt_set_pow2(L, y, FP64_SHIFT);
		} else if (st == 2) {                            /* 1·R'^2/R' = T[0] */
			UNROLL_OUTER
			for (int j = 0; j < FP64_S; j++) y[j] = acc[j];
			f64mt_set_pow2(L, acc, 0u);
		} else if (st == 3) {                            /* base·R'^2/R' = T[1] */
			f64mt_load(L, acc, base, bstride);
		} else if (st >= 3 + nt) {
			const int w = st - 3 - nt, s = w % (WINDOW + 1);
			if (w == (nwin - 1) * (WINDOW + 1)) {        /* last: leave Montgomery form */
				f64mt_set_pow2(L, y, 0u);
			} else if (s < WINDOW) {
				UNROLL_OUTER
				for (int j = 0; j < FP64_S; j++) y[j] = acc[j];
			} else {
				const u32 win = (u32)(nwin - 2 - w / (WINDOW + 1));
				f64mt_select(L, y, table, i, count, mx_window(e, estride, ewords, win * WINDOW));
			}
		}
		f64mt_mul(L, acc, acc, y, m, n0);
		if (st >= 2 && st < 3 + nt) {                    /* T[st − 2] */
			if (store)
				f64mt_tstore(L, table, (u32)(st - 2), i, count, acc);
			if (st == 3) {
				UNROLL_OUTER
				for (int j = 0; j < FP64_S; j++) y[j] = acc[j];
			}
			if (st == 2 + nt)                            /* start from the top window's entry */
				f64mt_select(L, acc, table, i, count, mx_window(e, estride, ewords, (u32)(nwin - 1) * WINDOW));
		}
	}
	u64 d[FP64_S];
	f64mt_canon(L, d, acc, m);
	f64mt_store_words(L, out, count, d, store);
}
