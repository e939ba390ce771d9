/* lanes.h: LANES consecutive work-items ("lanes") working on one number.
 *
 * A multi-thread kernel splits each number over a group of LANES lanes
 * (a power of two, 2..32) and exchanges words between the lanes of a group
 * with lanes_shfl. Two implementations:
 *
 *   NVIDIA (inline PTX, the limb layer's PTX path): shfl.sync.idx.b32 over
 *   segments of LANES lanes of a warp (ptx_shfl_idx in limb_ptx.h). No
 *   memory, no barrier.
 *
 *   everywhere else: a word of local memory per work-item, written, a
 *   work-group barrier, read, and a second barrier before the next write.
 *
 * Rules for kernels (both paths rely on them):
 *   - every work-item of a work-group calls every lanes_* function the same
 *     number of times: no early return and no lane-dependent branch around
 *     an exchange. Pad the batch to whole work-groups and mask the stores.
 *   - the work-group size is LANES_WG (a multiple of 32 and of LANES);
 *     the kernel takes the scratch as its last argument, a local buffer of
 *     LANES_WG words (device.Local(4·LANES_WG) on the host, declared with
 *     LOCAL_ARG and bound with LOCAL_BIND: dialect.h; unused on the
 *     shuffle path), and passes it to lanes_init. (An array declared at
 *     kernel scope instead gave wrong results on PoCL 5.0 as soon as two
 *     work-groups ran at once: the argument form is what every OpenCL
 *     implementation allocates per work-group.)
 *   - the source lane index of lanes_shfl may differ between lanes (it is
 *     a lane number inside the group, 0..LANES-1); it is never secret-
 *     dependent in this tree (the exchange pattern is the same for every
 *     number), so neither path leaks through it.
 */
#pragma once
#include "limb.h"

#ifndef LANES
#error "lanes.h: define LANES (threads per number)"
#endif
#if LANES < 2 || LANES > 32 || (LANES & (LANES - 1)) != 0
#error "lanes.h: LANES must be a power of two in 2..32"
#endif
#ifndef LANES_WG
#define LANES_WG 128
#endif

typedef struct {
	LOCAL_PTR u32 *buf; /* portable path: LANES_WG words of local memory */
	u32 lane;           /* this work-item's index in its group, 0..LANES-1 */
	u32 base;           /* local id of lane 0 of the group */
} lanes_t;

#if defined(LIMB_PATH_PTX)
#define LANES_PATH_SHFL 1
#else
#define LANES_PATH_LOCAL 1
#endif

DEVICE_FN lanes_t lanes_init(LOCAL_PTR u32 *scratch) {
	lanes_t L;
	L.buf = scratch;
	L.lane = LID() & (LANES - 1);
	L.base = LID() & ~(u32)(LANES - 1);
	return L;
}

/* The element of the caller's group for a launch of LANES work-items per
 * element: GID()/LANES, or for the groups past count (the launch is
 * rounded up to whole work-groups) a copy of the last element, with
 * *valid cleared (such groups compute and must store nothing). */
DEVICE_FN u32 lanes_element(const u32 count, u32 *valid)
{
	const u32 g = GID() / LANES;
	*valid = g < count ? 1u : 0u;
	return *valid ? g : count - 1u;
}

/* lanes_shfl returns v of lane src (0..LANES-1) of the caller's group. */
DEVICE_FN u32 lanes_shfl(lanes_t L, u32 v, u32 src) {
#if defined(LANES_PATH_SHFL)
	return ptx_shfl_idx(v, src, ((32 - LANES) << 8) | 31);
#else
	L.buf[L.base + L.lane] = v;
	BARRIER_LOCAL();
	u32 r = L.buf[L.base + (src & (LANES - 1))];
	BARRIER_LOCAL();
	return r;
#endif
}

/* lanes_down returns v of lane (lane + 1), and fill in the last lane. */
DEVICE_FN u32 lanes_down(lanes_t L, u32 v, u32 fill) {
	u32 r = lanes_shfl(L, v, (L.lane + 1) & (LANES - 1));
	return L.lane == LANES - 1 ? fill : r;
}

/* lanes_up_by returns v of lane (lane - d), and fill in lanes below d. */
DEVICE_FN u32 lanes_up_by(lanes_t L, u32 v, u32 d, u32 fill) {
	u32 r = lanes_shfl(L, v, (L.lane - d) & (LANES - 1));
	return L.lane < d ? fill : r;
}

/* lanes_up returns v of lane (lane - 1), and fill in lane 0. */
DEVICE_FN u32 lanes_up(lanes_t L, u32 v, u32 fill) {
	return lanes_up_by(L, v, 1, fill);
}

/* lanes_carry_in resolves a ripple over the lanes of a group, each lane
 * holding the low part of one multi-word number: g is 1 when the lane
 * produces a carry (or borrow) by itself, p is 1 when it passes one on
 * (g and p never both 1). It returns the carry into this lane, by a
 * parallel prefix (Kogge–Stone) in log2(LANES) exchanges of (g, p). For
 * the top lane's carry out, pass its g | (p & carry_in). */
DEVICE_FN u32 lanes_carry_in(lanes_t L, u32 g, u32 p) {
	for (u32 d = 1; d < LANES; d <<= 1) {
		const u32 gd = lanes_up_by(L, g, d, 0);
		const u32 pd = lanes_up_by(L, p, d, 0);
		g |= p & gd;
		p &= pd;
	}
	return lanes_up(L, g, 0);
}
