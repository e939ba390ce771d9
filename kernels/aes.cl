/* aes.cl: AES in ECB, CTR and GCM on many blocks at once.
 *
 * Every kernel loops over its work (blocks, segments, messages) with a
 * stride of the whole launch, so the host launches only as many
 * work-groups as the device keeps busy and each copies the round tables
 * into local memory once (aes_tables.h: layouts, constant-time argument).
 * The host defines AES_TABLES_WIDE and AES_GROUP (the work-group size,
 * which the launches use) and, for GCM, GCM_SEGMENT (blocks per segment).
 *
 * Round keys are read from global memory at indexes that depend on the
 * message number only and kept in registers; data are read and written at
 * offsets that depend on lengths and positions only. */
#include "aes_cipher.h"
#include "ghash.h"

#ifndef AES_GROUP
#error "AES_GROUP must be defined"
#endif
#ifndef GCM_SEGMENT
#define GCM_SEGMENT 8
#endif

/* The layout of a key record (GCM), given by the host (aes/engine.go):
 * the schedule (at most 60 words) from word 0, the number of rounds at
 * KEY_RECORD_ROUNDS, H, H², H³, H⁴ from KEY_RECORD_H, then from
 * KEY_RECORD_LEVELS the power each reduction level l ≥ 1 combines with,
 * H^(GCM_SEGMENT·16^(l−1)), 4 words each. */
#if !defined(KEY_RECORD_ROUNDS) || !defined(KEY_RECORD_H) || !defined(KEY_RECORD_LEVELS)
#error "KEY_RECORD_ROUNDS, KEY_RECORD_H and KEY_RECORD_LEVELS must be defined"
#endif

DEVICE_FN u32 bswap32(u32 x) { return BYTE_PERM(x, 0u, 0x0123u); }

/* n < 16 bytes at p as little-endian words, zero beyond n. The loops
 * run over all 16 bytes, so that once unrolled every word index is a
 * constant and w stays in registers. */
DEVICE_FN void load_partial(u32 *w, GLOBAL const u8 *p, u32 n) {
	w[0] = w[1] = w[2] = w[3] = 0;
	UNROLL_OUTER for (u32 i = 0; i < 16u; i++)
		if (i < n)
			w[i >> 2] |= (u32)p[i] << (8u * (i & 3u));
}

DEVICE_FN void store_partial(GLOBAL u8 *p, const u32 *w, u32 n) {
	UNROLL_OUTER for (u32 i = 0; i < 16u; i++)
		if (i < n)
			p[i] = (u8)(w[i >> 2] >> (8u * (i & 3u)));
}

KERNEL KERNEL_BOUNDS(AES_GROUP, 1) void aes_ecb_encrypt(LOCAL_ARG(u32, t), GLOBAL const u32 *tables,
	GLOBAL const u32 *schedule, const u32 rounds, GLOBAL const u32x4 *src, GLOBAL u32x4 *dst, const u32 blocks) {
	LOCAL_BIND(u32, t);
	aes_fill_round_table(t, tables);
	BARRIER_LOCAL();
	u32 rk[60];
	aes_load_schedule(rk, schedule, rounds);
	u32 lane4 = (LID() & 31u) << 2;
	for (u32 i = GID(); i < blocks; i += GSIZE()) {
		u32x4 v = src[i];
		u32 s[4] = {v.x, v.y, v.z, v.w};
		aes_encrypt(t, lane4, rk, rounds, s);
		v.x = s[0]; v.y = s[1]; v.z = s[2]; v.w = s[3];
		dst[i] = v;
	}
}

KERNEL KERNEL_BOUNDS(AES_GROUP, 1) void aes_ecb_decrypt(LOCAL_ARG(u32, t), GLOBAL const u32 *tables,
	GLOBAL const u32 *schedule, const u32 rounds, GLOBAL const u32x4 *src, GLOBAL u32x4 *dst, const u32 blocks) {
	LOCAL_BIND(u32, t);
	aes_fill_round_table(t, tables + 256);
	aes_fill_inv_sbox(t + AES_ROUND_TABLE_BYTES / 4, tables + 512);
	BARRIER_LOCAL();
	u32 rk[60];
	aes_load_schedule(rk, schedule, rounds);
	u32 lane4 = (LID() & 31u) << 2;
	for (u32 i = GID(); i < blocks; i += GSIZE()) {
		u32x4 v = src[i];
		u32 s[4] = {v.x, v.y, v.z, v.w};
		aes_decrypt(t, lane4, rk, rounds, s);
		v.x = s[0]; v.y = s[1]; v.z = s[2]; v.w = s[3];
		dst[i] = v;
	}
}

/* aes_ctr: dst = src XOR the keystream of counter blocks iv + first + i
 * (128-bit big-endian addition, crypto/cipher's CTR; with inc32, GCM's
 * counter: only the last 32 bits count, modulo 2^32), for blocks full
 * blocks and then tail < 16 bytes. iv0..iv3 are the counter block as
 * little-endian words. */
KERNEL KERNEL_BOUNDS(AES_GROUP, 1) void aes_ctr(LOCAL_ARG(u32, t), GLOBAL const u32 *tables,
	GLOBAL const u32 *schedule, const u32 rounds, const u32 iv0, const u32 iv1, const u32 iv2, const u32 iv3,
	const u64 first, const u32 inc32, GLOBAL const u32x4 *src, GLOBAL u32x4 *dst, const u32 blocks, const u32 tail) {
	LOCAL_BIND(u32, t);
	aes_fill_round_table(t, tables);
	BARRIER_LOCAL();
	u32 rk[60];
	aes_load_schedule(rk, schedule, rounds);
	u32 lane4 = (LID() & 31u) << 2;
	u64 ivhi = ((u64)bswap32(iv0) << 32) | bswap32(iv1);
	u64 ivlo = ((u64)bswap32(iv2) << 32) | bswap32(iv3);
	u32 total = blocks + (tail ? 1u : 0u);
	for (u32 i = GID(); i < total; i += GSIZE()) {
		u64 lo = ivlo + first + i;
		u64 hi = ivhi + (lo < ivlo ? 1u : 0u);
		u32 s[4] = {bswap32((u32)(hi >> 32)), bswap32((u32)hi), bswap32((u32)(lo >> 32)), bswap32((u32)lo)};
		if (inc32) {
			s[0] = iv0; s[1] = iv1; s[2] = iv2;
			s[3] = bswap32(bswap32(iv3) + (u32)(first + i));
		}
		aes_encrypt(t, lane4, rk, rounds, s);
		if (i < blocks) {
			u32x4 v = src[i];
			v.x ^= s[0]; v.y ^= s[1]; v.z ^= s[2]; v.w ^= s[3];
			dst[i] = v;
		} else {
			u32 w[4];
			load_partial(w, (GLOBAL const u8 *)(src + i), tail);
			w[0] ^= s[0]; w[1] ^= s[1]; w[2] ^= s[2]; w[3] ^= s[3];
			store_partial((GLOBAL u8 *)(dst + i), w, tail);
		}
	}
}

/* GCM on a batch of messages (a single message, such as a call on device
 * buffers, is a batch of one).
 *
 * Each message's GHASH input — its AAD blocks, its ciphertext blocks and
 * the lengths block, N blocks — is cut into segments of GCM_SEGMENT
 * blocks counted from the end (the first segment may be shorter). Since
 * GHASH is Horner's rule in H, a segment's value V = Σ X_i·H^(k−i+1) over
 * its k blocks gives GHASH = Σ_j V_j·H^(blocks after segment j), and units
 * of GCM_SEGMENT·16^l blocks combine the same way with H^(GCM_SEGMENT·16^l).
 *
 * gcm_segments: one work-item per segment does all of GCM's work on it in
 *   one pass over the data: each data block is read once, encrypted (or
 *   decrypted) in counter mode and written once, and its ciphertext — the
 *   one just made to seal, the one read to open — is hashed while it is in
 *   registers. Runs of full data blocks go GHASH_WAYS at a time: their
 *   counter blocks are encrypted two at a time (aes_encrypt2) and hashed as
 *   Y' = (Y ⊕ X1)·H^w ⊕ X2·H^(w−1) ⊕ … ⊕ Xw·H, w independent products
 *   summed unreduced and one reduction. The rounds are table lookups in
 *   local memory and the products integer multiplies: in one kernel the
 *   two use different units of a multiprocessor and overlap, where a
 *   counter-mode pass and a GHASH pass followed each other (and each read
 *   the data). AAD blocks, a partial last block and the lengths block go
 *   one at a time (gcm_block). The work-item of each message's first
 *   segment also computes E(K, J0).
 * gcm_segments_r10, _r12, _r14: the same with the number of rounds fixed,
 *   which the host launches when every key of the batch has that size:
 *   the rounds have no branch (one basic block, which the compiler can
 *   interleave with the products) and the schedule of AES-128 takes 44
 *   registers instead of 60.
 * gcm_reduce: one work-item per unit of the next level combines up to 16
 *   values of the level below (as many times as the longest message needs).
 * gcm_finish: one work-item per message makes the tag from the message's
 *   last value and E(K, J0), or compares it with the tag given, in
 *   constant time.
 *
 * A message descriptor is 16 words: key record, data offset, data length,
 * AAD offset, AAD length (bytes; offsets are multiples of 16), first
 * segment, segment count, N, J0 (four little-endian words), index of the
 * message's final value, 3 unused. */
#define MSG_KEY 0
#define MSG_DATA 1
#define MSG_LEN 2
#define MSG_AAD 3
#define MSG_AAD_LEN 4
#define MSG_FIRST_SEGMENT 5
#define MSG_SEGMENTS 6
#define MSG_BLOCKS 7
#define MSG_J0 8
#define MSG_FINAL 12
#define MSG_WORDS 16

/* Tuning: full data blocks hashed per reduction, 2 or 4 (the key record
 * holds H..H⁴). Four halve the reductions and let the second pair's
 * rounds overlap the first pair's products in one work-item, but take 8
 * more registers for H³ and H⁴ and more for the products in flight: past
 * the 128 registers of a 512-work-item group, they spill. */
#ifndef GHASH_WAYS
#define GHASH_WAYS 2
#endif
#if GHASH_WAYS != 2 && GHASH_WAYS != 4
#error "GHASH_WAYS must be 2 or 4"
#endif

/* The segment's blocks [begin, end) of its message's GHASH input. */
DEVICE_FN void gcm_segment_range(GLOBAL const u32 *d, u32 g, u32 *begin, u32 *end) {
	u32 j = g - d[MSG_FIRST_SEGMENT];
	*end = d[MSG_BLOCKS] - (d[MSG_SEGMENTS] - 1u - j) * GCM_SEGMENT;
	*begin = *end > GCM_SEGMENT ? *end - GCM_SEGMENT : 0u;
}

/* n < 16 bytes of a block as a field element, zero beyond n. */
DEVICE_FN void gcm_partial_element(u32 *x, GLOBAL const u8 *p, u32 n) {
	u32 w[4];
	load_partial(w, p, n);
	ghash_from_block(x, w[0], w[1], w[2], w[3]);
}

/* The bytes of word i of a block that fall within its first n bytes. */
DEVICE_FN u32 gcm_byte_mask(u32 n, u32 i) {
	u32 k = n > 4u * i ? min(n - 4u * i, 4u) : 0u;
	return k == 4u ? 0xffffffffu : (1u << (8u * k)) - 1u;
}

/* GHASH's input block b of message d — AAD, ciphertext or lengths — into
 * x; a data block is first encrypted (or decrypted) from in to out, and x
 * is its ciphertext: out's to seal, in's to open. One block at a time: the
 * path of the blocks that are not in a group of full data blocks. */
DEVICE_FN void gcm_block(LOCAL_PTR const u32 *t, u32 lane4, const u32 *rk, u32 rounds, GLOBAL const u32 *d,
	GLOBAL const u8 *ad, GLOBAL const u8 *in, GLOBAL u8 *out, u32 open, u32 b, u32 *x) {
	u32 len = d[MSG_LEN], alen = d[MSG_AAD_LEN];
	u32 na = (alen + 15u) >> 4, nc = (len + 15u) >> 4;
	if (b < na) {
		u32 n = alen - 16u * b;
		if (n >= 16u) {
			u32x4 v = ((GLOBAL const u32x4 *)ad)[b];
			ghash_from_block(x, v.x, v.y, v.z, v.w);
		} else {
			gcm_partial_element(x, ad + 16u * b, n);
		}
	} else if (b < na + nc) {
		u32 c = b - na;
		u32 s[4] = {d[MSG_J0], d[MSG_J0 + 1], d[MSG_J0 + 2], bswap32(bswap32(d[MSG_J0 + 3]) + 1u + c)};
		aes_encrypt(t, lane4, rk, rounds, s);
		u32 n = len - 16u * c;
		u32 w[4], o[4];
		if (n >= 16u) {
			u32x4 v = ((GLOBAL const u32x4 *)in)[c];
			w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
			v.x ^= s[0]; v.y ^= s[1]; v.z ^= s[2]; v.w ^= s[3];
			((GLOBAL u32x4 *)out)[c] = v;
			o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w;
		} else {
			/* the ciphertext hashed is zero beyond n, as the plaintext read */
			load_partial(w, in + 16u * c, n);
			for (u32 i = 0; i < 4u; i++)
				o[i] = (w[i] ^ s[i]) & gcm_byte_mask(n, i);
			store_partial(out + 16u * c, o, n);
		}
		if (open)
			ghash_from_block(x, w[0], w[1], w[2], w[3]);
		else
			ghash_from_block(x, o[0], o[1], o[2], o[3]);
	} else {
		u64 abits = (u64)alen * 8u, cbits = (u64)len * 8u;
		x[0] = (u32)(abits >> 32); x[1] = (u32)abits; x[2] = (u32)(cbits >> 32); x[3] = (u32)cbits;
	}
}

/* Two full data blocks in counter mode, from ip to op (which may be ip),
 * with the counter blocks j0 j1 j2 ctr and j0 j1 j2 ctr+1 (ctr as a
 * number; j0..j2 are J0's first three words); x1 and x2 are their
 * ciphertexts as field elements: the output where keep is all ones (seal),
 * the input where it is zero (open). No branch: the whole group of blocks
 * is one basic block, which the compiler schedules as one. */
DEVICE_FN void gcm_crypt2(LOCAL_PTR const u32 *t, u32 lane4, const u32 *rk, u32 rounds, u32 j0, u32 j1, u32 j2,
	u32 ctr, GLOBAL const u32x4 *ip, GLOBAL u32x4 *op, u32 keep, u32 *x1, u32 *x2) {
	u32 s[4] = {j0, j1, j2, bswap32(ctr)};
	u32 v[4] = {j0, j1, j2, bswap32(ctr + 1u)};
	aes_encrypt2(t, lane4, rk, rounds, s, v);
	u32x4 p = ip[0], q = ip[1];
	u32x4 a = p, c = q;
	a.x ^= s[0]; a.y ^= s[1]; a.z ^= s[2]; a.w ^= s[3];
	c.x ^= v[0]; c.y ^= v[1]; c.z ^= v[2]; c.w ^= v[3];
	op[0] = a;
	op[1] = c;
	ghash_from_block(x1, p.x ^ (s[0] & keep), p.y ^ (s[1] & keep), p.z ^ (s[2] & keep), p.w ^ (s[3] & keep));
	ghash_from_block(x2, q.x ^ (v[0] & keep), q.y ^ (v[1] & keep), q.z ^ (v[2] & keep), q.w ^ (v[3] & keep));
}

/* The body of the gcm_segments kernels; fixed_rounds is 10, 12 or 14, or
 * 0 to read each key record's. messages == 1: every segment is message
 * 0's (segment_message unread). The key's schedule and powers of H are
 * read when a segment's key record differs from the last one's (its index
 * is public). */
DEVICE_FN void gcm_segments_run(LOCAL_PTR const u32 *t, GLOBAL const u32 *keys, u32 key_words,
	GLOBAL const u32 *msgs, u32 messages, GLOBAL const u32 *segment_message, GLOBAL const u8 *src, GLOBAL u8 *dst,
	GLOBAL const u8 *aad, GLOBAL u32 *values, GLOBAL u32 *ekj0, u32 segments, u32 open, u32 fixed_rounds) {
	u32 lane4 = (LID() & 31u) << 2;
	u32 rk[60];
	u32 h1[4], h2[4];
#if GHASH_WAYS == 4
	u32 h3[4], h4[4];
#endif
	u32 rounds = fixed_rounds;
	u32 loaded = 0xffffffffu;
	u32 keep = open ? 0u : 0xffffffffu;
	for (u32 g = GID(); g < segments; g += GSIZE()) {
		u32 m = messages == 1u ? 0u : segment_message[g];
		GLOBAL const u32 *d = msgs + MSG_WORDS * m;
		u32 kr = d[MSG_KEY];
		if (kr != loaded) {
			GLOBAL const u32 *key = keys + key_words * kr;
			if (fixed_rounds == 0u)
				rounds = key[KEY_RECORD_ROUNDS];
			aes_load_schedule(rk, key, rounds);
			for (u32 i = 0; i < 4u; i++) {
				h1[i] = key[KEY_RECORD_H + i];
				h2[i] = key[KEY_RECORD_H + 4 + i];
#if GHASH_WAYS == 4
				h3[i] = key[KEY_RECORD_H + 8 + i];
				h4[i] = key[KEY_RECORD_H + 12 + i];
#endif
			}
			loaded = kr;
		}
		u32 begin, end;
		gcm_segment_range(d, g, &begin, &end);
		u32 na = (d[MSG_AAD_LEN] + 15u) >> 4;
		u32 full = na + (d[MSG_LEN] >> 4); /* blocks in [na, full) are full data blocks */
		GLOBAL const u8 *ad = aad + d[MSG_AAD];
		GLOBAL const u8 *in = src + d[MSG_DATA];
		GLOBAL u8 *out = dst + d[MSG_DATA];
		u32 j0 = d[MSG_J0], j1 = d[MSG_J0 + 1], j2 = d[MSG_J0 + 2];
		/* GHASH block b ≥ na is data block b − na, whose counter is J0's + 1 + b − na (mod 2^32) */
		u32 ctr = bswap32(d[MSG_J0 + 3]) + 1u - na;
		u32 y[4] = {0, 0, 0, 0};
		u32 b = begin;
		for (; (end - b) & (GHASH_WAYS - 1u); b++) {
			u32 x[4];
			gcm_block(t, lane4, rk, rounds, d, ad, in, out, open, b, x);
			y[0] ^= x[0]; y[1] ^= x[1]; y[2] ^= x[2]; y[3] ^= x[3];
			ghash_mul(y, h1);
		}
		for (; b < end; b += GHASH_WAYS) {
			if (b >= na && b + GHASH_WAYS <= full) {
				GLOBAL const u32x4 *ip = (GLOBAL const u32x4 *)in + (b - na);
				GLOBAL u32x4 *op = (GLOBAL u32x4 *)out + (b - na);
				u32 x1[4], x2[4];
				u32 r[8] = {0, 0, 0, 0, 0, 0, 0, 0};
				gcm_crypt2(t, lane4, rk, rounds, j0, j1, j2, ctr + b, ip, op, keep, x1, x2);
				y[0] ^= x1[0]; y[1] ^= x1[1]; y[2] ^= x1[2]; y[3] ^= x1[3];
#if GHASH_WAYS == 4
				ghash_clmul_acc(y, h4, r);
				ghash_clmul_acc(x2, h3, r);
				gcm_crypt2(t, lane4, rk, rounds, j0, j1, j2, ctr + b + 2u, ip + 2, op + 2, keep, x1, x2);
				ghash_clmul_acc(x1, h2, r);
				ghash_clmul_acc(x2, h1, r);
#else
				ghash_clmul_acc(y, h2, r);
				ghash_clmul_acc(x2, h1, r);
#endif
				ghash_reduce(r, y);
			} else {
				for (u32 i = 0; i < GHASH_WAYS; i++) {
					u32 x[4];
					gcm_block(t, lane4, rk, rounds, d, ad, in, out, open, b + i, x);
					y[0] ^= x[0]; y[1] ^= x[1]; y[2] ^= x[2]; y[3] ^= x[3];
					ghash_mul(y, h1);
				}
			}
		}
		values[4 * g] = y[0]; values[4 * g + 1] = y[1]; values[4 * g + 2] = y[2]; values[4 * g + 3] = y[3];
		if (g == d[MSG_FIRST_SEGMENT]) {
			u32 s[4] = {j0, j1, j2, d[MSG_J0 + 3]};
			aes_encrypt(t, lane4, rk, rounds, s);
			ekj0[4 * m] = s[0]; ekj0[4 * m + 1] = s[1]; ekj0[4 * m + 2] = s[2]; ekj0[4 * m + 3] = s[3];
		}
	}
}

/* open: 1 hashes the input (Open), 0 the output (Seal). src and dst may be
 * the same buffer (in place). */
#define GCM_SEGMENTS_KERNEL(name, fixed_rounds) \
KERNEL KERNEL_BOUNDS(AES_GROUP, 1) void name(LOCAL_ARG(u32, t), GLOBAL const u32 *tables, \
	GLOBAL const u32 *keys, const u32 key_words, GLOBAL const u32 *msgs, const u32 messages, \
	GLOBAL const u32 *segment_message, GLOBAL const u8 *src, GLOBAL u8 *dst, GLOBAL const u8 *aad, \
	GLOBAL u32 *values, GLOBAL u32 *ekj0, const u32 segments, const u32 open) { \
	LOCAL_BIND(u32, t); \
	aes_fill_round_table(t, tables); \
	BARRIER_LOCAL(); \
	gcm_segments_run(t, keys, key_words, msgs, messages, segment_message, src, dst, aad, values, ekj0, \
		segments, open, fixed_rounds); \
}
GCM_SEGMENTS_KERNEL(gcm_segments, 0u)
GCM_SEGMENTS_KERNEL(gcm_segments_r10, 10u)
GCM_SEGMENTS_KERNEL(gcm_segments_r12, 12u)
GCM_SEGMENTS_KERNEL(gcm_segments_r14, 14u)

/* A unit descriptor: first input value, input count, key record, output
 * value. level ≥ 1 picks the key record's power to combine with. */
KERNEL void gcm_reduce(GLOBAL const u32x4 *units, GLOBAL const u32 *keys, const u32 key_words, const u32 level,
	GLOBAL u32 *values, const u32 count) {
	for (u32 u = GID(); u < count; u += GSIZE()) {
		u32x4 a = units[u];
		GLOBAL const u32 *p = keys + key_words * a.z + KEY_RECORD_LEVELS + 4u * (level - 1u);
		u32 h[4] = {p[0], p[1], p[2], p[3]};
		u32 y[4] = {values[4 * a.x], values[4 * a.x + 1], values[4 * a.x + 2], values[4 * a.x + 3]};
		for (u32 i = 1; i < a.y; i++) {
			ghash_mul(y, h);
			u32 v = 4u * (a.x + i);
			y[0] ^= values[v]; y[1] ^= values[v + 1]; y[2] ^= values[v + 2]; y[3] ^= values[v + 3];
		}
		values[4 * a.w] = y[0]; values[4 * a.w + 1] = y[1]; values[4 * a.w + 2] = y[2]; values[4 * a.w + 3] = y[3];
	}
}

/* gcm_reduce_one is gcm_reduce for a single message (key record 0),
 * which needs no unit descriptors: count values from index in combine into
 * ⌈count/16⌉ values from index out, the first taking the remainder. */
KERNEL void gcm_reduce_one(GLOBAL const u32 *keys, const u32 level, GLOBAL u32 *values,
	const u32 in, const u32 count, const u32 out) {
	u32 units = (count + 15u) >> 4;
	u32 first = count - ((units - 1u) << 4);
	for (u32 u = GID(); u < units; u += GSIZE()) {
		u32 from = u == 0u ? in : in + first + ((u - 1u) << 4);
		u32 n = u == 0u ? first : 16u;
		GLOBAL const u32 *p = keys + KEY_RECORD_LEVELS + 4u * (level - 1u);
		u32 h[4] = {p[0], p[1], p[2], p[3]};
		u32 y[4] = {values[4 * from], values[4 * from + 1], values[4 * from + 2], values[4 * from + 3]};
		for (u32 i = 1; i < n; i++) {
			ghash_mul(y, h);
			u32 v = 4u * (from + i);
			y[0] ^= values[v]; y[1] ^= values[v + 1]; y[2] ^= values[v + 2]; y[3] ^= values[v + 3];
		}
		u32 o = 4u * (out + u);
		values[o] = y[0]; values[o + 1] = y[1]; values[o + 2] = y[2]; values[o + 3] = y[3];
	}
}

/* tags: written (seal) or compared (open: ok[m] = 1 when equal, else 0,
 * with no branch on the tag). */
KERNEL void gcm_finish(GLOBAL const u32 *msgs, GLOBAL const u32 *values, GLOBAL const u32 *ekj0,
	GLOBAL u32 *tags, GLOBAL u32 *ok, const u32 count, const u32 open) {
	for (u32 m = GID(); m < count; m += GSIZE()) {
		u32 f = msgs[MSG_WORDS * m + MSG_FINAL];
		u32 diff = 0;
		for (u32 i = 0; i < 4; i++) {
			u32 tag = bswap32(values[4 * f + i]) ^ ekj0[4 * m + i];
			if (open)
				diff |= tag ^ tags[4 * m + i];
			else
				tags[4 * m + i] = tag;
		}
		if (open)
			ok[m] = 1u - ((diff | (0u - diff)) >> 31);
	}
}
