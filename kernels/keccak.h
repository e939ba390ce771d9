/* keccak.h: Keccak-f[1600] and the sponge functions of FIPS 202 (SHA3-256,
 * SHA3-512, SHAKE128, SHAKE256) in one work-item, for the lattice and
 * hash-based schemes (ML-KEM's G, H, J, PRF and XOF; later ML-DSA's and
 * SLH-DSA's).
 *
 *   keccak_state s;
 *   sha3_256_init(&s);                      or sha3_512_init, shake128_init,
 *                                           shake256_init (the rate)
 *   keccak_absorb_byte(&s, b);              the low 8 bits of b
 *   keccak_absorb_word(&s, w);              4 bytes, little-endian
 *   keccak_absorb_words(&s, words, n);      n words in private memory
 *   keccak_absorb_global_words(&s, p, n);   n words in global memory
 *   keccak_absorb_global_bytes(&s, p, n);   n bytes in global memory
 *   sha3_finish(&s);                        or shake_finish: the padding
 *   keccak_squeeze_words(&s, out, n);       n words of output
 *   keccak_squeeze_byte(&s), keccak_squeeze_word(&s), keccak_squeeze_24(&s)
 *
 * The absorbs may come in any number and order. A word (4 bytes) is
 * little-endian, the byte order of FIPS 202's lanes, so 32 bytes stored as
 * 8 words are hashed as those bytes. Squeezing may go on for any length
 * (SHAKE's long streams: ML-KEM's matrix sampling reads as far as its
 * rejections need).
 *
 * Constant time: the bytes absorbed and squeezed may be secret (seeds,
 * messages, noise), so no branch and no memory index depends on them.
 * Branches and indexes depend only on positions in the block, which follow
 * from the lengths: public.
 *
 * Layout: the state is 25 lanes of 64 bits, lane x + 5y at a[x + 5y]; pos
 * is the byte position in the current block, for absorbing and for
 * squeezing alike. The absorbs and squeezes index the state by that
 * run-time position, so the state lives in private (L1-cached) memory;
 * the permutation loads it into registers, runs its 24 rounds there
 * (every index a constant) and stores it back. The permutation is one
 * function called by every absorb and squeeze (DEVICE_FN_NOINLINE: one
 * copy in a CUDA kernel however many sponges call it).
 */
#pragma once
#include "dialect.h"

/* the rates of FIPS 202, in bytes */
#define KECCAK_RATE_SHAKE128 168u
#define KECCAK_RATE_SHA3_256 136u
#define KECCAK_RATE_SHAKE256 136u
#define KECCAK_RATE_SHA3_512 72u

/* the domain suffixes, with the first bit of the padding (FIPS 202 §6) */
#define KECCAK_SUFFIX_SHA3 0x06u
#define KECCAK_SUFFIX_SHAKE 0x1fu

typedef struct {
	u64 a[25]; /* lane x + 5y of the state */
	u32 rate;  /* bytes of a block */
	u32 pos;   /* the position in the current block, 0..rate-1 between calls */
} keccak_state;

DEVICE_FN u64 keccak_rotl(const u64 x, const u32 n) { return (x << n) | (x >> (64u - n)); }

/* One round on the lanes in registers: θ, ρ and π, χ, ι (FIPS 202 §3.2).
 * The lane of row y, column x is aXY. */
#define KECCAK_ROUND(rc) do { \
	const u64 c0 = a00 ^ a01 ^ a02 ^ a03 ^ a04; \
	const u64 c1 = a10 ^ a11 ^ a12 ^ a13 ^ a14; \
	const u64 c2 = a20 ^ a21 ^ a22 ^ a23 ^ a24; \
	const u64 c3 = a30 ^ a31 ^ a32 ^ a33 ^ a34; \
	const u64 c4 = a40 ^ a41 ^ a42 ^ a43 ^ a44; \
	const u64 d0 = c4 ^ keccak_rotl(c1, 1); \
	const u64 d1 = c0 ^ keccak_rotl(c2, 1); \
	const u64 d2 = c1 ^ keccak_rotl(c3, 1); \
	const u64 d3 = c2 ^ keccak_rotl(c4, 1); \
	const u64 d4 = c3 ^ keccak_rotl(c0, 1); \
	/* ρ and π: the lane at (x, y) moves to (y, 2x + 3y) rotated */ \
	const u64 b00 = a00 ^ d0; \
	const u64 b13 = keccak_rotl(a01 ^ d0, 36); \
	const u64 b21 = keccak_rotl(a02 ^ d0, 3); \
	const u64 b34 = keccak_rotl(a03 ^ d0, 41); \
	const u64 b42 = keccak_rotl(a04 ^ d0, 18); \
	const u64 b02 = keccak_rotl(a10 ^ d1, 1); \
	const u64 b10 = keccak_rotl(a11 ^ d1, 44); \
	const u64 b23 = keccak_rotl(a12 ^ d1, 10); \
	const u64 b31 = keccak_rotl(a13 ^ d1, 45); \
	const u64 b44 = keccak_rotl(a14 ^ d1, 2); \
	const u64 b04 = keccak_rotl(a20 ^ d2, 62); \
	const u64 b12 = keccak_rotl(a21 ^ d2, 6); \
	const u64 b20 = keccak_rotl(a22 ^ d2, 43); \
	const u64 b33 = keccak_rotl(a23 ^ d2, 15); \
	const u64 b41 = keccak_rotl(a24 ^ d2, 61); \
	const u64 b01 = keccak_rotl(a30 ^ d3, 28); \
	const u64 b14 = keccak_rotl(a31 ^ d3, 55); \
	const u64 b22 = keccak_rotl(a32 ^ d3, 25); \
	const u64 b30 = keccak_rotl(a33 ^ d3, 21); \
	const u64 b43 = keccak_rotl(a34 ^ d3, 56); \
	const u64 b03 = keccak_rotl(a40 ^ d4, 27); \
	const u64 b11 = keccak_rotl(a41 ^ d4, 20); \
	const u64 b24 = keccak_rotl(a42 ^ d4, 39); \
	const u64 b32 = keccak_rotl(a43 ^ d4, 8); \
	const u64 b40 = keccak_rotl(a44 ^ d4, 14); \
	/* χ along each row, and ι */ \
	a00 = b00 ^ (~b10 & b20) ^ (rc); \
	a10 = b10 ^ (~b20 & b30); \
	a20 = b20 ^ (~b30 & b40); \
	a30 = b30 ^ (~b40 & b00); \
	a40 = b40 ^ (~b00 & b10); \
	a01 = b01 ^ (~b11 & b21); \
	a11 = b11 ^ (~b21 & b31); \
	a21 = b21 ^ (~b31 & b41); \
	a31 = b31 ^ (~b41 & b01); \
	a41 = b41 ^ (~b01 & b11); \
	a02 = b02 ^ (~b12 & b22); \
	a12 = b12 ^ (~b22 & b32); \
	a22 = b22 ^ (~b32 & b42); \
	a32 = b32 ^ (~b42 & b02); \
	a42 = b42 ^ (~b02 & b12); \
	a03 = b03 ^ (~b13 & b23); \
	a13 = b13 ^ (~b23 & b33); \
	a23 = b23 ^ (~b33 & b43); \
	a33 = b33 ^ (~b43 & b03); \
	a43 = b43 ^ (~b03 & b13); \
	a04 = b04 ^ (~b14 & b24); \
	a14 = b14 ^ (~b24 & b34); \
	a24 = b24 ^ (~b34 & b44); \
	a34 = b34 ^ (~b44 & b04); \
	a44 = b44 ^ (~b04 & b14); \
} while (0)

/* keccak_f1600 permutes the state st (25 lanes, lane x + 5y at st[x + 5y]).
 * The round constants are immediates of the unrolled rounds (on GPUs) or
 * of a private array (CPU devices keep the loop). */
DEVICE_FN_NOINLINE void keccak_f1600(u64 *st)
{
	const u64 rc[24] = {
		0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
		0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
		0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
		0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
		0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
		0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
	};
	u64 a00 = st[0], a10 = st[1], a20 = st[2], a30 = st[3], a40 = st[4];
	u64 a01 = st[5], a11 = st[6], a21 = st[7], a31 = st[8], a41 = st[9];
	u64 a02 = st[10], a12 = st[11], a22 = st[12], a32 = st[13], a42 = st[14];
	u64 a03 = st[15], a13 = st[16], a23 = st[17], a33 = st[18], a43 = st[19];
	u64 a04 = st[20], a14 = st[21], a24 = st[22], a34 = st[23], a44 = st[24];
	UNROLL_OUTER
	for (int round = 0; round < 24; round++)
		KECCAK_ROUND(rc[round]);
	st[0] = a00; st[1] = a10; st[2] = a20; st[3] = a30; st[4] = a40;
	st[5] = a01; st[6] = a11; st[7] = a21; st[8] = a31; st[9] = a41;
	st[10] = a02; st[11] = a12; st[12] = a22; st[13] = a32; st[14] = a42;
	st[15] = a03; st[16] = a13; st[17] = a23; st[18] = a33; st[19] = a43;
	st[20] = a04; st[21] = a14; st[22] = a24; st[23] = a34; st[24] = a44;
}

/* keccak_init starts a sponge of rate bytes (a multiple of 8) on the zero
 * state. */
DEVICE_FN void keccak_init(keccak_state *s, const u32 rate)
{
	for (int i = 0; i < 25; i++)
		s->a[i] = 0;
	s->rate = rate;
	s->pos = 0;
}

DEVICE_FN void sha3_256_init(keccak_state *s) { keccak_init(s, KECCAK_RATE_SHA3_256); }
DEVICE_FN void sha3_512_init(keccak_state *s) { keccak_init(s, KECCAK_RATE_SHA3_512); }
DEVICE_FN void shake128_init(keccak_state *s) { keccak_init(s, KECCAK_RATE_SHAKE128); }
DEVICE_FN void shake256_init(keccak_state *s) { keccak_init(s, KECCAK_RATE_SHAKE256); }

/* keccak_next_block permutes once the block is full (absorbing) or used
 * up (squeezing). */
DEVICE_FN void keccak_next_block(keccak_state *s)
{
	if (s->pos == s->rate) {
		keccak_f1600(s->a);
		s->pos = 0;
	}
}

DEVICE_FN void keccak_absorb_byte(keccak_state *s, const u32 b)
{
	s->a[s->pos >> 3] ^= (u64)(b & 0xffu) << (8u * (s->pos & 7u));
	s->pos++;
	keccak_next_block(s);
}

/* keccak_absorb_word absorbs the 4 bytes of w, little-endian: at once where
 * they lie in one lane (the position a multiple of 4, as it stays when
 * only words are absorbed; rates are multiples of 8), else byte by byte. */
DEVICE_FN void keccak_absorb_word(keccak_state *s, const u32 w)
{
	if ((s->pos & 3u) == 0) {
		s->a[s->pos >> 3] ^= (u64)w << (8u * (s->pos & 7u));
		s->pos += 4;
		keccak_next_block(s);
		return;
	}
	for (u32 i = 0; i < 4; i++)
		keccak_absorb_byte(s, w >> (8u * i));
}

DEVICE_FN void keccak_absorb_words(keccak_state *s, const u32 *words, const u32 n)
{
	for (u32 i = 0; i < n; i++)
		keccak_absorb_word(s, words[i]);
}

DEVICE_FN void keccak_absorb_global_words(keccak_state *s, GLOBAL const u32 *RESTRICT words, const u32 n)
{
	for (u32 i = 0; i < n; i++)
		keccak_absorb_word(s, words[i]);
}

DEVICE_FN void keccak_absorb_global_bytes(keccak_state *s, GLOBAL const u8 *RESTRICT bytes, const u32 n)
{
	for (u32 i = 0; i < n; i++)
		keccak_absorb_byte(s, bytes[i]);
}

/* keccak_finish pads the message (the domain suffix, then the last bit of
 * pad10*1, FIPS 202 §5.1 and §6) and permutes: the state holds the first
 * block of output, from position 0. */
DEVICE_FN void keccak_finish(keccak_state *s, const u32 suffix)
{
	s->a[s->pos >> 3] ^= (u64)suffix << (8u * (s->pos & 7u));
	s->a[(s->rate - 1u) >> 3] ^= 0x8000000000000000ull;
	keccak_f1600(s->a);
	s->pos = 0;
}

DEVICE_FN void sha3_finish(keccak_state *s) { keccak_finish(s, KECCAK_SUFFIX_SHA3); }
DEVICE_FN void shake_finish(keccak_state *s) { keccak_finish(s, KECCAK_SUFFIX_SHAKE); }

/* keccak_squeeze_byte returns the next byte of output. */
DEVICE_FN u32 keccak_squeeze_byte(keccak_state *s)
{
	keccak_next_block(s);
	const u32 b = (u32)(s->a[s->pos >> 3] >> (8u * (s->pos & 7u))) & 0xffu;
	s->pos++;
	return b;
}

/* keccak_squeeze_word returns the next 4 bytes of output, little-endian
 * (at once where the position is a multiple of 4). */
DEVICE_FN u32 keccak_squeeze_word(keccak_state *s)
{
	keccak_next_block(s);
	if ((s->pos & 3u) == 0) {
		const u32 w = (u32)(s->a[s->pos >> 3] >> (8u * (s->pos & 7u)));
		s->pos += 4;
		return w;
	}
	u32 w = 0;
	for (u32 i = 0; i < 4; i++)
		w |= keccak_squeeze_byte(s) << (8u * i);
	return w;
}

DEVICE_FN void keccak_squeeze_words(keccak_state *s, u32 *out, const u32 n)
{
	for (u32 i = 0; i < n; i++)
		out[i] = keccak_squeeze_word(s);
}

/* keccak_squeeze_24 returns the next 3 bytes of output as a 24-bit
 * number, little-endian: ML-KEM's SampleNTT reads the XOF 3 bytes at a
 * time. From a position that is a multiple of 3 within a rate that is one
 * too (SHAKE128's 168) the 3 bytes never cross a block; otherwise they are
 * read byte by byte. */
DEVICE_FN u32 keccak_squeeze_24(keccak_state *s)
{
	keccak_next_block(s);
	if (s->pos + 3u <= s->rate) {
		const u32 lane = s->pos >> 3, shift = 8u * (s->pos & 7u);
		u64 v = s->a[lane] >> shift;
		/* the bytes past the lane come from the next one (never past
		 * lane 20 of SHAKE128's 21 lanes of rate: pos + 3 <= rate) */
		if (shift > 40u)
			v |= s->a[lane + 1u] << (64u - shift);
		s->pos += 3;
		return (u32)v & 0xffffffu;
	}
	u32 v = keccak_squeeze_byte(s);
	v |= keccak_squeeze_byte(s) << 8;
	v |= keccak_squeeze_byte(s) << 16;
	return v;
}
