/* mlkem.cl: batched ML-KEM (FIPS 203), ML-KEM-768 (k = 3, d_u = 10,
 * d_v = 4) and ML-KEM-1024 (k = 4, d_u = 11, d_v = 5), one work-item per
 * element, results byte for byte crypto/mlkem's:
 *   mlkemK_keygen        encapsulation keys from 64-byte seeds d ‖ z
 *   mlkemK_expand        the expanded decapsulation keys of seeds (FIPS
 *                        203's dk = dk_PKE ‖ ek ‖ H(ek) ‖ z), for
 *                        decapsulation; they stay in device memory
 *   mlkemK_check         the modulus check (FIPS 203 §7.2) and H(ek) of
 *                        encapsulation keys
 *   mlkemK_encapsulate   shared keys and ciphertexts of messages m under
 *                        checked encapsulation keys (ML-KEM.Encaps_internal)
 *   mlkemK_decapsulate   shared keys of ciphertexts under expanded keys
 *                        (ML-KEM.Decaps_internal)
 *   mlkemK_matrix        (MLKEM_MATRIX) the matrix Â of each key of a
 *                        table, a work-item per entry, for the kernels
 *                        above, which then read Â instead of sampling it
 * Byte strings travel as little-endian words, element by element: a seed
 * is 16 words, an encapsulation key 96·k + 8, an expanded key 192·k + 24,
 * a ciphertext 8·(k·d_u + d_v), a shared key or a message 8. An element of
 * the encapsulation and decapsulation kernels names its key by an index
 * into the batch's table of keys (keys[i]): the host uploads a key that
 * consecutive elements share once, and checks or expands it once.
 *
 * Constant time in the secrets (seeds, s, messages, noise, the shared
 * keys, and in decapsulation whether the ciphertext is valid): the
 * arithmetic of mlkem_poly.h and mlkem_pke.h has no secret-dependent
 * branch or index, and decapsulation compares its re-encryption with the
 * ciphertext over every word, the OR of their XORs, and chooses between K'
 * and the implicit-rejection key K̄ with a mask (mask_if_zero), never a
 * branch. What does branch is public: the sampling's rejections (on ρ), an
 * encapsulation key's verdict, the element count.
 */
#include "mlkem_pke.h"
#include "mask.h"

/* MLKEM_MATRIX: the kernels that multiply by Â (key generation,
 * expansion, encapsulation, decapsulation) take the matrices of their
 * keys (argument matrices, k²·128 words a key, from mlkemK_matrix) and
 * read Â there, rather than sample it per element: consecutive elements
 * of one key sample it once, the sampling of distinct keys runs k²
 * work-items to a key, and a key expanded for decapsulation is sampled
 * once for both. Without it, each element samples Â as it multiplies
 * (mlkem_pke.h). */
#if defined(MLKEM_MATRIX)
#define MLKEM_MATRIX_ARG GLOBAL const u32 *RESTRICT matrices,
#define MLKEM_MATRIX_OF(K, key) (matrices + (key) * (K) * (K) * 128u)
#else
#define MLKEM_MATRIX_ARG
#define MLKEM_MATRIX_OF(K, key) 0
#endif

#define MLKEM_SEED_WORDS 16u
#define MLKEM_EK_WORDS(k) (96u * (k) + 8u)
#define MLKEM_DK_WORDS(k) (192u * (k) + 24u)
#define MLKEM_CT_WORDS(k, du, dv) (8u * ((k) * (du) + (dv)))

/* the seed d ‖ z of element i: dk gets the expanded key (dk_PKE ‖ ek ‖
 * H(ek) ‖ z) when not null, ek the encapsulation key otherwise; matrix is
 * the key's Â, or null (sampled here) */
DEVICE_FN void mlkem_keygen_element(const u32 k, GLOBAL u32 *RESTRICT ek, GLOBAL u32 *RESTRICT dk,
	GLOBAL const u32 *RESTRICT seed, GLOBAL const u32 *RESTRICT matrix, mlkem_coeff *polys,
	GLOBAL const u32 *RESTRICT table)
{
	u32 d[8], h[8];
	for (u32 x = 0; x < 8; x++)
		d[x] = seed[x];
	if (dk)
		ek = dk + 96u * k;
	mlkem_keygen(k, d, matrix, polys, ek, dk, h, table);
	if (dk) {
		for (u32 x = 0; x < 8; x++) {
			dk[192u * k + 8u + x] = h[x];
			dk[192u * k + 16u + x] = seed[8 + x]; /* z */
		}
	}
}

/* ρ, the first half of G(d ‖ k), of the seed d ‖ z */
DEVICE_FN void mlkem_rho(const u32 k, GLOBAL const u32 *RESTRICT seed, u32 *rho)
{
	keccak_state s;
	sha3_512_init(&s);
	keccak_absorb_global_words(&s, seed, 8);
	keccak_absorb_byte(&s, k);
	sha3_finish(&s);
	keccak_squeeze_words(&s, rho, 8);
}

/* the modulus check of ek (every coefficient of t̂ below q): 1 for a valid
 * key, else 0; and h = H(ek) */
DEVICE_FN u32 mlkem_check_ek(const u32 k, GLOBAL const u32 *RESTRICT ek, u32 *h)
{
	u32 valid = 1;
	for (u32 group = 0; group < 32u * k; group++) {
		u32 c[8];
		mlkem_decode12_group(ek[3 * group], ek[3 * group + 1], ek[3 * group + 2], c);
		for (u32 x = 0; x < 8; x++)
			valid &= c[x] < MLKEM_Q ? 1u : 0u;
	}
	keccak_state s;
	sha3_256_init(&s);
	keccak_absorb_global_words(&s, ek, MLKEM_EK_WORDS(k));
	sha3_finish(&s);
	keccak_squeeze_words(&s, h, 8);
	return valid;
}

/* (K, r) = G(m ‖ h) */
DEVICE_FN void mlkem_g(const u32 *m, const u32 *h, u32 *key, u32 *r)
{
	keccak_state s;
	sha3_512_init(&s);
	keccak_absorb_words(&s, m, 8);
	keccak_absorb_words(&s, h, 8);
	sha3_finish(&s);
	keccak_squeeze_words(&s, key, 8);
	keccak_squeeze_words(&s, r, 8);
}

/* ML-KEM.Encaps_internal (FIPS 203's Algorithm 17) of the message m under
 * the checked key ek, whose H(ek) is h and whose Â is matrix (null: sampled
 * here) */
DEVICE_FN void mlkem_encapsulate_element(const u32 k, const u32 du, const u32 dv, GLOBAL u32 *RESTRICT shared,
	GLOBAL u32 *RESTRICT ct, GLOBAL const u32 *RESTRICT ek, GLOBAL const u32 *RESTRICT matrix,
	GLOBAL const u32 *RESTRICT hash, GLOBAL const u32 *RESTRICT message, mlkem_coeff *polys,
	GLOBAL const u32 *RESTRICT table)
{
	u32 m[8], h[8], key[8], r[8];
	for (u32 x = 0; x < 8; x++) {
		m[x] = message[x];
		h[x] = hash[x];
	}
	mlkem_g(m, h, key, r);
	mlkem_encrypt(k, du, dv, ek, matrix, m, r, polys, ct, 0, table);
	for (u32 x = 0; x < 8; x++)
		shared[x] = key[x];
}

/* ML-KEM.Decaps_internal (FIPS 203's Algorithm 18) of the ciphertext c
 * under the expanded key dk, whose Â is matrix (null: sampled here) */
DEVICE_FN void mlkem_decapsulate_element(const u32 k, const u32 du, const u32 dv, GLOBAL u32 *RESTRICT shared,
	GLOBAL const u32 *RESTRICT dk, GLOBAL const u32 *RESTRICT matrix, GLOBAL const u32 *RESTRICT c,
	mlkem_coeff *polys, GLOBAL const u32 *RESTRICT table)
{
	GLOBAL const u32 *ek = dk + 96u * k;
	u32 m[8], h[8], key[8], r[8], rejection[8];
	mlkem_decrypt(k, du, dv, dk, c, polys, m, table);
	for (u32 x = 0; x < 8; x++)
		h[x] = dk[192u * k + 8u + x];
	mlkem_g(m, h, key, r);
	/* K̄ = J(z ‖ c) */
	keccak_state s;
	shake256_init(&s);
	keccak_absorb_global_words(&s, dk + 192u * k + 16u, 8);
	keccak_absorb_global_words(&s, c, MLKEM_CT_WORDS(k, du, dv));
	shake_finish(&s);
	keccak_squeeze_words(&s, rejection, 8);
	const u32 diff = mlkem_encrypt(k, du, dv, ek, matrix, m, r, polys, 0, c, table);
	const u32 equal = mask_if_zero(diff);
	for (u32 x = 0; x < 8; x++)
		shared[x] = (key[x] & equal) | (rejection[x] & ~equal);
}

/* The kernels of one parameter set; polys is the work-item's k + 1
 * polynomials. */
#define MLKEM_KERNELS(NAME, K, DU, DV) \
KERNEL void NAME##_keygen(GLOBAL u32 *RESTRICT eks, GLOBAL const u32 *RESTRICT seeds, \
	MLKEM_MATRIX_ARG GLOBAL const u32 *RESTRICT table, const u32 count) \
{ \
	const u32 i = GID(); \
	if (i >= count) return; \
	mlkem_coeff polys[((K) + 1) * MLKEM_N]; \
	mlkem_keygen_element(K, eks + i * MLKEM_EK_WORDS(K), 0, seeds + i * MLKEM_SEED_WORDS, MLKEM_MATRIX_OF(K, i), \
		polys, table); \
} \
KERNEL void NAME##_expand(GLOBAL u32 *RESTRICT dks, GLOBAL const u32 *RESTRICT seeds, \
	MLKEM_MATRIX_ARG GLOBAL const u32 *RESTRICT table, const u32 count) \
{ \
	const u32 i = GID(); \
	if (i >= count) return; \
	mlkem_coeff polys[((K) + 1) * MLKEM_N]; \
	mlkem_keygen_element(K, 0, dks + i * MLKEM_DK_WORDS(K), seeds + i * MLKEM_SEED_WORDS, MLKEM_MATRIX_OF(K, i), \
		polys, table); \
} \
KERNEL void NAME##_check(GLOBAL u32 *RESTRICT hashes, GLOBAL u32 *RESTRICT verdicts, \
	GLOBAL const u32 *RESTRICT eks, const u32 count) \
{ \
	const u32 i = GID(); \
	if (i >= count) return; \
	u32 h[8]; \
	verdicts[i] = mlkem_check_ek(K, eks + i * MLKEM_EK_WORDS(K), h); \
	for (u32 x = 0; x < 8; x++) hashes[i * 8 + x] = h[x]; \
} \
KERNEL void NAME##_encapsulate(GLOBAL u32 *RESTRICT shared, GLOBAL u32 *RESTRICT cts, \
	GLOBAL const u32 *RESTRICT eks, MLKEM_MATRIX_ARG \
	GLOBAL const u32 *RESTRICT hashes, GLOBAL const u32 *RESTRICT verdicts, \
	GLOBAL const u32 *RESTRICT keys, GLOBAL const u32 *RESTRICT messages, \
	GLOBAL const u32 *RESTRICT table, const u32 count) \
{ \
	const u32 i = GID(); \
	if (i >= count) return; \
	const u32 key = keys[i]; \
	if (!verdicts[key]) { /* a key that fails the modulus check: the host reports it */ \
		for (u32 x = 0; x < 8; x++) shared[i * 8 + x] = 0; \
		for (u32 x = 0; x < MLKEM_CT_WORDS(K, DU, DV); x++) cts[i * MLKEM_CT_WORDS(K, DU, DV) + x] = 0; \
		return; \
	} \
	mlkem_coeff polys[((K) + 1) * MLKEM_N]; \
	mlkem_encapsulate_element(K, DU, DV, shared + i * 8, cts + i * MLKEM_CT_WORDS(K, DU, DV), \
		eks + key * MLKEM_EK_WORDS(K), MLKEM_MATRIX_OF(K, key), hashes + key * 8, messages + i * 8, polys, table); \
} \
KERNEL void NAME##_decapsulate(GLOBAL u32 *RESTRICT shared, GLOBAL const u32 *RESTRICT dks, \
	MLKEM_MATRIX_ARG GLOBAL const u32 *RESTRICT keys, GLOBAL const u32 *RESTRICT cts, \
	GLOBAL const u32 *RESTRICT table, const u32 count) \
{ \
	const u32 i = GID(); \
	if (i >= count) return; \
	const u32 key = keys[i]; \
	mlkem_coeff polys[((K) + 1) * MLKEM_N]; \
	mlkem_decapsulate_element(K, DU, DV, shared + i * 8, dks + key * MLKEM_DK_WORDS(K), MLKEM_MATRIX_OF(K, key), \
		cts + i * MLKEM_CT_WORDS(K, DU, DV), polys, table); \
} \
MLKEM_MATRIX_KERNEL(NAME, K)

/* mlkemK_matrix: work-item g samples entry (y, x) = (e / k, e mod k), e =
 * g mod k², of the matrix of key g / k² of keys (keyWords words a key)
 * into matrices (k²·128 words a key). ρ is at word rhoOffset of the key
 * (an encapsulation key's, an expanded key's), or with fromSeed set the
 * key is a seed d ‖ z and ρ the first half of G(d ‖ k), for key
 * generation and expansion: each of the k² work-items of a seed computes
 * it. */
#if defined(MLKEM_MATRIX)
#define MLKEM_MATRIX_KERNEL(NAME, K) \
KERNEL void NAME##_matrix(GLOBAL u32 *RESTRICT matrices, GLOBAL const u32 *RESTRICT keys, \
	const u32 keyWords, const u32 rhoOffset, const u32 fromSeed, GLOBAL const u32 *RESTRICT table, \
	const u32 count) \
{ \
	const u32 g = GID(); \
	if (g >= count) return; \
	const u32 key = g / ((K) * (K)), entry = g % ((K) * (K)); \
	u32 rho[8]; \
	if (fromSeed) \
		mlkem_rho(K, keys + key * keyWords, rho); \
	else \
		for (u32 x = 0; x < 8; x++) rho[x] = keys[key * keyWords + rhoOffset + x]; \
	mlkem_sample(0, 0, matrices + g * 128u, rho, entry % (K), entry / (K), table); \
}
#else
#define MLKEM_MATRIX_KERNEL(NAME, K)
#endif

MLKEM_KERNELS(mlkem768, 3u, 10u, 4u)
MLKEM_KERNELS(mlkem1024, 4u, 11u, 5u)
