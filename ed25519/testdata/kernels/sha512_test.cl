/* sha512_test.cl: test kernels for kernels/sha512.h, one message per
 * work-item, each digest written as 16 little-endian words (the digest's
 * 64 bytes in order) at out[16·i]. */
#include "sha512.h"

/* The most private words one message of sha512_test takes. */
#define SHA512_TEST_MAX_WORDS 40

/* Job i is jobs[8·i .. 8·i + 7]:
 *   0 word_offset   its private words are words[word_offset ..]
 *   1 word_count    how many (0..SHA512_TEST_MAX_WORDS)
 *   2 word_split    how many go to the first sha512_update_words call
 *   3 byte_offset   its global bytes are bytes[byte_offset ..]
 *   4 byte_count    how many
 *   5 byte_split    how many go to the first sha512_update_global call
 *   6 words_between 0: the message is the words, then the bytes;
 *                   1: bytes[0, byte_split), the words, then the rest of
 *                      the bytes (words hashed at any fill, not only at
 *                      multiples of 4)
 *   7 unused
 * The message is hashed in four updates (some perhaps empty), two of
 * words and two of bytes, in a loop so that each update function is
 * inlined once. */
KERNEL void sha512_test(GLOBAL u32 *out, GLOBAL const u32 *jobs, GLOBAL const u32 *words, GLOBAL const u8 *bytes, const u32 count)
{
	const u32 i = GID();
	if (i >= count)
		return;
	GLOBAL const u32 *job = jobs + 8 * i;
	const u32 word_count = job[1], word_split = job[2];
	const u32 byte_count = job[4], byte_split = job[5];
	GLOBAL const u8 *p = bytes + job[3];
	u32 prefix[SHA512_TEST_MAX_WORDS];
	for (u32 j = 0; j < SHA512_TEST_MAX_WORDS; j++)
		prefix[j] = j < word_count ? words[job[0] + j] : 0;

	/* the updates in order: each is words (or bytes) [start, end) */
	u32 is_words[4], start[4], end[4];
	if (job[6]) {
		is_words[0] = 0; start[0] = 0;          end[0] = byte_split;
		is_words[1] = 1; start[1] = 0;          end[1] = word_split;
		is_words[2] = 1; start[2] = word_split; end[2] = word_count;
		is_words[3] = 0; start[3] = byte_split; end[3] = byte_count;
	} else {
		is_words[0] = 1; start[0] = 0;          end[0] = word_split;
		is_words[1] = 1; start[1] = word_split; end[1] = word_count;
		is_words[2] = 0; start[2] = 0;          end[2] = byte_split;
		is_words[3] = 0; start[3] = byte_split; end[3] = byte_count;
	}
	sha512_state s;
	sha512_init(&s);
	for (u32 k = 0; k < 4; k++) {
		if (is_words[k])
			sha512_update_words(&s, prefix + start[k], end[k] - start[k]);
		else
			sha512_update_global(&s, p + start[k], end[k] - start[k]);
	}
	u32 digest[16];
	sha512_final(&s, digest);
	for (u32 j = 0; j < 16; j++)
		out[16 * i + j] = digest[j];
}

/* The shape of Ed25519's challenge hash, SHA-512(R || A || M): 16 words
 * (words[16·i ..]) then the global bytes [offsets[2·i], offsets[2·i] +
 * offsets[2·i + 1]). Its ptxas report (the CUDA build test) shows the
 * footprint of the common case: a constant number of words at fill 0. */
KERNEL void sha512_test_words16(GLOBAL u32 *out, GLOBAL const u32 *words, GLOBAL const u32 *offsets, GLOBAL const u8 *bytes, const u32 count)
{
	const u32 i = GID();
	if (i >= count)
		return;
	u32 w[16];
	for (u32 j = 0; j < 16; j++)
		w[j] = words[16 * i + j];
	sha512_state s;
	sha512_init(&s);
	sha512_update_words(&s, w, 16);
	sha512_update_global(&s, bytes + offsets[2 * i], offsets[2 * i + 1]);
	u32 digest[16];
	sha512_final(&s, digest);
	for (u32 j = 0; j < 16; j++)
		out[16 * i + j] = digest[j];
}
