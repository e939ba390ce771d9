/* mlkem_pke.h: K-PKE of FIPS 203 (§5: key generation, encryption,
 * decryption) for k = 3 (ML-KEM-768) and k = 4 (ML-KEM-1024), η1 = η2 = 2,
 * in one work-item. k, d_u and d_v are arguments, constants at every call
 * (the kernels of mlkem.cl), so that each parameter set compiles to code
 * of its own.
 *
 * The matrix Â is read from global memory, where a kernel of its own
 * sampled it (mlkem_sample with an output; mlkem.cl's MLKEM_MATRIX, the
 * engines' form), or, without MLKEM_MATRIX, not stored: each entry is
 * sampled from SHAKE128 (SampleNTT, FIPS 203's Algorithm 7) and
 * multiplied into the sum it belongs to as its coefficients arrive, pair
 * by pair (mlkem_sample_mul_acc), for as long as the rejections need: the
 * XOF stream has no fixed length. Besides the sponges, a work-item holds
 * k + 1 polynomials (the caller's polys, (k + 1)·256 coefficients): the
 * secret or noise vector in Montgomery form, and the sum being formed.
 *
 * Byte strings are words (little-endian): a seed or message of 32 bytes
 * is 8 words, an encoded polynomial of 384 bytes 96.
 *
 * Constant time: the secret values (d, σ, s, e, m, r and the noise) enter
 * arithmetic and the sponges only. The sampling's rejections depend on ρ,
 * which is public (part of the encapsulation key).
 */
#pragma once
#include "mlkem_poly.h"

/* mlkem_sample is SampleNTT(ρ ‖ x ‖ y) (FIPS 203's Algorithm 7), the entry
 * of Â at row y, column x (x is the XOF's first byte: Algorithms 13 and
 * 14): with out null, multiplied into acc, acc += entry ∘ bm (bm in
 * Montgomery form), as its coefficients arrive; else stored at out, 128
 * words of coefficient pairs (coefficient 2p in the low half of word p),
 * for the kernels that read Â (MLKEM_MATRIX). */
DEVICE_FN void mlkem_sample(mlkem_coeff *acc, const mlkem_coeff *bm, GLOBAL u32 *RESTRICT out, const u32 *rho,
	const u32 x, const u32 y, GLOBAL const u32 *RESTRICT table)
{
	keccak_state s;
	shake128_init(&s);
	keccak_absorb_words(&s, rho, 8);
	keccak_absorb_byte(&s, x);
	keccak_absorb_byte(&s, y);
	shake_finish(&s);
	u32 count = 0, even = 0;
	while (count < MLKEM_N) {
		const u32 v = keccak_squeeze_24(&s);
		u32 d[2];
		d[0] = v & 0xfffu;
		d[1] = v >> 12;
		for (u32 t = 0; t < 2; t++) {
			if (d[t] < MLKEM_Q && count < MLKEM_N) {
				if ((count & 1u) == 0)
					even = d[t];
				else if (out)
					out[count >> 1] = even | (d[t] << 16);
				else
					mlkem_pair_mul_acc(acc, count >> 1, even, d[t], bm, table);
				count++;
			}
		}
	}
}

/* acc += SampleNTT(ρ ‖ x ‖ y) ∘ bm */
DEVICE_FN void mlkem_sample_mul_acc(mlkem_coeff *acc, const mlkem_coeff *bm, const u32 *rho,
	const u32 x, const u32 y, GLOBAL const u32 *RESTRICT table)
{
	mlkem_sample(acc, bm, 0, rho, x, y, table);
}

/* acc += entry ∘ bm, for an entry of Â stored by mlkem_sample */
DEVICE_FN void mlkem_entry_mul_acc(mlkem_coeff *acc, const mlkem_coeff *bm, GLOBAL const u32 *RESTRICT entry,
	GLOBAL const u32 *RESTRICT table)
{
	for (u32 p = 0; p < MLKEM_N / 2; p++) {
		const u32 w = entry[p];
		mlkem_pair_mul_acc(acc, p, w & 0xffffu, w >> 16, bm, table);
	}
}

/* mlkem_noise_ntt sets f to NTT(SamplePolyCBD_2(PRF(seed, nonce))) */
DEVICE_FN void mlkem_noise_ntt(mlkem_coeff *f, const u32 *seed, const u32 nonce, GLOBAL const u32 *RESTRICT table)
{
	mlkem_poly_zero(f);
	mlkem_cbd2_add(f, seed, nonce);
	mlkem_ntt(f, table);
}

/* mlkem_keygen is ML-KEM.KeyGen_internal (FIPS 203's Algorithm 16) with
 * K-PKE.KeyGen (Algorithm 13) for the seed d (8 words): it writes the
 * encapsulation key ek = ByteEncode_12(t̂) ‖ ρ (96·k + 8 words) and, when
 * dk_pke is not null, ByteEncode_12(ŝ) (96·k words), and sets h = H(ek).
 * matrix is the key's Â as mlkem_sample stores it, or null: then each
 * entry is sampled here. */
DEVICE_FN void mlkem_keygen(const u32 k, const u32 *d, GLOBAL const u32 *RESTRICT matrix, mlkem_coeff *polys,
	GLOBAL u32 *RESTRICT ek, GLOBAL u32 *RESTRICT dk_pke, u32 *h, GLOBAL const u32 *RESTRICT table)
{
	u32 g[16]; /* (ρ, σ) = G(d ‖ k) */
	keccak_state s;
	sha3_512_init(&s);
	keccak_absorb_words(&s, d, 8);
	keccak_absorb_byte(&s, k);
	sha3_finish(&s);
	keccak_squeeze_words(&s, g, 16);
	const u32 *rho = g, *sigma = g + 8;
	mlkem_coeff *acc = polys + k * MLKEM_N;
	for (u32 j = 0; j < k; j++) {
		mlkem_coeff *sj = polys + j * MLKEM_N;
		mlkem_noise_ntt(sj, sigma, j, table);
		if (dk_pke) {
			for (u32 group = 0; group < MLKEM_N / 8; group++) {
				u32 w[3];
				mlkem_encode12_group(sj + 8 * group, w);
				for (u32 x = 0; x < 3; x++)
					dk_pke[96 * j + 3 * group + x] = w[x];
			}
		}
		mlkem_to_mont(sj);
	}
	keccak_state hs; /* H(ek), absorbed as ek is written */
	sha3_256_init(&hs);
	for (u32 i = 0; i < k; i++) {
		mlkem_noise_ntt(acc, sigma, k + i, table); /* ê_i */
		for (u32 j = 0; j < k; j++) {
			if (matrix)
				mlkem_entry_mul_acc(acc, polys + j * MLKEM_N, matrix + 128u * (k * i + j), table);
			else
				mlkem_sample_mul_acc(acc, polys + j * MLKEM_N, rho, j, i, table);
		}
		for (u32 group = 0; group < MLKEM_N / 8; group++) {
			u32 w[3];
			mlkem_encode12_group(acc + 8 * group, w);
			for (u32 x = 0; x < 3; x++)
				ek[96 * i + 3 * group + x] = w[x];
			keccak_absorb_words(&hs, w, 3);
		}
	}
	for (u32 x = 0; x < 8; x++)
		ek[96 * k + x] = rho[x];
	keccak_absorb_words(&hs, rho, 8);
	sha3_finish(&hs);
	keccak_squeeze_words(&hs, h, 8);
}

/* mlkem_encrypt is K-PKE.Encrypt (FIPS 203's Algorithm 14) of the message
 * m (8 words) under ek with the randomness r (8 words). The ciphertext's
 * 8·(k·d_u + d_v) words are written to out (when not null) and compared
 * with cmp (when not null): the result is the OR of the XORs of each word
 * with cmp's (0: equal), every word compared. ek is public and assumed
 * reduced (the host's modulus check, mlkem_check_ek). matrix is the key's
 * Â as mlkem_sample stores it (entry (y, x) at words 128·(k·y + x)), or
 * null: then each entry is sampled here. */
DEVICE_FN u32 mlkem_encrypt(const u32 k, const u32 du, const u32 dv, GLOBAL const u32 *RESTRICT ek,
	GLOBAL const u32 *RESTRICT matrix, const u32 *m, const u32 *r, mlkem_coeff *polys, GLOBAL u32 *RESTRICT out,
	GLOBAL const u32 *RESTRICT cmp, GLOBAL const u32 *RESTRICT table)
{
	u32 rho[8];
	for (u32 x = 0; x < 8; x++)
		rho[x] = ek[96 * k + x];
	mlkem_coeff *acc = polys + k * MLKEM_N;
	for (u32 j = 0; j < k; j++) {
		mlkem_noise_ntt(polys + j * MLKEM_N, r, j, table); /* r̂_j */
		mlkem_to_mont(polys + j * MLKEM_N);
	}
	u32 at = 0, diff = 0;
	for (u32 i = 0; i < k; i++) { /* u_i = NTT^-1(Σ_j Â[j][i] ∘ r̂_j) + e1_i */
		mlkem_poly_zero(acc);
		for (u32 j = 0; j < k; j++) {
			if (matrix)
				mlkem_entry_mul_acc(acc, polys + j * MLKEM_N, matrix + 128u * (k * j + i), table);
			else
				mlkem_sample_mul_acc(acc, polys + j * MLKEM_N, rho, i, j, table);
		}
		mlkem_inverse_ntt(acc, table);
		mlkem_cbd2_add(acc, r, k + i);
		mlkem_compress_encode(acc, du, out, cmp, &at, &diff);
	}
	/* v = NTT^-1(t̂ ∘ r̂) + e2 + Decompress_1(m) */
	mlkem_poly_zero(acc);
	for (u32 i = 0; i < k; i++) {
		for (u32 group = 0; group < MLKEM_N / 8; group++) {
			u32 t[8];
			GLOBAL const u32 *w = ek + 96 * i + 3 * group;
			mlkem_decode12_group(w[0], w[1], w[2], t);
			for (u32 x = 0; x < 4; x++)
				mlkem_pair_mul_acc(acc, 4 * group + x, t[2 * x], t[2 * x + 1], polys + i * MLKEM_N, table);
		}
	}
	mlkem_inverse_ntt(acc, table);
	mlkem_cbd2_add(acc, r, 2 * k);
	for (u32 i = 0; i < MLKEM_N; i++) {
		const u32 bit = (m[i >> 5] >> (i & 31u)) & 1u;
		acc[i] = (mlkem_coeff)mlkem_add(acc[i], (0u - bit) & ((MLKEM_Q + 1u) / 2u)); /* Decompress_1 */
	}
	mlkem_compress_encode(acc, dv, out, cmp, &at, &diff);
	return diff;
}

/* mlkem_decrypt is K-PKE.Decrypt (FIPS 203's Algorithm 15) of the
 * ciphertext c under dk_pke = ByteEncode_12(ŝ): it sets m (8 words). It
 * uses two of polys' polynomials. */
DEVICE_FN void mlkem_decrypt(const u32 k, const u32 du, const u32 dv, GLOBAL const u32 *RESTRICT dk_pke,
	GLOBAL const u32 *RESTRICT c, mlkem_coeff *polys, u32 *m, GLOBAL const u32 *RESTRICT table)
{
	mlkem_coeff *acc = polys, *u = polys + MLKEM_N;
	mlkem_poly_zero(acc);
	for (u32 i = 0; i < k; i++) { /* ŝ ∘ NTT(u) */
		mlkem_decode_decompress(u, du, c + 8 * du * i);
		mlkem_ntt(u, table);
		mlkem_to_mont(u);
		for (u32 group = 0; group < MLKEM_N / 8; group++) {
			u32 s[8];
			GLOBAL const u32 *w = dk_pke + 96 * i + 3 * group;
			mlkem_decode12_group(w[0], w[1], w[2], s);
			for (u32 x = 0; x < 4; x++)
				mlkem_pair_mul_acc(acc, 4 * group + x, s[2 * x], s[2 * x + 1], u, table);
		}
	}
	mlkem_inverse_ntt(acc, table);
	mlkem_decode_decompress(u, dv, c + 8 * du * k); /* v */
	for (u32 x = 0; x < 8; x++)
		m[x] = 0;
	for (u32 i = 0; i < MLKEM_N; i++) { /* m = ByteEncode_1(Compress_1(v − w)) */
		const u32 bit = mlkem_compress(mlkem_sub(u[i], acc[i]), 1);
		m[i >> 5] |= bit << (i & 31u);
	}
}
