/* mask.h: the all-ones-or-zero masks of constant-time code, which select
 * with & and | where a branch or an index would tell the value. */
#pragma once
#include "dialect.h"

/* all ones when x is 0, else 0, without a branch */
DEVICE_FN u32 mask_if_zero(const u32 x)
{
	return ((x | (0u - x)) >> 31) - 1u;
}
