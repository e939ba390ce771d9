/* mlkem_test.cl: the ring arithmetic of kernels/mlkem_poly.h and the
 * sampling of kernels/mlkem_pke.h, one polynomial per work-item.
 * Polynomials travel as 256 words, a coefficient each. */
#include "mlkem_pke.h"

DEVICE_FN void load_poly(mlkem_coeff *f, GLOBAL const u32 *in)
{
	for (u32 x = 0; x < MLKEM_N; x++)
		f[x] = (mlkem_coeff)in[x];
}

DEVICE_FN void store_poly(GLOBAL u32 *out, const mlkem_coeff *f)
{
	for (u32 x = 0; x < MLKEM_N; x++)
		out[x] = f[x];
}

/* the NTT (inverse 0) or the inverse NTT (inverse 1) of each polynomial */
KERNEL void ntt_test(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT in,
	GLOBAL const u32 *RESTRICT table, const u32 inverse, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	mlkem_coeff f[MLKEM_N];
	load_poly(f, in + i * MLKEM_N);
	if (inverse)
		mlkem_inverse_ntt(f, table);
	else
		mlkem_ntt(f, table);
	store_poly(out + i * MLKEM_N, f);
}

/* a ∘ b, the NTT-domain product, of each pair */
KERNEL void mul_test(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT a, GLOBAL const u32 *RESTRICT b,
	GLOBAL const u32 *RESTRICT table, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	mlkem_coeff f[MLKEM_N], g[MLKEM_N], acc[MLKEM_N];
	load_poly(f, a + i * MLKEM_N);
	load_poly(g, b + i * MLKEM_N);
	mlkem_to_mont(g);
	mlkem_poly_zero(acc);
	mlkem_mul_acc(acc, f, g, table);
	store_poly(out + i * MLKEM_N, acc);
}

/* work-item i: Compress_d(i mod q) and Decompress_d(i mod 2^d) for d the
 * (i / 4096)-th of 1, 4, 5, 10, 11, in the low and high 16 bits */
KERNEL void compress_test(GLOBAL u32 *RESTRICT out, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	const u32 ds[5] = {1, 4, 5, 10, 11};
	const u32 d = ds[i / 4096];
	out[i] = mlkem_compress((i % 4096) % MLKEM_Q, d) | (mlkem_decompress((i % 4096) & ((1u << d) - 1u), d) << 16);
}

/* SamplePolyCBD_2(PRF(seed, nonce)) for each seed (8 words) and nonce (a
 * word) */
KERNEL void cbd_test(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT seeds, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 seed[8];
	for (u32 x = 0; x < 8; x++)
		seed[x] = seeds[9 * i + x];
	mlkem_coeff f[MLKEM_N];
	mlkem_poly_zero(f);
	mlkem_cbd2_add(f, seed, seeds[9 * i + 8]);
	store_poly(out + i * MLKEM_N, f);
}

/* SampleNTT(ρ ‖ x ‖ y) for each ρ (8 words), x and y (a word each): the
 * sampler's products with the polynomial whose NTT-domain pairs are all
 * (1, 0), the sampled polynomial itself */
KERNEL void sample_test(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT rhos,
	GLOBAL const u32 *RESTRICT table, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 rho[8];
	for (u32 x = 0; x < 8; x++)
		rho[x] = rhos[10 * i + x];
	mlkem_coeff one[MLKEM_N], acc[MLKEM_N];
	for (u32 x = 0; x < MLKEM_N; x++)
		one[x] = (mlkem_coeff)((x & 1u) ? 0u : 1u);
	mlkem_to_mont(one);
	mlkem_poly_zero(acc);
	mlkem_sample_mul_acc(acc, one, rho, rhos[10 * i + 8], rhos[10 * i + 9], table);
	store_poly(out + i * MLKEM_N, acc);
}

/* ByteEncode_d(Compress_d(f)) (8·d words) of each polynomial, then
 * Decompress_d(ByteDecode_d) of those words, for d = ds[i] */
KERNEL void codec_test(GLOBAL u32 *RESTRICT encoded, GLOBAL u32 *RESTRICT decoded, GLOBAL const u32 *RESTRICT in,
	GLOBAL const u32 *RESTRICT ds, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	mlkem_coeff f[MLKEM_N];
	load_poly(f, in + i * MLKEM_N);
	u32 at = 0, diff = 0;
	mlkem_compress_encode(f, ds[i], encoded + i * 88, 0, &at, &diff);
	mlkem_decode_decompress(f, ds[i], encoded + i * 88);
	store_poly(decoded + i * MLKEM_N, f);
}
