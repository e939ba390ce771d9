/* p256_ecdh.cl: batched ECDH over P-256, one work-item per element (per
 * group of elements for the last step): the primitive of SP 800-56A
 * §5.7.1.2 as crypto/ecdh computes it, and public keys.
 *
 * Shared secrets (ecdh_p256_shared_point, then ecdh_p256_finish): for the
 * private scalar d (secret; the host checks 1 ≤ d < n) and the peer's
 * public point Q = (x, y) (the host checks x, y < p; the kernel checks
 * that Q is on the curve), the x-coordinate of d·Q. It is computed as
 * d'·Q = ±d·Q (the same x) for d' = d or n − d, whichever is odd, by a
 * fixed-window multiplication over the 64 odd radix-16 digits of d'
 * (ecdh_p256_recode_odd: digits in {±1, ±3, …, ±15}, the top one
 * positive), from a table of 1·Q, 3·Q, …, 15·Q in local memory: per digit
 * four doublings and one addition in Jacobian coordinates
 * (p256_jacobian.h), whose one possible exception, at the last addition,
 * ecdh_p256_mult handles with a mask.
 *
 * Public keys (ecdh_p256_public_point, then ecdh_p256_finish): d·G by the
 * constant-time comb of p256_comb.h.
 *
 * ecdh_p256_finish makes the points affine with one field inversion per
 * group of points (below).
 *
 * Constant time in d: d' is picked by a mask of d's low bit; each digit's
 * entry is picked by a masked scan of all eight (no index depends on d),
 * negated by a masked select; every digit adds its entry; the inversions
 * are Fermat's with a fixed exponent (mont256.h) over products of the
 * group's Z. The only branches are on public values: the digit's
 * position, and whether Q is on the curve.
 *
 * With 1 ≤ d < n and Q ≠ O on the curve (whose order n is prime) d·Q is
 * never the point at infinity; should it be (a fault), the kernels answer
 * zeros and a status 0, and the host recomputes the element on the CPU.
 *
 * Values travel as 8 little-endian words, limb-major (dialect.h's LIMB),
 * in plain form; the kernels move them into Montgomery form (p256.h).
 */
#include "p256_comb.h"
#include "p256_jacobian.h"

/* ecdh_p256_mult's recoding. Only x(d·Q) is wanted, and x(−P) = x(P), so
 * the multiplication may use d' = d or n − d, whichever is odd (n is odd):
 * d'·Q = ±d·Q. An odd d' has a form whose digits are all odd (Joye and
 * Tunstall's regular recoding): with s_i = 2·u_i − 15 for the nibbles
 * u_i of U (so s_i ∈ {±1, ±3, …, ±15}),
 *   Σ_{i<L} s_i·16^i = 2·U − (16^L − 1),  so  U = (d' − 1)/2 + 16^L/2.
 * L = 64 digits suffice, not the 65 of radix16.h: (d' − 1)/2 < 2^255 for
 * d' < n < 2^256, so U = (d' >> 1) + 2^255 holds in 256 bits, and its top
 * bit makes u_63 ≥ 8, the top digit s_63 ≥ 1. No digit is 0, so the
 * multiplication never adds the point at infinity and never starts from
 * it.
 *
 * u = U for d in 8 little-endian words, 1 ≤ d < n; constant time: n − d
 * is computed for every d and kept by a mask of d's low bit. n − d is the
 * plain difference, so d = 0 (which the host refuses) gives d' = n and
 * the point at infinity, as 0·Q should (the last addition adds
 * −s_0·Q to its opposite, ecdh_p256_mult). */
DEVICE_FN void ecdh_p256_recode_odd(u32 *u, const u32 *d)
{
	const u32 order[8] = P256_ORDER;
	u32 odd[8];
	{
		CARRY_DECL;
		SUB_CC(odd[0], order[0], d[0]);
		SUBC_CC(odd[1], order[1], d[1]);
		SUBC_CC(odd[2], order[2], d[2]);
		SUBC_CC(odd[3], order[3], d[3]);
		SUBC_CC(odd[4], order[4], d[4]);
		SUBC_CC(odd[5], order[5], d[5]);
		SUBC_CC(odd[6], order[6], d[6]);
		SUBC(odd[7], order[7], d[7]);
	}
	p256n_cmov(odd, d, 0u - (d[0] & 1u));
	for (int w = 0; w < 7; w++)
		u[w] = (odd[w] >> 1) | (odd[w + 1] << 31);
	u[7] = (odd[7] >> 1) | 0x80000000u;
}

/* nibble u_i of the recoding u, for the digit's position i (public) */
DEVICE_FN u32 ecdh_p256_nibble(const u32 *u, const int i)
{
	return (u[i >> 3] >> ((i & 7) << 2)) & 15u;
}

/* (TX : TY : TZ) = s·Q for the digit s = 2·v − 15 of the nibble v, from
 * multiples, the entries (2j + 1)·Q for j = 0..7, 24 words each (X, Y,
 * Z). s < 0 exactly when v < 8, and |s| = 2j + 1 for j = v − 8 (v ≥ 8)
 * or j = 7 − v (v < 8): v's low three bits, flipped for a negative s.
 * Constant time in v: a masked scan of every entry, negated by mask. */
DEVICE_FN void ecdh_p256_select(u32 *TX, u32 *TY, u32 *TZ, const u32 *multiples, const u32 v)
{
	const u32 negative = ((v >> 3) & 1u) - 1u;
	const u32 entry = (v ^ negative) & 7u;
	for (int w = 0; w < 8; w++)
		TX[w] = TY[w] = TZ[w] = 0;
	/* a loop with its counter as the index (not unrolled), so that the
	 * table stays in local memory rather than in 192 registers */
	_Pragma("unroll 1")
	for (u32 j = 0; j < 8; j++) {
		const u32 m = mask_if_zero(entry ^ j);
		for (int w = 0; w < 8; w++) {
			TX[w] |= multiples[24 * j + w] & m;
			TY[w] |= multiples[24 * j + 8 + w] & m;
			TZ[w] |= multiples[24 * j + 16 + w] & m;
		}
	}
	u32 negY[8];
	p256_neg(negY, TY);
	p256_cmov(TY, negY, negative);
}

/* (X : Y : Z) = ±d·(x, y), Jacobian (p256_jacobian.h): the same x as
 * d·(x, y), which is all ECDH outputs. For d in 8 little-endian words
 * with 1 ≤ d < n and (x, y) affine on the curve, Montgomery coordinates;
 * constant time in d. The multiplication is d'·Q over the 64 odd digits
 * of ecdh_p256_recode_odd: A = s_63·Q, then per digit i = 62..0 four
 * doublings and A += s_i·Q, in place.
 *
 * The Jacobian additions are not complete (p256_jacobian.h): they need
 * A and T = s_i·Q finite and A ≠ ±T. T is finite (|s_i| ≤ 15 < n). Before
 * digit i, A = 16·P·Q for P = Σ_{j>i} s_j·16^(j−i−1), the value of the
 * digits above i. P ≥ 1: the top digit is ≥ 1 and the k digits below it
 * are ≥ −15, so P ≥ 16^k − 15·(16^k − 1)/15 = 1. The digits up to i sum
 * to more than −16^(i+1), so 16^(i+1)·P < d' + 16^(i+1), and
 * 16·P < d'/16^i + 16. A = ±T needs 16·P ∓ s_i ≡ 0 (mod n); 16·P ∓ s_i
 * is odd (even ∓ odd), so never 0:
 *   - for i ≥ 1, 1 ≤ 16·P ∓ s_i < n/16 + 31 < n, so A ≠ ±T, and A is
 *     finite (0 < 16·P < n);
 *   - for i = 0, 16·P = d' − s_0 lies in [16, n + 13] and is even, n
 *     odd, so A is finite; A = −T means d' ≡ 0, impossible for
 *     1 ≤ d' < n; A = T means d' ≡ 2·s_0 (mod n), and with d' odd and
 *     |2·s_0| ≤ 30 that is d' = n + 2·s_0 with s_0 < 0, where s_0 must
 *     be that d''s own last digit. n ≡ 17 (mod 32), so d' = n + 2·s_0 has
 *     u_0 = ((17 + 2·s_0) mod 32) >> 1, and 2·u_0 − 15 = s_0 holds for
 *     s_0 = −1 alone (−3 gives −5, −5 gives −9, ..., −15 gives 3):
 *     d' = n − 2, from d = n − 2 (odd) or d = 2 (even, d' = n − d),
 *     where A = (n − 1)·Q = −Q = T.
 * So the last addition also doubles T (after the addition, which reads
 * T and leaves it) and takes 2·T where the addition reports A = T
 * (TestECDHKernels has both keys). The table's entries (2j + 1)·Q are
 * built as 2·Q, then (2j − 1)·Q + 2·Q, which meets no exception either:
 * (2j − 1)·Q = ±2·Q needs (2j − 1) ∓ 2 ≡ 0 (mod n), an odd number of size
 * at most 15. */
DEVICE_FN void ecdh_p256_mult(u32 *X, u32 *Y, u32 *Z, const u32 *d, const u32 *x, const u32 *y)
{
	/* multiples[24·j ..] = (2j + 1)·Q, Jacobian; local memory (see
	 * ecdh_p256_select) */
	u32 multiples[8 * 24];
	for (int w = 0; w < 8; w++) {
		multiples[w] = x[w];
		multiples[8 + w] = y[w];
	}
	p256_set_one(multiples + 16);
	/* 2·Q, held in the result's place until the table is built */
	p256_jacobian_double(X, Y, Z, multiples, multiples + 8, multiples + 16);
	_Pragma("unroll 1")
	for (int j = 1; j < 8; j++)
		p256_jacobian_add(multiples + 24 * j, multiples + 24 * j + 8, multiples + 24 * j + 16,
			multiples + 24 * (j - 1), multiples + 24 * (j - 1) + 8, multiples + 24 * (j - 1) + 16,
			X, Y, Z);

	u32 u[8], TX[8], TY[8], TZ[8];
	ecdh_p256_recode_odd(u, d);
	ecdh_p256_select(X, Y, Z, multiples, ecdh_p256_nibble(u, 63));   /* s_63 ≥ 1 */
	_Pragma("unroll 1")
	for (int i = 62; i >= 0; i--) {
		for (int k = 0; k < 4; k++)
			p256_jacobian_double(X, Y, Z, X, Y, Z);
		ecdh_p256_select(TX, TY, TZ, multiples, ecdh_p256_nibble(u, i));
		const u32 same = p256_jacobian_add(X, Y, Z, X, Y, Z, TX, TY, TZ);
		if (i == 0) {                   /* the last addition, where A = T can occur */
			p256_jacobian_double(TX, TY, TZ, TX, TY, TZ);
			p256_jacobian_cmov(X, Y, Z, TX, TY, TZ, same);
		}
	}
}

/* The affine coordinates of a batch's points take one field inversion
 * per group of points, Montgomery's simultaneous inversion as
 * ecdsa_p256_sign_finish does: ecdh_p256_shared_point and
 * ecdh_p256_public_point leave each point in Jacobian coordinates,
 * ecdh_p256_finish (one work-item per group) makes them affine.
 *
 * points: 24 rows of count words, limb-major, secret (the Jacobian
 * coordinates of d·Q reveal bits of d; the host zeroes the buffer): X, Y,
 * Z (Montgomery form) of d·Q or −d·Q (ecdh_p256_mult: the same x, the only
 * coordinate ecdh_p256_finish reads for shared secrets); Z is zero where
 * the peer's point (peers: x then y) is not on the curve (all zeros then),
 * or the point is at infinity. secrets: d. */
KERNEL void ecdh_p256_shared_point(GLOBAL u32 *RESTRICT points, GLOBAL const u32 *RESTRICT peers,
	GLOBAL const u32 *RESTRICT secrets, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 d[8], x[8], y[8];
	for (int j = 0; j < 8; j++) {
		d[j] = LIMB(secrets + i, j, count);
		x[j] = LIMB(peers + i, j, count);
		y[j] = LIMB(peers + i, 8 + j, count);
	}
	p256_to_mont(x, x);
	p256_to_mont(y, y);
	if (!p256_on_curve(x, y)) {    /* a public point: may branch */
		for (int j = 0; j < 24; j++)
			LIMB(points + i, j, count) = 0;
		return;
	}
	u32 X[8], Y[8], Z[8];
	ecdh_p256_mult(X, Y, Z, d, x, y);
	for (int j = 0; j < 8; j++) {
		LIMB(points + i, j, count) = X[j];
		LIMB(points + i, 8 + j, count) = Y[j];
		LIMB(points + i, 16 + j, count) = Z[j];
	}
}

/* points as for ecdh_p256_shared_point: d·G by the comb; secrets: d */
KERNEL void ecdh_p256_public_point(GLOBAL u32 *RESTRICT points, GLOBAL const u32 *RESTRICT secrets,
	GLOBAL const u32 *RESTRICT comb, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 d[8], X[8], Y[8], Z[8];
	for (int j = 0; j < 8; j++)
		d[j] = LIMB(secrets + i, j, count);
	p256_base_mult(X, Y, Z, d, comb);
	for (int j = 0; j < 8; j++) {
		LIMB(points + i, j, count) = X[j];
		LIMB(points + i, 8 + j, count) = Y[j];
		LIMB(points + i, 16 + j, count) = Z[j];
	}
}

/* Z of element i (Montgomery), 0 replaced by 1 so that a point at
 * infinity leaves its group's product intact; returns all ones for such
 * a point */
DEVICE_FN u32 ecdh_p256_denominator(u32 *z, GLOBAL const u32 *points, const u32 i, const u32 count)
{
	u32 one[8];
	for (int j = 0; j < 8; j++)
		z[j] = LIMB(points + i, 16 + j, count);
	const u32 infinity = p256_is_zero(z);
	p256_set_one(one);
	p256_cmov(z, one, infinity);
	return infinity;
}

/* writes element i's result from its point and 1/Z (Montgomery): for
 * shared secrets (public_keys 0) x = X/Z^2 and a status word, 1, or 0 with
 * zeros for the point at infinity; for public keys (public_keys 1) x and
 * y = Y/Z^3, zeros for the point at infinity */
DEVICE_FN void ecdh_p256_store(GLOBAL u32 *results, GLOBAL const u32 *points, const u32 i,
	const u32 count, const u32 *zinv, const u32 infinity, const u32 public_keys)
{
	u32 v[8], z2[8], x[8];
	p256_sqr(z2, zinv);
	for (int j = 0; j < 8; j++)
		v[j] = LIMB(points + i, j, count);
	p256_mul(x, v, z2);
	p256_from_mont(x, x);
	for (int j = 0; j < 8; j++)
		LIMB(results + i, j, count) = x[j] & ~infinity;
	if (!public_keys) {                 /* the same for the whole launch */
		LIMB(results + i, 8, count) = ~infinity & 1u;
		return;
	}
	p256_mul(z2, z2, zinv);
	for (int j = 0; j < 8; j++)
		v[j] = LIMB(points + i, 8 + j, count);
	p256_mul(v, v, z2);
	p256_from_mont(v, v);
	for (int j = 0; j < 8; j++)
		LIMB(results + i, 8 + j, count) = v[j] & ~infinity;
}

/* results: for shared secrets (public_keys 0) 9 rows of count words, limb-major,
 * the x-coordinate of d·Q and a status (1 for a shared secret; 0 and
 * zeros where the peer's point is off the curve or d·Q is the point at
 * infinity); for public keys (public_keys 1) 16 rows, d·G affine, x then y, or
 * zeros for the point at infinity (d ≡ 0 mod n, which the host refuses).
 * One work-item per group: with G = groups, work-item g takes the
 * elements g, g + G, g + 2G, ... below count (batch_invert.h's groups);
 * results' first 8 rows hold the prefix products of the Z until the
 * backward pass writes each element's result over them.
 *
 * Constant time: loop bounds and indices depend on count, G and the
 * work-item only; the coordinates feed arithmetic and masks only. */
KERNEL void ecdh_p256_finish(GLOBAL u32 *RESTRICT results, GLOBAL const u32 *RESTRICT points,
	const u32 count, const u32 groups, const u32 public_keys)
{
	const u32 g = GID();
	if (g >= groups || g >= count) return;
	u32 acc[8], z[8], zinv[8];
	(void)ecdh_p256_denominator(acc, points, g, count);
	for (int j = 0; j < 8; j++)
		LIMB(results + g, j, count) = acc[j];
	u32 last = g;
	for (u32 i = g + groups; i < count; i += groups) {
		(void)ecdh_p256_denominator(z, points, i, count);
		p256_mul(acc, acc, z);
		for (int j = 0; j < 8; j++)
			LIMB(results + i, j, count) = acc[j];
		last = i;
	}
	p256_invert(acc, acc);              /* 1 / (Z_0 ⋯ Z_last) */
	for (u32 i = last; i != g; i -= groups) {
		for (int j = 0; j < 8; j++)
			zinv[j] = LIMB(results + (i - groups), j, count);
		p256_mul(zinv, zinv, acc);      /* 1 / Z_i */
		const u32 infinity = ecdh_p256_denominator(z, points, i, count);
		p256_mul(acc, acc, z);
		ecdh_p256_store(results, points, i, count, zinv, infinity, public_keys);
	}
	const u32 infinity = ecdh_p256_denominator(z, points, g, count);
	ecdh_p256_store(results, points, g, count, acc, infinity, public_keys);
}
