/* modexp_mt.cl: batched modular exponentiation with LANES work-items per
 * element (see modexp_mt.h for the build options). Same kernel name,
 * arguments and layouts as modexp.cl plus the lanes' scratch (lanes.h), so
 * the host runs either; launch LANES work-items per element in work-groups
 * of LANES_WG (the global size rounded up: the groups past count compute a
 * copy of the last element and store nothing). */
#include "modexp_mt.h"

KERNEL void modexp(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT base,
	GLOBAL const u32 *RESTRICT exp, const u32 ewords, const u32 eper,
	GLOBAL const u32 *RESTRICT mods, GLOBAL const u32 *RESTRICT ones,
	GLOBAL const u32 *RESTRICT r2s, GLOBAL const u32 *RESTRICT n0s,
	GLOBAL const u32 *RESTRICT midx, const u32 K,
	GLOBAL u32 *RESTRICT table, const u32 count, LOCAL_ARG(u32, scratch))
{
	LOCAL_BIND(u32, scratch);
	const lanes_t L = lanes_init(scratch);
	u32 valid;
	const u32 i = lanes_element(count, &valid);
	const u32 k = midx[i];
	u32 m[MT_S], one[MT_S], r2[MT_S], x[MT_S], r[MT_S];
	mt_load(L, m, mods + k, K);
	mt_load(L, one, ones + k, K);
	mt_load(L, r2, r2s + k, K);
	mt_load(L, x, base + i, count);
	GLOBAL const u32 *e = eper ? exp + i : exp + k;
	modexp_mt(L, r, x, e, eper ? count : K, ewords, m, n0s[k], one, r2, table, i, count, valid);
	if (valid) {
		UNROLL_OUTER
		for (int q = 0; q < MT_S; q++) LIMB(out + i, L.lane * MT_S + q, count) = r[q];
	}
}
