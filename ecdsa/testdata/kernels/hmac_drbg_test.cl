/* hmac_drbg_test.cl: the test kernels of kernels/hmac_drbg.h (and of the
 * functions it adds to sha512.h), one case per work-item, inputs and
 * outputs element-major.
 *
 * hmac_sha512_test: case i reads HMAC_TEST_RECORD words at
 * in[HMAC_TEST_RECORD·i ..]:
 *    0..15  the key, 64 bytes
 *   16      head: bytes hashed one at a time first (sha512_update_byte)
 *   17      words: then this many message words (sha512_update_words)
 *   18      pad: then, when 1, zeros to the block (sha512_pad_to_block)
 *   19      tail: then this many bytes one at a time
 *   20..27  the head bytes, one per word (low 8 bits)
 *   28..    HMAC_TEST_MAX_WORDS message words, then 8 tail bytes
 * and writes the 16 words of the MAC at out[16·i ..].
 *
 * hmac_drbg_test: case i reads Z, d and e (8 words each, numbers) at
 * in[24·i ..] and writes HMAC_DRBG_TEST_OUT words at out[.. · i]:
 *    0..7   hmac_drbg_p256_nonce(Z, d, e)
 *    8..31  the DRBG's first three candidates (hmac_drbg_round's of
 *           rounds 1, 2 and 3), whatever their range: the path after a
 *           rejected candidate, too rare to meet otherwise
 *   32..39  bits2octets(hash) = e mod n, from hmac_drbg_p256_seed
 *   40      hmac_drbg_in_range(e)
 */
#include "hmac_drbg.h"

#define HMAC_TEST_MAX_WORDS 40
#define HMAC_TEST_RECORD (28 + HMAC_TEST_MAX_WORDS + 8)
#define HMAC_DRBG_TEST_OUT 41

KERNEL void hmac_sha512_test(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT in, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	GLOBAL const u32 *c = in + HMAC_TEST_RECORD * i;
	u32 key[16], words[HMAC_TEST_MAX_WORDS], mac[16];
	for (int j = 0; j < 16; j++)
		key[j] = c[j];
	const u32 head = c[16], nwords = c[17], pad = c[18], tail = c[19];
	for (u32 j = 0; j < nwords; j++)
		words[j] = c[28 + j];
	hmac_sha512_key k;
	hmac_sha512_set_key(&k, key);
	sha512_state s = k.inner;
	for (u32 j = 0; j < head; j++)
		sha512_update_byte(&s, c[20 + j]);
	sha512_update_words(&s, words, nwords);
	if (pad)
		sha512_pad_to_block(&s);
	for (u32 j = 0; j < tail; j++)
		sha512_update_byte(&s, c[28 + HMAC_TEST_MAX_WORDS + j]);
	hmac_sha512_final(&k, &s, mac);
	for (int j = 0; j < 16; j++)
		out[16 * i + j] = mac[j];
}

KERNEL void hmac_drbg_test(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT in, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 z[8], d[8], e[8], k[8];
	for (int j = 0; j < 8; j++) {
		z[j] = in[24 * i + j];
		d[j] = in[24 * i + 8 + j];
		e[j] = in[24 * i + 16 + j];
	}
	GLOBAL u32 *o = out + HMAC_DRBG_TEST_OUT * i;
	hmac_drbg_p256_nonce(k, z, d, e);
	for (int j = 0; j < 8; j++)
		o[j] = k[j];

	u32 seed[24];
	hmac_drbg_p256_seed(seed, z, d, e);
	hmac_drbg g;
	hmac_drbg_init(&g);
	for (u32 round = 0; round < 4; round++) {
		hmac_drbg_round(&g, round, seed, k);
		for (int j = 0; round > 0 && j < 8; j++)
			o[8 * round + j] = k[j];
	}
	hmac_drbg_big_endian(k, seed + 16);
	for (int j = 0; j < 8; j++)
		o[32 + j] = k[j];
	o[40] = hmac_drbg_in_range(e);
}
