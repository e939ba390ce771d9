/* modexp_fp64.cl: batched modular exponentiation on the floating-point
 * Montgomery multiplication (modexp_fp64.h), one work-item per element.
 * Same kernel name and arguments as modexp.cl, so the host runs either;
 * `ones` is not read (the kernel derives its own R' mod m). The scratch
 * table holds, past the WINDOW_SIZE entries of MONT_W words of every
 * element, each element's multiplier slot: FP64_N 64-bit words, word j of
 * element i at j·count + i (arith.Mont.TableWords counts both). */
#include "modexp_fp64.h"

KERNEL void modexp(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT base,
	GLOBAL const u32 *RESTRICT exp, const u32 ewords, const u32 eper,
	GLOBAL const u32 *RESTRICT mods, GLOBAL const u32 *RESTRICT ones,
	GLOBAL const u32 *RESTRICT r2s, GLOBAL const u32 *RESTRICT n0s,
	GLOBAL const u32 *RESTRICT midx, const u32 K,
	GLOBAL u32 *RESTRICT table, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	const u32 k = midx[i];
	u32 m[MONT_W], r2[MONT_W], r[MONT_W];
	mx_load(m, mods + k, K);
	mx_load(r2, r2s + k, K);
	GLOBAL const u32 *e = eper ? exp + i : exp + k;
	GLOBAL u64 *slots = (GLOBAL u64 *)(table + WINDOW_SIZE * MONT_W * count); /* 8-byte aligned: MONT_W is even */
	fp64_modexp(r, base + i, count, e, eper ? count : K, ewords, m, n0s[k], r2, table + i, count, slots + i);
	mx_store(out + i, count, r);
}

/* Test entry for the conversions: in holds MONT_W words per element
 * (stride count); digits receives the bit patterns of the FP64_N doubles
 * (stride count) and back the words converted back from them. */
KERNEL void fp64_convert(GLOBAL u64 *RESTRICT digits, GLOBAL u32 *RESTRICT back,
	GLOBAL const u32 *RESTRICT in, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 w[MONT_W];
	double d[FP64_N];
	mx_load(w, in + i, count);
	FP64_FROM_WORDS(d, w);
	for (int j = 0; j < FP64_N; j++) LIMB(digits + i, j, count) = F64_BITS(d[j]);
	FP64_TO_WORDS(w, d);
	mx_store(back + i, count, w);
}
