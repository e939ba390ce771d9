/* keccak_test.cl: kernels/keccak.h's sponges, one message per work-item,
 * absorbed and squeezed through each of the header's functions. */
#include "keccak.h"

/* the most bytes squeezed per case, and the most absorbed from private
 * words */
#define KECCAK_TEST_MAX_OUT 640u
#define KECCAK_TEST_MAX_WORDS 64u

/* Each case is 8 words: the function (0 SHA3-256, 1 SHA3-512, 2 SHAKE128,
 * 3 SHAKE256), the message's offset and length in data's bytes, a split
 * point, the absorbing mode, the output length, the squeezing mode.
 * Absorbing modes: 0 all by keccak_absorb_global_bytes; 1 the bytes before
 * the split by bytes, then global words (the split is where data is
 * aligned to 4), then the tail by bytes; 2 the bytes before the split
 * (a multiple of 4, at most KECCAK_TEST_MAX_WORDS words) from private
 * words (keccak_absorb_words), the rest by bytes; 3 the bytes before the
 * split by keccak_absorb_byte, then keccak_absorb_word of each 4 bytes
 * (at any position), then the tail by bytes. Squeezing modes: 0 words,
 * 1 bytes, 2 keccak_squeeze_24, 3 one byte, then words, then bytes. */
KERNEL void keccak_test(GLOBAL u8 *RESTRICT out, GLOBAL const u32 *RESTRICT cases,
	GLOBAL const u32 *RESTRICT data, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	GLOBAL const u32 *c = cases + 8 * i;
	const u32 function = c[0], offset = c[1], length = c[2], split = c[3];
	const u32 absorb = c[4], outLength = c[5], squeeze = c[6];
	GLOBAL const u8 *bytes = (GLOBAL const u8 *)data + offset;
	GLOBAL u8 *o = out + i * KECCAK_TEST_MAX_OUT;
	keccak_state s;
	if (function == 0) sha3_256_init(&s);
	else if (function == 1) sha3_512_init(&s);
	else if (function == 2) shake128_init(&s);
	else shake256_init(&s);
	u32 at = 0;
	if (absorb == 1) {
		keccak_absorb_global_bytes(&s, bytes, split);
		const u32 words = (length - split) / 4;
		keccak_absorb_global_words(&s, (GLOBAL const u32 *)(bytes + split), words);
		at = split + 4 * words;
	} else if (absorb == 2) {
		u32 w[KECCAK_TEST_MAX_WORDS];
		for (u32 x = 0; x < split / 4; x++)
			w[x] = (u32)bytes[4 * x] | ((u32)bytes[4 * x + 1] << 8) | ((u32)bytes[4 * x + 2] << 16) | ((u32)bytes[4 * x + 3] << 24);
		keccak_absorb_words(&s, w, split / 4);
		at = split;
	} else if (absorb == 3) {
		for (; at < split; at++)
			keccak_absorb_byte(&s, bytes[at]);
		for (; at + 4 <= length; at += 4)
			keccak_absorb_word(&s, (u32)bytes[at] | ((u32)bytes[at + 1] << 8) | ((u32)bytes[at + 2] << 16) | ((u32)bytes[at + 3] << 24));
	}
	keccak_absorb_global_bytes(&s, bytes + at, length - at);
	if (function < 2) sha3_finish(&s);
	else shake_finish(&s);
	u32 n = 0;
	if (squeeze == 3 && n < outLength)
		o[n++] = (u8)keccak_squeeze_byte(&s);
	if (squeeze == 0 || squeeze == 3) {
		for (; n + 4 <= outLength; n += 4) {
			const u32 w = keccak_squeeze_word(&s);
			for (u32 x = 0; x < 4; x++)
				o[n + x] = (u8)(w >> (8 * x));
		}
	} else if (squeeze == 2) {
		for (; n + 3 <= outLength; n += 3) {
			const u32 v = keccak_squeeze_24(&s);
			for (u32 x = 0; x < 3; x++)
				o[n + x] = (u8)(v >> (8 * x));
		}
	}
	for (; n < outLength; n++)
		o[n] = (u8)keccak_squeeze_byte(&s);
}
