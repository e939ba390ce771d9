/* modexp.cl: batched modular exponentiation, one work-item per element
 * (see modexp.h for the build options). Numbers are limb-major batches
 * (dialect.h); moduli come from a table of K entries chosen per element by
 * midx, so a batch may share one modulus or mix several. Exponents belong
 * to the elements (eper = 1: stride count) or to the moduli (eper = 0:
 * stride K; the CRT halves of RSA keys, say). */
#include "modexp.h"

/* out[i] = base[i]^exp mod mods[midx[i]].
 *   out, base:      W words per element (stride count)
 *   exp:            ewords words per element or per modulus
 *   mods, ones, r2s: W words per modulus (stride K): m, 2^(32W) mod m,
 *                   2^(64W) mod m; n0s: −m^(−1) mod 2^32 per modulus
 *   table:          scratch, WINDOW_SIZE·W words per element (stride count) */
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
	u32 m[MONT_W], one[MONT_W], r2[MONT_W], x[MONT_W], r[MONT_W];
	mx_load(m, mods + k, K);
	mx_load(one, ones + k, K);
	mx_load(r2, r2s + k, K);
	mx_load(x, base + i, count);
	GLOBAL const u32 *e = eper ? exp + i : exp + k;
	modexp_ct(r, x, e, eper ? count : K, ewords, m, n0s[k], one, r2, table + i, count);
	mx_store(out + i, count, r);
}
