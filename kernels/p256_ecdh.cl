/* p256_ecdh.cl: batched ECDH over P-256, one work-item per element (per
 * group of elements for the last step): the primitive of SP 800-56A
 * §5.7.1.2 as crypto/ecdh computes it, and public keys.
 *
 * Shared secrets (ecdh_p256_shared_point, then ecdh_p256_finish): for the
 * private scalar d (secret; the host checks 1 ≤ d < n) and the peer's
 * public point Q = (x, y) (the host checks x, y < p; the kernel checks
 * that Q is on the curve), the x-coordinate of d·Q. d·Q is a fixed-window
 * multiplication over the 65 signed radix-16 digits of d (radix16.h: any
 * 256-bit d; digits in [−8, 7], the top one 0 or 1), from a table of
 * 1·Q … 8·Q in local memory: per digit four doublings and one addition in
 * Jacobian coordinates (p256_jacobian.h), whose exceptions ecdh_p256_mult
 * handles with masks.
 *
 * Public keys (ecdh_p256_public_point, then ecdh_p256_finish): d·G by the
 * constant-time comb of p256_comb.h.
 *
 * ecdh_p256_finish makes the points affine with one field inversion per
 * group of points (below).
 *
 * Constant time in d: each digit's entry is picked by a masked scan of all
 * eight (no index depends on d), negated by a masked select; the sum is
 * computed for every digit and a zero digit or an accumulator at infinity
 * picks its result by mask; the inversions are Fermat's with a fixed
 * exponent (mont256.h) over products of the group's Z. The only branches
 * are on public values: the digit's position, and whether Q is on the
 * curve.
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
#include "radix16.h"

/* (X : Y : Z) = d·(x, y), Jacobian (p256_jacobian.h), for d in 8
 * little-endian words with 1 ≤ d < n and (x, y) affine on the curve,
 * Montgomery coordinates; constant time in d.
 *
 * The Jacobian additions are not complete (p256_jacobian.h). The point at
 * infinity as either input is handled by masks: the accumulator A is the
 * point at infinity until the first nonzero digit, and a digit 0 adds
 * nothing. A = ±T for the entry T = s_i·Q otherwise needs
 * 16·P ≡ ±s_i (mod n), where P = Σ_{j>i} s_j·16^(j−i−1) is the value of
 * the digits above i, so A = 16·P·Q. For i ≥ 1, |16·P| < d/16^i + 16 < n/2
 * and |s_i| ≤ 8, so the congruence is an equality of integers, and
 * 16·P = ±s_i has no solution but P = 0, s_i = 0 — both handled by the
 * masks. Only the last addition (i = 0) can meet A = T: there
 * d = 16·P + s_0 and A = T means d ≡ 2·s_0 (mod n), which one valid key
 * satisfies: d = n − 2, whose last digit is −1 (n ≡ 1 mod 16), so that
 * A = (n − 1)·Q = −Q = T. So the last addition also doubles A and takes
 * the doubling where the addition reports P1 = P2 (TestECDHKernels has
 * that key). (A = −T there means
 * d ≡ 0, which gives the point at infinity, as it should.) The table's
 * entries j·Q, j = 1..8, are distinct and finite (n is a prime above 8),
 * so building it meets no exception either. */
DEVICE_FN void ecdh_p256_mult(u32 *X, u32 *Y, u32 *Z, const u32 *d, const u32 *x, const u32 *y)
{
	/* multiples[j] = (j + 1)·Q, Jacobian. The scan below reads them with
	 * its loop counter as the index (a loop, not unrolled), so they live
	 * in local memory rather than in 192 registers. */
	u32 multiples[8][24];
	for (int w = 0; w < 8; w++) {
		multiples[0][w] = x[w];
		multiples[0][8 + w] = y[w];
	}
	p256_set_one(multiples[0] + 16);
	p256_jacobian_double(multiples[1], multiples[1] + 8, multiples[1] + 16,
		multiples[0], multiples[0] + 8, multiples[0] + 16);
	_Pragma("unroll 1")
	for (int j = 2; j < 8; j++)
		p256_jacobian_add(multiples[j], multiples[j] + 8, multiples[j] + 16,
			multiples[j - 1], multiples[j - 1] + 8, multiples[j - 1] + 16,
			multiples[0], multiples[0] + 8, multiples[0] + 16);

	u32 s[9], PX[8], PY[8], PZ[8], SX[8], SY[8], SZ[8], negY[8];
	radix16_recode(s, d);
	for (int w = 0; w < 8; w++)
		X[w] = Y[w] = Z[w] = 0;         /* the point at infinity */
	_Pragma("unroll 1")
	for (int i = 64; i >= 0; i--) {
		if (i != 64)                    /* the digit's position: public */
			for (int dbl = 0; dbl < 4; dbl++)
				p256_jacobian_double(X, Y, Z, X, Y, Z);
		const u32 digit = (u32)radix16_digit(s, i);   /* two's complement */
		const u32 neg = 0u - (digit >> 31);
		const u32 absd = (digit ^ neg) - neg;
		/* T = |digit|·Q by a masked scan of every entry (zeros for 0) */
		for (int w = 0; w < 8; w++)
			PX[w] = PY[w] = PZ[w] = 0;
		_Pragma("unroll 1")
		for (u32 n = 1; n <= 8; n++) {
			const u32 m = mask_if_zero(absd ^ n);
			for (int w = 0; w < 8; w++) {
				PX[w] |= multiples[n - 1][w] & m;
				PY[w] |= multiples[n - 1][8 + w] & m;
				PZ[w] |= multiples[n - 1][16 + w] & m;
			}
		}
		p256_neg(negY, PY);
		p256_cmov(PY, negY, neg);
		const u32 infinity = p256_is_zero(Z);       /* A, the point at infinity */
		const u32 same = p256_jacobian_add(SX, SY, SZ, X, Y, Z, PX, PY, PZ);
		if (i == 0) {                   /* the last addition, where A = T can occur */
			u32 DX[8], DY[8], DZ[8];
			p256_jacobian_double(DX, DY, DZ, X, Y, Z);
			p256_jacobian_cmov(SX, SY, SZ, DX, DY, DZ, same);
		}
		p256_jacobian_cmov(X, Y, Z, SX, SY, SZ, ~mask_if_zero(absd));  /* a digit 0 adds nothing */
		p256_jacobian_cmov(X, Y, Z, PX, PY, PZ, infinity);             /* O + T = T */
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
 * Z (Montgomery form); all zeros where the peer's point (peers: x then y)
 * is not on the curve, or d·Q is the point at infinity. secrets: d. */
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
