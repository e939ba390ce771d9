/* batch_invert.h: u = X/Z for a whole batch with one field inversion per
 * group of elements (Montgomery's simultaneous inversion), written once for
 * both curves. The ladder and comb kernels built as LADDER_XZ_KERNEL and
 * COMB_XZ_KERNEL leave (X, Z) here instead of inverting each Z by Fermat.
 * The including file defines
 *   FE(op), NL             as for ladder.h
 *   BATCH_INVERT_KERNEL    the kernel's name
 *
 * Groups. The kernel runs one work-item per group; the host picks the
 * number of groups G = ceil(count / K) for a group size K (a run-time
 * argument, so one build serves every K). Work-item g takes the elements
 * g, g + G, g + 2G, ... below count: at most K of them, and the group sizes
 * differ by at most one. Taking every G-th element rather than K
 * consecutive ones keeps the loads and stores of neighbouring work-items
 * on neighbouring words of the limb-major batches (coalesced). The groups
 * depend on count and G only, never on the data.
 *
 * In a group z_0, ..., z_(n−1) (with x_i the numerators):
 *   forward   p_0 = z_0, p_i = p_(i−1)·z_i, each p_i stored in out[i]
 *   one inversion of p_(n−1) by Fermat
 *   backward  for i = n−1 … 1: inv(z_i) = inv(p_i)·p_(i−1),
 *             inv(p_(i−1)) = inv(p_i)·z_i, u_i = x_i·inv(z_i);
 *             then u_0 = x_0·inv(p_0)
 * that is 4n − 3 multiplications and one inversion per group, against n
 * inversions and n multiplications one element at a time.
 *
 * Zero denominators. Z ≡ 0 (mod p) for a low-order peer point (the all-zero
 * shared secret) and for the neutral element of the X448 comb (k = 4q);
 * one such z would make p_(n−1) zero and every u of its group 0. So each z
 * is tested after canonical reduction (it may arrive as p or 2p), replaced
 * by 1 under an all-ones mask before it enters the products, and the same
 * mask clears that element's u: the result is 0, exactly the per-element
 * x·0^(p−2). Masks, never branches; the products of the other elements
 * are unchanged.
 *
 * Constant time: loop bounds and memory indices depend on count, G and the
 * work-item index only; the data (secret-derived X and Z) only feed field
 * arithmetic and masks. out holds the prefix products until the backward
 * pass overwrites each of them with its u.
 */
#include "mask.h"

/* z = canonical z with 0 replaced by 1; returns all ones where z ≡ 0 */
DEVICE_FN u32 binv_load_z(u32 *z, GLOBAL const u32 *zp, const u32 stride)
{
	u32 acc = 0;
	for (int j = 0; j < NL; j++)
		z[j] = LIMB(zp, j, stride);
	FE(canon)(z);
	for (int j = 0; j < NL; j++)
		acc |= z[j];
	const u32 m = mask_if_zero(acc);
	z[0] |= m & 1u;
	return m;
}

/* out[i] = canonical X_i/Z_i (0 where Z_i ≡ 0) over limb-major batches:
 * xz[i] holds X_i and xz[NL·count + i] holds Z_i (loosely reduced), as the
 * *_xz kernels write them; groups (argument) = G ≥ ceil(count / K). */
KERNEL void BATCH_INVERT_KERNEL(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT xz,
	const u32 count, const u32 groups)
{
	const u32 g = GID();
	if (g >= groups || g >= count) return;
	GLOBAL const u32 *zs = xz + NL * count;
	u32 acc[NL], z[NL], t[NL];

	/* forward: out[i] = product of the group's z up to element i */
	binv_load_z(acc, zs + g, count);
	for (int j = 0; j < NL; j++)
		LIMB(out + g, j, count) = acc[j];
	u32 last = g;
	for (u32 i = g + groups; i < count; i += groups) {
		binv_load_z(z, zs + i, count);
		FE(mul)(acc, acc, z);
		for (int j = 0; j < NL; j++)
			LIMB(out + i, j, count) = acc[j];
		last = i;
	}

	FE(invert)(acc, acc);               /* 1 / (z_0 ⋯ z_(n−1)) */

	/* backward: acc = 1 / (z_0 ⋯ z_i) on entry to step i */
	for (u32 i = last; i != g; i -= groups) {
		for (int j = 0; j < NL; j++)
			t[j] = LIMB(out + (i - groups), j, count);
		FE(mul)(t, t, acc);             /* 1 / z_i */
		const u32 m = binv_load_z(z, zs + i, count);
		FE(mul)(acc, acc, z);           /* 1 / (z_0 ⋯ z_(i−1)) */
		for (int j = 0; j < NL; j++)
			z[j] = LIMB(xz + i, j, count);
		FE(mul)(t, z, t);
		FE(canon)(t);
		for (int j = 0; j < NL; j++)
			LIMB(out + i, j, count) = t[j] & ~m;
	}
	const u32 m = binv_load_z(z, zs + g, count);
	for (int j = 0; j < NL; j++)
		z[j] = LIMB(xz + g, j, count);
	FE(mul)(t, z, acc);
	FE(canon)(t);
	for (int j = 0; j < NL; j++)
		LIMB(out + g, j, count) = t[j] & ~m;
}
