/* modexp_fp64_mt.cl: batched modular exponentiation on the floating-point
 * Montgomery product with LANES work-items per element (modexp_fp64_mt.h
 * has the build options). Same kernel name and arguments as modexp.cl plus
 * the lanes' scratch (lanes.h); `ones` is not read (the kernel derives R'
 * mod m itself). Launch LANES work-items per element in work-groups of
 * LANES_WG (the global size rounded up: the groups past count compute a
 * copy of the last element and store nothing). The table holds
 * WINDOW_SIZE entries of LANES·FP64_S 64-bit digits per element
 * (arith.Mont.TableWords). */
#include "modexp_fp64_mt.h"

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
	GLOBAL const u32 *e = eper ? exp + i : exp + k;
	f64mt_modexp(L, out + i, base + i, count, e, eper ? count : K, ewords, mods + k, r2s + k, K, n0s[k],
		(GLOBAL u64 *)table, i, count, valid);
}
