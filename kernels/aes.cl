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
#define GCM_SEGMENT 16
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

/* n < 16 bytes at p as little-endian words, zero beyond n. */
DEVICE_FN void load_partial(u32 *w, GLOBAL const u8 *p, u32 n) {
	w[0] = w[1] = w[2] = w[3] = 0;
	for (u32 i = 0; i < n; i++)
		w[i >> 2] |= (u32)p[i] << (8u * (i & 3u));
}

DEVICE_FN void store_partial(GLOBAL u8 *p, const u32 *w, u32 n) {
	for (u32 i = 0; i < n; i++)
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

/* GCM on a batch of messages.
 *
 * Each message's GHASH input — its AAD blocks, its ciphertext blocks and
 * the lengths block, N blocks — is cut into segments of GCM_SEGMENT
 * blocks counted from the end (the first segment may be shorter). Since
 * GHASH is Horner's rule in H, a segment's value V = Σ X_i·H^(k−i+1) over
 * its k blocks gives GHASH = Σ_j V_j·H^(blocks after segment j), and units
 * of GCM_SEGMENT·16^l blocks combine the same way with H^(GCM_SEGMENT·16^l).
 *
 * gcm_crypt: one work-item per segment encrypts (or decrypts) the
 *   segment's data blocks in counter mode, two at a time; the work-item of
 *   each message's first segment also computes E(K, J0). (A single message
 *   uses aes_ctr with inc32 instead, and the host computes E(K, J0).)
 * gcm_hash: one work-item per segment computes V from the ciphertext (run
 *   after gcm_crypt to seal, before it to open), GHASH_WAYS blocks at a
 *   time: Y' = (Y ⊕ X1)·H² ⊕ X2·H (or with four blocks and H⁴..H), that
 *   many independent products and one reduction. It needs no tables.
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

#ifndef GHASH_GROUP
#define GHASH_GROUP 256
#endif
/* Tuning: work-groups of gcm_hash resident per multiprocessor (caps its
 * registers on CUDA), and blocks aggregated per reduction (4 or 2). The
 * defaults were the fastest on an H100 (docs/BENCHMARKS.md). */
#ifndef GHASH_GROUPS
#define GHASH_GROUPS 3
#endif
#ifndef GHASH_WAYS
#define GHASH_WAYS 2
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

/* GHASH's input block b of message d: AAD, ciphertext or lengths. */
DEVICE_FN void gcm_hash_input(GLOBAL const u32 *d, GLOBAL const u8 *ad, GLOBAL const u8 *text, u32 b, u32 *x) {
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
		u32 n = len - 16u * c;
		if (n >= 16u) {
			u32x4 v = ((GLOBAL const u32x4 *)text)[c];
			ghash_from_block(x, v.x, v.y, v.z, v.w);
		} else {
			gcm_partial_element(x, text + 16u * c, n);
		}
	} else {
		u64 abits = (u64)alen * 8u, cbits = (u64)len * 8u;
		x[0] = (u32)(abits >> 32); x[1] = (u32)abits; x[2] = (u32)(cbits >> 32); x[3] = (u32)cbits;
	}
}

KERNEL KERNEL_BOUNDS(GHASH_GROUP, GHASH_GROUPS) void gcm_hash(GLOBAL const u32 *keys, const u32 key_words,
	GLOBAL const u32 *msgs, const u32 messages, GLOBAL const u32 *segment_message,
	GLOBAL const u8 *text, GLOBAL const u8 *aad, GLOBAL u32 *values, const u32 segments) {
	for (u32 g = GID(); g < segments; g += GSIZE()) {
		u32 m = messages == 1u ? 0u : segment_message[g];
		GLOBAL const u32 *d = msgs + MSG_WORDS * m;
		GLOBAL const u32 *key = keys + key_words * d[MSG_KEY];
		u32 h1[4], h2[4], h3[4], h4[4];
		for (u32 i = 0; i < 4; i++) {
			h1[i] = key[KEY_RECORD_H + i];
			h2[i] = key[KEY_RECORD_H + 4 + i];
			h3[i] = key[KEY_RECORD_H + 8 + i];
			h4[i] = key[KEY_RECORD_H + 12 + i];
		}
		u32 begin, end;
		gcm_segment_range(d, g, &begin, &end);
		u32 na = (d[MSG_AAD_LEN] + 15u) >> 4;
		u32 full = na + (d[MSG_LEN] >> 4); /* blocks before it are AAD or full data blocks */
		GLOBAL const u8 *ad = aad + d[MSG_AAD];
		GLOBAL const u8 *tx = text + d[MSG_DATA];
		u32 y[4] = {0, 0, 0, 0};
		u32 b = begin;
		for (; (end - b) & (GHASH_WAYS - 1u); b++) {
			u32 x[4];
			gcm_hash_input(d, ad, tx, b, x);
			y[0] ^= x[0]; y[1] ^= x[1]; y[2] ^= x[2]; y[3] ^= x[3];
			ghash_mul(y, h1);
		}
#if GHASH_WAYS == 4
		for (; b < end; b += 4u) {
			u32 x1[4], x2[4], x3[4], x4[4];
			if (b >= na && b + 4u <= full) {
				GLOBAL const u32x4 *p = (GLOBAL const u32x4 *)tx + (b - na);
				u32x4 v1 = p[0], v2 = p[1], v3 = p[2], v4 = p[3];
				ghash_from_block(x1, v1.x, v1.y, v1.z, v1.w);
				ghash_from_block(x2, v2.x, v2.y, v2.z, v2.w);
				ghash_from_block(x3, v3.x, v3.y, v3.z, v3.w);
				ghash_from_block(x4, v4.x, v4.y, v4.z, v4.w);
			} else {
				gcm_hash_input(d, ad, tx, b, x1);
				gcm_hash_input(d, ad, tx, b + 1u, x2);
				gcm_hash_input(d, ad, tx, b + 2u, x3);
				gcm_hash_input(d, ad, tx, b + 3u, x4);
			}
			y[0] ^= x1[0]; y[1] ^= x1[1]; y[2] ^= x1[2]; y[3] ^= x1[3];
			u64 r[4] = {0, 0, 0, 0};
			ghash_clmul_acc(y, h4, r);
			ghash_clmul_acc(x2, h3, r);
			ghash_clmul_acc(x3, h2, r);
			ghash_clmul_acc(x4, h1, r);
			ghash_reduce(r, y);
		}
#else
		for (; b < end; b += 2u) {
			u32 x1[4], x2[4];
			if (b >= na && b + 2u <= full) {
				GLOBAL const u32x4 *p = (GLOBAL const u32x4 *)tx + (b - na);
				u32x4 v1 = p[0], v2 = p[1];
				ghash_from_block(x1, v1.x, v1.y, v1.z, v1.w);
				ghash_from_block(x2, v2.x, v2.y, v2.z, v2.w);
			} else {
				gcm_hash_input(d, ad, tx, b, x1);
				gcm_hash_input(d, ad, tx, b + 1u, x2);
			}
			y[0] ^= x1[0]; y[1] ^= x1[1]; y[2] ^= x1[2]; y[3] ^= x1[3];
			u64 r[4] = {0, 0, 0, 0};
			ghash_clmul_acc(y, h2, r);
			ghash_clmul_acc(x2, h1, r);
			ghash_reduce(r, y);
		}
#endif
		values[4 * g] = y[0]; values[4 * g + 1] = y[1]; values[4 * g + 2] = y[2]; values[4 * g + 3] = y[3];
	}
}

/* One data block c of message d in counter mode (possibly partial). */
DEVICE_FN void gcm_crypt_block(LOCAL_PTR const u32 *t, u32 lane4, const u32 *rk, u32 rounds, GLOBAL const u32 *d,
	GLOBAL const u8 *in, GLOBAL u8 *out, u32 j0_3, u32 c) {
	u32 s[4] = {d[MSG_J0], d[MSG_J0 + 1], d[MSG_J0 + 2], bswap32(j0_3 + 1u + c)};
	aes_encrypt(t, lane4, rk, rounds, s);
	u32 n = d[MSG_LEN] - 16u * c;
	if (n >= 16u) {
		u32x4 v = ((GLOBAL const u32x4 *)in)[c];
		v.x ^= s[0]; v.y ^= s[1]; v.z ^= s[2]; v.w ^= s[3];
		((GLOBAL u32x4 *)out)[c] = v;
	} else {
		u32 w[4];
		load_partial(w, in + 16u * c, n);
		w[0] ^= s[0]; w[1] ^= s[1]; w[2] ^= s[2]; w[3] ^= s[3];
		store_partial(out + 16u * c, w, n);
	}
}

/* messages == 1: every segment is message 0's (segment_message unread). */
KERNEL KERNEL_BOUNDS(AES_GROUP, 1) void gcm_crypt(LOCAL_ARG(u32, t), GLOBAL const u32 *tables,
	GLOBAL const u32 *keys, const u32 key_words, GLOBAL const u32 *msgs, const u32 messages,
	GLOBAL const u32 *segment_message, GLOBAL const u8 *src, GLOBAL u8 *dst, GLOBAL u32 *ekj0, const u32 segments) {
	LOCAL_BIND(u32, t);
	aes_fill_round_table(t, tables);
	BARRIER_LOCAL();
	u32 lane4 = (LID() & 31u) << 2;
	for (u32 g = GID(); g < segments; g += GSIZE()) {
		u32 m = messages == 1u ? 0u : segment_message[g];
		GLOBAL const u32 *d = msgs + MSG_WORDS * m;
		GLOBAL const u32 *key = keys + key_words * d[MSG_KEY];
		u32 rounds = key[KEY_RECORD_ROUNDS];
		u32 rk[60];
		aes_load_schedule(rk, key, rounds);
		u32 begin, end;
		gcm_segment_range(d, g, &begin, &end);
		u32 len = d[MSG_LEN];
		u32 na = (d[MSG_AAD_LEN] + 15u) >> 4, nc = (len + 15u) >> 4;
		/* the segment's data blocks, as data block numbers */
		u32 c0 = begin > na ? begin - na : 0u;
		u32 c1 = end > na ? min(end - na, nc) : 0u;
		u32 full = len >> 4;
		GLOBAL const u8 *in = src + d[MSG_DATA];
		GLOBAL u8 *out = dst + d[MSG_DATA];
		u32 j0_3 = bswap32(d[MSG_J0 + 3]);
		u32 c = c0;
		for (; c + 2u <= c1 && c + 2u <= full; c += 2u) {
			u32 s[4] = {d[MSG_J0], d[MSG_J0 + 1], d[MSG_J0 + 2], bswap32(j0_3 + 1u + c)};
			u32 v[4] = {d[MSG_J0], d[MSG_J0 + 1], d[MSG_J0 + 2], bswap32(j0_3 + 2u + c)};
			aes_encrypt2(t, lane4, rk, rounds, s, v);
			u32x4 p = ((GLOBAL const u32x4 *)in)[c];
			u32x4 q = ((GLOBAL const u32x4 *)in)[c + 1u];
			p.x ^= s[0]; p.y ^= s[1]; p.z ^= s[2]; p.w ^= s[3];
			q.x ^= v[0]; q.y ^= v[1]; q.z ^= v[2]; q.w ^= v[3];
			((GLOBAL u32x4 *)out)[c] = p;
			((GLOBAL u32x4 *)out)[c + 1u] = q;
		}
		for (; c < c1; c++)
			gcm_crypt_block(t, lane4, rk, rounds, d, in, out, j0_3, c);
		if (g == d[MSG_FIRST_SEGMENT]) {
			u32 s[4] = {d[MSG_J0], d[MSG_J0 + 1], d[MSG_J0 + 2], d[MSG_J0 + 3]};
			aes_encrypt(t, lane4, rk, rounds, s);
			ekj0[4 * m] = s[0]; ekj0[4 * m + 1] = s[1]; ekj0[4 * m + 2] = s[2]; ekj0[4 * m + 3] = s[3];
		}
	}
}

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
