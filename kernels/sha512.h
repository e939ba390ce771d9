/* sha512.h: SHA-512 (FIPS 180-4) in one work-item, for the hashes Ed25519
 * takes of keys, nonces and messages (RFC 8032 §5.1).
 *
 *   sha512_state s;
 *   sha512_init(&s);
 *   sha512_update_words(&s, words, nwords);   words in private memory
 *   sha512_update_global(&s, bytes, n);       bytes in global memory
 *   sha512_update_byte(&s, b);                one byte, the low 8 bits of b
 *   sha512_pad_to_block(&s);                  zeros up to a block boundary
 *   sha512_final(&s, digest);                 u32 digest[16]
 *
 * The updates may come in any number and order. Byte order: a word of
 * sha512_update_words and of the digest holds 4 message bytes little-endian
 * (byte 0 in the low 8 bits), as the rest of the tree stores numbers, so an
 * Ed25519 key or point stored as 8 words is hashed as its 32 bytes.
 * The whole message must be shorter than 2^32 bytes.
 *
 * Constant time: some inputs are secret (a signing key's hash prefix), so
 * no branch and no memory index depends on the bytes hashed. Branches and
 * indexes depend only on lengths, block positions and the alignment of
 * the global pointer, which are public.
 *
 * Layout: the pending block is kept as the 16 big-endian 64-bit words the
 * compression function reads, zero past the bytes written so far; bytes
 * and words are shifted into place as they arrive, and the block is
 * compressed as soon as it fills. The block is indexed by the run-time
 * fill position, so unless every length is a compile-time constant the
 * compiler keeps the state in private (local, L1-cached) memory rather
 * than in registers: 208 bytes per work-item, read and written a few dozen
 * times per 128-byte block. That runs faster (CUDA and OpenCL) than
 * keeping the block in registers by writing it through a pass of
 * position compares. The compression itself works on register
 * copies (its schedule and working variables are indexed by constants
 * only), and its 80 rounds are unrolled by hand so that every round
 * constant is an immediate: no table, hence no address-space qualifier
 * that would differ between OpenCL C and CUDA C.
 *
 * Code size: each update and final call site inlines one copy of the
 * compression function (80 unrolled rounds). A kernel that hashes
 * several private arrays in a row does better to gather them into one
 * array and call sha512_update_words once.
 */
#pragma once
#include "dialect.h"

typedef struct {
	u64 h[8];       /* the chaining value H of FIPS 180-4 */
	u64 block[17];  /* the pending block, big-endian words, zero past fill;
	                   block[16] takes the bytes of a word that straddles the
	                   end of the block, moved to block[0] by the compression */
	u32 fill;       /* bytes in the pending block, 0..127 between calls */
	u32 length;     /* bytes hashed so far */
} sha512_state;

DEVICE_FN u64 sha512_rotate_right(u64 x, u32 n) { return (x >> n) | (x << (64 - n)); }

/* The functions of FIPS 180-4 §4.1.3, which writes them Σ0, Σ1, σ0, σ1,
 * Ch and Maj. */
DEVICE_FN u64 sha512_Sigma0(u64 x) { return sha512_rotate_right(x, 28) ^ sha512_rotate_right(x, 34) ^ sha512_rotate_right(x, 39); }
DEVICE_FN u64 sha512_Sigma1(u64 x) { return sha512_rotate_right(x, 14) ^ sha512_rotate_right(x, 18) ^ sha512_rotate_right(x, 41); }
DEVICE_FN u64 sha512_sigma0(u64 x) { return sha512_rotate_right(x, 1) ^ sha512_rotate_right(x, 8) ^ (x >> 7); }
DEVICE_FN u64 sha512_sigma1(u64 x) { return sha512_rotate_right(x, 19) ^ sha512_rotate_right(x, 61) ^ (x >> 6); }
DEVICE_FN u64 sha512_choose(u64 x, u64 y, u64 z) { return z ^ (x & (y ^ z)); }
DEVICE_FN u64 sha512_majority(u64 x, u64 y, u64 z) { return (x & y) | (z & (x | y)); }

/* x with its 4 bytes in reverse order (compilers emit one byte permute). */
DEVICE_FN u32 sha512_byte_swap(u32 x)
{
	return (x << 24) | ((x << 8) & 0x00ff0000u) | ((x >> 8) & 0x0000ff00u) | (x >> 24);
}

/* One round (FIPS 180-4 §6.4.2, step 3), its working variables named in
 * the order a..h of this round. The next round names them rotated by one
 * (h, a, b, ..., g), so no variable is ever copied: only d and h change. */
#define SHA512_ROUND(a, b, c, d, e, f, g, h, k, x) do { \
	u64 sha512_t1 = (h) + sha512_Sigma1(e) + sha512_choose(e, f, g) + (k) + (x); \
	(d) += sha512_t1; \
	(h) = sha512_t1 + sha512_Sigma0(a) + sha512_majority(a, b, c); \
} while (0)

/* The message schedule rolls through 16 words: rounds 0..15 read the block
 * as it is (SHA512_MESSAGE does nothing), and round i ≥ 16 first replaces
 * word i mod 16, which is W[i − 16], by W[i] (SHA512_EXPAND). */
#define SHA512_MESSAGE(m, i)
#define SHA512_EXPAND(m, i) (m)[(i) & 15] += sha512_sigma1((m)[((i) + 14) & 15]) + (m)[((i) + 9) & 15] + sha512_sigma0((m)[((i) + 1) & 15])

/* Rounds i..i+7 on the variables a..h and the schedule m of
 * sha512_compress, with round constants k0..k7. */
#define SHA512_ROUNDS_8(SCHEDULE, i, k0, k1, k2, k3, k4, k5, k6, k7) do { \
	SCHEDULE(m, (i) + 0); SHA512_ROUND(a, b, c, d, e, f, g, h, k0, m[((i) + 0) & 15]); \
	SCHEDULE(m, (i) + 1); SHA512_ROUND(h, a, b, c, d, e, f, g, k1, m[((i) + 1) & 15]); \
	SCHEDULE(m, (i) + 2); SHA512_ROUND(g, h, a, b, c, d, e, f, k2, m[((i) + 2) & 15]); \
	SCHEDULE(m, (i) + 3); SHA512_ROUND(f, g, h, a, b, c, d, e, k3, m[((i) + 3) & 15]); \
	SCHEDULE(m, (i) + 4); SHA512_ROUND(e, f, g, h, a, b, c, d, k4, m[((i) + 4) & 15]); \
	SCHEDULE(m, (i) + 5); SHA512_ROUND(d, e, f, g, h, a, b, c, k5, m[((i) + 5) & 15]); \
	SCHEDULE(m, (i) + 6); SHA512_ROUND(c, d, e, f, g, h, a, b, k6, m[((i) + 6) & 15]); \
	SCHEDULE(m, (i) + 7); SHA512_ROUND(b, c, d, e, f, g, h, a, k7, m[((i) + 7) & 15]); \
} while (0)

/* Compresses the full pending block into h and empties the block (the
 * bytes of a straddling word, in block[16], become its first bytes). */
DEVICE_FN void sha512_compress(sha512_state *s)
{
	u64 m[16];
	UNROLL_OUTER
	for (u32 j = 0; j < 16; j++) {
		m[j] = s->block[j];
	}
	s->block[0] = s->block[16];
	UNROLL_OUTER
	for (u32 j = 1; j < 17; j++) {
		s->block[j] = 0;
	}
	u64 a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	u64 e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	/* K of FIPS 180-4 §4.2.3 */
	SHA512_ROUNDS_8(SHA512_MESSAGE, 0,
		0x428a2f98d728ae22UL, 0x7137449123ef65cdUL, 0xb5c0fbcfec4d3b2fUL, 0xe9b5dba58189dbbcUL,
		0x3956c25bf348b538UL, 0x59f111f1b605d019UL, 0x923f82a4af194f9bUL, 0xab1c5ed5da6d8118UL);
	SHA512_ROUNDS_8(SHA512_MESSAGE, 8,
		0xd807aa98a3030242UL, 0x12835b0145706fbeUL, 0x243185be4ee4b28cUL, 0x550c7dc3d5ffb4e2UL,
		0x72be5d74f27b896fUL, 0x80deb1fe3b1696b1UL, 0x9bdc06a725c71235UL, 0xc19bf174cf692694UL);
	SHA512_ROUNDS_8(SHA512_EXPAND, 16,
		0xe49b69c19ef14ad2UL, 0xefbe4786384f25e3UL, 0x0fc19dc68b8cd5b5UL, 0x240ca1cc77ac9c65UL,
		0x2de92c6f592b0275UL, 0x4a7484aa6ea6e483UL, 0x5cb0a9dcbd41fbd4UL, 0x76f988da831153b5UL);
	SHA512_ROUNDS_8(SHA512_EXPAND, 24,
		0x983e5152ee66dfabUL, 0xa831c66d2db43210UL, 0xb00327c898fb213fUL, 0xbf597fc7beef0ee4UL,
		0xc6e00bf33da88fc2UL, 0xd5a79147930aa725UL, 0x06ca6351e003826fUL, 0x142929670a0e6e70UL);
	SHA512_ROUNDS_8(SHA512_EXPAND, 32,
		0x27b70a8546d22ffcUL, 0x2e1b21385c26c926UL, 0x4d2c6dfc5ac42aedUL, 0x53380d139d95b3dfUL,
		0x650a73548baf63deUL, 0x766a0abb3c77b2a8UL, 0x81c2c92e47edaee6UL, 0x92722c851482353bUL);
	SHA512_ROUNDS_8(SHA512_EXPAND, 40,
		0xa2bfe8a14cf10364UL, 0xa81a664bbc423001UL, 0xc24b8b70d0f89791UL, 0xc76c51a30654be30UL,
		0xd192e819d6ef5218UL, 0xd69906245565a910UL, 0xf40e35855771202aUL, 0x106aa07032bbd1b8UL);
	SHA512_ROUNDS_8(SHA512_EXPAND, 48,
		0x19a4c116b8d2d0c8UL, 0x1e376c085141ab53UL, 0x2748774cdf8eeb99UL, 0x34b0bcb5e19b48a8UL,
		0x391c0cb3c5c95a63UL, 0x4ed8aa4ae3418acbUL, 0x5b9cca4f7763e373UL, 0x682e6ff3d6b2b8a3UL);
	SHA512_ROUNDS_8(SHA512_EXPAND, 56,
		0x748f82ee5defb2fcUL, 0x78a5636f43172f60UL, 0x84c87814a1f0ab72UL, 0x8cc702081a6439ecUL,
		0x90befffa23631e28UL, 0xa4506cebde82bde9UL, 0xbef9a3f7b2c67915UL, 0xc67178f2e372532bUL);
	SHA512_ROUNDS_8(SHA512_EXPAND, 64,
		0xca273eceea26619cUL, 0xd186b8c721c0c207UL, 0xeada7dd6cde0eb1eUL, 0xf57d4f7fee6ed178UL,
		0x06f067aa72176fbaUL, 0x0a637dc5a2c898a6UL, 0x113f9804bef90daeUL, 0x1b710b35131c471bUL);
	SHA512_ROUNDS_8(SHA512_EXPAND, 72,
		0x28db77f523047d84UL, 0x32caab7b40c72493UL, 0x3c9ebe0a15c9bebcUL, 0x431d67c49c100d4cUL,
		0x4cc5d4becb3e42b6UL, 0x597f299cfc657e2aUL, 0x5fcb6fab3ad6faecUL, 0x6c44198c4a475817UL);
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

#undef SHA512_ROUND
#undef SHA512_MESSAGE
#undef SHA512_EXPAND
#undef SHA512_ROUNDS_8

DEVICE_FN void sha512_init(sha512_state *s)
{
	/* H(0) of FIPS 180-4 §5.3.5 */
	s->h[0] = 0x6a09e667f3bcc908UL; s->h[1] = 0xbb67ae8584caa73bUL;
	s->h[2] = 0x3c6ef372fe94f82bUL; s->h[3] = 0xa54ff53a5f1d36f1UL;
	s->h[4] = 0x510e527fade682d1UL; s->h[5] = 0x9b05688c2b3e6c1fUL;
	s->h[6] = 0x1f83d9abfb41bd6bUL; s->h[7] = 0x5be0cd19137e2179UL;
	UNROLL_OUTER
	for (u32 j = 0; j < 17; j++) {
		s->block[j] = 0;
	}
	s->fill = 0;
	s->length = 0;
}

/* Hashes nwords private words, 4 message bytes each, little-endian. At a
 * fill that is a multiple of 4 (always, unless global ranges whose lengths
 * add up to no multiple of 4 came before) each word lands in one half of a
 * block word; otherwise it may straddle two. */
DEVICE_FN void sha512_update_words(sha512_state *s, const u32 *w, u32 nwords)
{
	u32 fill = s->fill;
	s->length += 4 * nwords;
	UNROLL_OUTER
	for (u32 i = 0; i < nwords; i++) {
		/* the word's 4 bytes as the top of a big-endian 64-bit word,
		 * then moved right to their place in block word fill / 8 */
		u64 bytes = (u64)sha512_byte_swap(w[i]) << 32;
		u32 index = fill >> 3, shift = 8 * (fill & 7);
		s->block[index] |= bytes >> shift;
		if (shift > 32) {
			/* the word straddles two block words (index + 1 may be
			 * 16, the overflow word) */
			s->block[index + 1] |= bytes << (64 - shift);
		}
		fill += 4;
		if (fill >= 128) {
			sha512_compress(s);
			fill -= 128;
		}
	}
	s->fill = fill;
}

/* The n ≤ 8 bytes at p as the top n bytes of a big-endian 64-bit word, the
 * rest zero. */
DEVICE_FN u64 sha512_load_bytes(GLOBAL const u8 *p, u32 n)
{
	u64 bytes = 0;
	for (u32 i = 0; i < n; i++) {
		bytes |= (u64)p[i] << (56 - 8 * i);
	}
	return bytes;
}

/* The 8 bytes at p as a big-endian 64-bit word: two aligned 32-bit loads
 * where p allows, else 8 byte loads. */
DEVICE_FN u64 sha512_load_word(GLOBAL const u8 *p)
{
	if (((u32)(u64)p & 3) == 0) {
		GLOBAL const u32 *q = (GLOBAL const u32 *)p;
		return ((u64)sha512_byte_swap(q[0]) << 32) | sha512_byte_swap(q[1]);
	}
	return sha512_load_bytes(p, 8);
}

/* Hashes the n bytes at p (any alignment). */
DEVICE_FN void sha512_update_global(sha512_state *s, GLOBAL const u8 *p, u32 n)
{
	u32 fill = s->fill;
	s->length += n;
	while (n != 0) {
		/* the bytes that go into the current block */
		u32 take = 128 - fill;
		if (take > n) {
			take = n;
		}
		n -= take;
		/* up to the next block word boundary, into a partly filled word */
		u32 head = (8 - (fill & 7)) & 7;
		if (head > take) {
			head = take;
		}
		if (head != 0) {
			s->block[fill >> 3] |= sha512_load_bytes(p, head) >> (8 * (fill & 7));
			fill += head;
			p += head;
			take -= head;
		}
		/* whole block words, then the start of one; the words at and
		 * past fill are empty, so they are written, not merged */
		for (; take >= 8; take -= 8) {
			s->block[fill >> 3] = sha512_load_word(p);
			fill += 8;
			p += 8;
		}
		if (take != 0) {
			s->block[fill >> 3] = sha512_load_bytes(p, take);
			fill += take;
			p += take;
		}
		if (fill == 128) {
			sha512_compress(s);
			fill = 0;
		}
	}
	s->fill = fill;
}

/* Hashes one byte, the low 8 bits of b (HMAC_DRBG's round byte,
 * kernels/hmac_drbg.h). Words hashed after it straddle block words, which
 * sha512_update_words handles. */
DEVICE_FN void sha512_update_byte(sha512_state *s, u32 b)
{
	u32 fill = s->fill;
	s->block[fill >> 3] |= (u64)(b & 0xffu) << (56 - 8 * (fill & 7));
	s->length += 1;
	fill++;
	if (fill == 128) {
		sha512_compress(s);
		fill = 0;
	}
	s->fill = fill;
}

/* Hashes zero bytes up to the end of the pending block, none when it is
 * empty: the message then continues at a multiple of 128 bytes, as
 * crypto/ecdsa block-aligns the parts of HMAC_DRBG's personalization
 * (kernels/hmac_drbg.h). The block is already zero past fill, and
 * block[16] is zero between calls, so it is compressed as it is. */
DEVICE_FN void sha512_pad_to_block(sha512_state *s)
{
	if (s->fill != 0) {
		s->length += 128 - s->fill;
		sha512_compress(s);
		s->fill = 0;
	}
}

/* Pads the message (FIPS 180-4 §5.1.2), compresses the last block or two
 * and writes the 64-byte digest as 16 little-endian words: out[i] holds
 * digest bytes 4i..4i+3, byte 4i in the low 8 bits. s is spent. */
DEVICE_FN void sha512_final(sha512_state *s, u32 *out)
{
	u32 fill = s->fill;
	s->block[fill >> 3] |= 0x80UL << (56 - 8 * (fill & 7));
	fill++;
	/* The last block ends with the message length in bits, 128 bits of
	 * which the high 64 are zero (length < 2^32 bytes). When the byte 0x80
	 * left less than 16 bytes, this block is compressed as it is and a
	 * block of zeros and the length follows. One call site of
	 * sha512_compress, in the loop, keeps the code small. */
	u32 blocks = fill > 112 ? 2 : 1;
	for (u32 i = 1; i <= blocks; i++) {
		if (i == blocks) {
			s->block[15] = (u64)s->length << 3;
		}
		sha512_compress(s);
	}
	UNROLL_OUTER
	for (u32 j = 0; j < 8; j++) {
		out[2 * j] = sha512_byte_swap((u32)(s->h[j] >> 32));
		out[2 * j + 1] = sha512_byte_swap((u32)s->h[j]);
	}
}
