/* exp_window.h: the parts of fixed-window exponentiation that do not
 * depend on how a number is held (one work-item or a group of lanes):
 * the window of exponent bits at a public position and the constant-time
 * equality mask of the table scans. Built with WINDOW (1..6). */
#pragma once
#include "dialect.h"

#define WINDOW_SIZE (1u << WINDOW)

/* All ones when a == b, else zero; a ^ b < 2^31. No branch. */
DEVICE_FN u32 ct_eq_mask(const u32 a, const u32 b)
{
	return 0u - (((a ^ b) - 1u) >> 31);
}

/* The window of exponent bits [pos, pos + WINDOW) (bits past ewords·32 are
 * zero). pos is public. */
DEVICE_FN u32 mx_window(GLOBAL const u32 *e, const u32 estride, const u32 ewords, const u32 pos)
{
	const u32 w = pos >> 5, s = pos & 31u;
	u32 d = LIMB(e, w, estride) >> s;
	if (s + WINDOW > 32u && w + 1u < ewords)
		d |= LIMB(e, w + 1u, estride) << (32u - s);
	return d & (WINDOW_SIZE - 1u);
}
