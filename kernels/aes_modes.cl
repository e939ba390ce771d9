/* aes_modes.cl: AES-CBC and AES-XTS on batches of messages (XTS: data
 * units), each with its own key, IV or tweak and length.
 *
 * The host (aes/cbc.go, aes/xts.go) packs a batch into one data buffer,
 * each message at a multiple of 16 bytes (an XTS unit's partial last block
 * is padded to 16 bytes there), and describes it with:
 *
 *   key records, 64 words each: a schedule of aes/key.go (enc or dec, as
 *     the kernel needs) in words 0..59 and the number of rounds at 60;
 *   message descriptors, 8 words each: key record, data offset (blocks),
 *     size (CBC: blocks; XTS: bytes), first run, and the IV (CBC) or tweak
 *     (XTS) as four little-endian words;
 *   the run map: the message of each run (unread when messages == 1).
 *
 * A run is up to `run` consecutive blocks of one message that one
 * work-item handles: runs j = 0, 1, ... of a message start at block j·run
 * and the message's first run is numbered first_run in the launch.
 *
 * Kernels and their split of the work:
 *
 *   cbc_encrypt: one work-item per message. C_i = E(P_i ⊕ C_{i−1}),
 *     C_{−1} = IV, is sequential; the data are encrypted in place.
 *   cbc_decrypt: one work-item per run. P_i = D(C_i) ⊕ C_{i−1} needs only
 *     ciphertext, so every block is independent; a run reads the block
 *     before it (or the IV) and writes to a second buffer, since a
 *     neighbouring run still reads the ciphertext it would overwrite.
 *   xts_tweak: one work-item per data unit, T_0 = E_K2(tweak) (encryption
 *     tables, key2's schedule). It is a kernel of its own because XTS
 *     decryption needs the decryption tables and the inverse S-box for
 *     key1, and both table sets do not fit 48 KB of OpenCL local memory.
 *   xts_encrypt, xts_decrypt: one work-item per run of a unit's full
 *     blocks, in place (a run reads and writes its own blocks only). The
 *     run's first tweak T_begin = T_0·α^begin is computed with shifts by
 *     public amounts (xts_mul_x_pow), then T_{i+1} = T_i·α per block. The
 *     run holding the last full block also does the ciphertext stealing
 *     of a partial last block (IEEE 1619-2007 §5.3.2 and §5.4.2).
 *
 * Why the kernels are constant-time. The tables are only read through
 * aes_tables.h's macros (replicated per lane: no bank conflict depends on
 * an index; see that file). Everything else is indexed by work-item,
 * message and block numbers and branches only on them and on lengths,
 * which are public: keys are read from key records at the message's
 * record, data at offsets made of positions. Tweak arithmetic in
 * GF(2^128) is shifts by constants or by public block counts, XORs and a
 * mask made of the carried-out bit, never a branch on the tweak. The
 * stealing merges bytes with masks made of the (public) tail length.
 *
 * Every kernel loops over its work with a stride of the whole launch, so
 * the host launches only as many work-groups as the device keeps busy and
 * each work-group fills its local tables once. The host defines
 * AES_TABLES_WIDE and AES_GROUP (the work-group size of the launches);
 * GCM_SEGMENT, defined for aes.cl, is not used here. */
#include "aes_cipher.h"

#ifndef AES_GROUP
#error "AES_GROUP must be defined"
#endif

/* Key records: their layout is the host's (aes/engine.go): the number of
 * rounds at KEY_RECORD_ROUNDS, MODE_RECORD_WORDS words each. */
#if !defined(KEY_RECORD_ROUNDS) || !defined(MODE_RECORD_WORDS)
#error "KEY_RECORD_ROUNDS and MODE_RECORD_WORDS must be defined"
#endif

/* Message descriptors. */
#define MODE_KEY 0
#define MODE_DATA 1
#define MODE_SIZE 2
#define MODE_FIRST_RUN 3
#define MODE_IV 4
#define MODE_WORDS 8

/* mode_key loads the schedule of message d's key record into rk and
 * returns its number of rounds. */
DEVICE_FN u32 mode_key(u32 *rk, GLOBAL const u32 *keys, GLOBAL const u32 *d) {
	GLOBAL const u32 *key = keys + MODE_RECORD_WORDS * d[MODE_KEY];
	u32 rounds = key[KEY_RECORD_ROUNDS];
	aes_load_schedule(rk, key, rounds);
	return rounds;
}

KERNEL KERNEL_BOUNDS(AES_GROUP, 1) void cbc_encrypt(LOCAL_ARG(u32, t), GLOBAL const u32 *tables,
	GLOBAL const u32 *keys, GLOBAL const u32 *msgs, const u32 messages, GLOBAL u32x4 *data) {
	LOCAL_BIND(u32, t);
	aes_fill_round_table(t, tables);
	BARRIER_LOCAL();
	u32 lane4 = (LID() & 31u) << 2;
	for (u32 m = GID(); m < messages; m += GSIZE()) {
		GLOBAL const u32 *d = msgs + MODE_WORDS * m;
		u32 rk[60];
		u32 rounds = mode_key(rk, keys, d);
		u32 s[4] = {d[MODE_IV], d[MODE_IV + 1], d[MODE_IV + 2], d[MODE_IV + 3]};
		GLOBAL u32x4 *p = data + d[MODE_DATA];
		u32 blocks = d[MODE_SIZE];
		for (u32 i = 0; i < blocks; i++) {
			u32x4 v = p[i];
			s[0] ^= v.x; s[1] ^= v.y; s[2] ^= v.z; s[3] ^= v.w;
			aes_encrypt(t, lane4, rk, rounds, s);
			v.x = s[0]; v.y = s[1]; v.z = s[2]; v.w = s[3];
			p[i] = v;
		}
	}
}

KERNEL KERNEL_BOUNDS(AES_GROUP, 1) void cbc_decrypt(LOCAL_ARG(u32, t), GLOBAL const u32 *tables,
	GLOBAL const u32 *keys, GLOBAL const u32 *msgs, const u32 messages, GLOBAL const u32 *run_message,
	const u32 runs, const u32 run, GLOBAL const u32x4 *src, GLOBAL u32x4 *dst) {
	LOCAL_BIND(u32, t);
	aes_fill_round_table(t, tables + 256);
	aes_fill_inv_sbox(t + AES_ROUND_TABLE_BYTES / 4, tables + 512);
	BARRIER_LOCAL();
	u32 lane4 = (LID() & 31u) << 2;
	for (u32 r = GID(); r < runs; r += GSIZE()) {
		u32 m = messages == 1u ? 0u : run_message[r];
		GLOBAL const u32 *d = msgs + MODE_WORDS * m;
		u32 rk[60];
		u32 rounds = mode_key(rk, keys, d);
		u32 blocks = d[MODE_SIZE];
		u32 begin = (r - d[MODE_FIRST_RUN]) * run;
		u32 end = blocks - begin > run ? begin + run : blocks;
		GLOBAL const u32x4 *in = src + d[MODE_DATA];
		GLOBAL u32x4 *out = dst + d[MODE_DATA];
		u32 prev[4] = {d[MODE_IV], d[MODE_IV + 1], d[MODE_IV + 2], d[MODE_IV + 3]};
		if (begin > 0) {
			u32x4 c = in[begin - 1u];
			prev[0] = c.x; prev[1] = c.y; prev[2] = c.z; prev[3] = c.w;
		}
		for (u32 i = begin; i < end; i++) {
			u32x4 c = in[i];
			u32 s[4] = {c.x, c.y, c.z, c.w};
			aes_decrypt(t, lane4, rk, rounds, s);
			u32x4 p;
			p.x = s[0] ^ prev[0]; p.y = s[1] ^ prev[1]; p.z = s[2] ^ prev[2]; p.w = s[3] ^ prev[3];
			out[i] = p;
			prev[0] = c.x; prev[1] = c.y; prev[2] = c.z; prev[3] = c.w;
		}
	}
}

/* XTS tweaks are elements of GF(2^128) mod x^128 + x^7 + x^2 + x + 1 in
 * IEEE 1619's little-endian order: bit k of byte j is the coefficient of
 * x^(8j+k). tw[0] holds bytes 0..7, tw[1] bytes 8..15.
 *
 * xts_mul_x_pow multiplies by x^j, 1 ≤ j ≤ 57: the j bits shifted out of
 * the top, over, stand for over·x^128 = over·(x^7 + x^2 + x + 1), which
 * has fewer than 64 bits for j ≤ 57 and is added to the low word. j is a
 * block count (public); the tweak only passes through shifts and XORs. */
DEVICE_FN void xts_mul_x_pow(u64 *tw, u32 j) {
	u64 over = tw[1] >> (64u - j);
	tw[1] = (tw[1] << j) | (tw[0] >> (64u - j));
	tw[0] = (tw[0] << j) ^ over ^ (over << 1) ^ (over << 2) ^ (over << 7);
}

/* xts_advance multiplies by α^n = x^n (n public). */
DEVICE_FN void xts_advance(u64 *tw, u32 n) {
	while (n > 0u) {
		u32 j = n < 57u ? n : 57u;
		xts_mul_x_pow(tw, j);
		n -= j;
	}
}

/* xts_block is one block through XTS's XEX: s = E(s ⊕ T) ⊕ T, or with D.
 * decrypt is a constant of the calling kernel. */
DEVICE_FN void xts_block(LOCAL_PTR const u32 *t, u32 lane4, const u32 *rk, u32 rounds, u32 *s, const u64 *tw,
	const u32 decrypt) {
	u32 w[4] = {(u32)tw[0], (u32)(tw[0] >> 32), (u32)tw[1], (u32)(tw[1] >> 32)};
	s[0] ^= w[0]; s[1] ^= w[1]; s[2] ^= w[2]; s[3] ^= w[3];
	if (decrypt)
		aes_decrypt(t, lane4, rk, rounds, s);
	else
		aes_encrypt(t, lane4, rk, rounds, s);
	s[0] ^= w[0]; s[1] ^= w[1]; s[2] ^= w[2]; s[3] ^= w[3];
}

KERNEL KERNEL_BOUNDS(AES_GROUP, 1) void xts_tweak(LOCAL_ARG(u32, t), GLOBAL const u32 *tables,
	GLOBAL const u32 *keys, GLOBAL const u32 *msgs, const u32 messages, GLOBAL u32x4 *tweaks) {
	LOCAL_BIND(u32, t);
	aes_fill_round_table(t, tables);
	BARRIER_LOCAL();
	u32 lane4 = (LID() & 31u) << 2;
	for (u32 m = GID(); m < messages; m += GSIZE()) {
		GLOBAL const u32 *d = msgs + MODE_WORDS * m;
		u32 rk[60];
		u32 rounds = mode_key(rk, keys, d);
		u32 s[4] = {d[MODE_IV], d[MODE_IV + 1], d[MODE_IV + 2], d[MODE_IV + 3]};
		aes_encrypt(t, lane4, rk, rounds, s);
		u32x4 v;
		v.x = s[0]; v.y = s[1]; v.z = s[2]; v.w = s[3];
		tweaks[m] = v;
	}
}

/* xts_run is run r of an XTS launch: its full blocks and, in the run of
 * the last full block m−1 of a unit with tail = len mod 16 > 0 bytes
 * after it, the stealing. With T = T_{m−1}, T' = T_m:
 *   encryption: CC = XEX(P_{m−1}, T); C_m = CC[0:tail];
 *               C_{m−1} = XEX(P_m ‖ CC[tail:16], T');
 *   decryption: PP = XEX⁻¹(C_{m−1}, T'); P_m = PP[0:tail];
 *               P_{m−1} = XEX⁻¹(C_m ‖ PP[tail:16], T).
 * The partial block's padding in the buffer is written as zeros. */
DEVICE_FN void xts_run(LOCAL_PTR const u32 *t, u32 lane4, GLOBAL const u32 *keys, GLOBAL const u32 *msgs,
	const u32 messages, GLOBAL const u32 *run_message, u32 r, const u32 run, GLOBAL const u32x4 *tweaks,
	GLOBAL u32x4 *data, const u32 decrypt) {
	u32 m = messages == 1u ? 0u : run_message[r];
	GLOBAL const u32 *d = msgs + MODE_WORDS * m;
	u32 rk[60];
	u32 rounds = mode_key(rk, keys, d);
	u32 len = d[MODE_SIZE];
	u32 full = len >> 4, tail = len & 15u;
	u32 begin = (r - d[MODE_FIRST_RUN]) * run;
	u32 end = full - begin > run ? begin + run : full;
	GLOBAL u32x4 *p = data + d[MODE_DATA];
	u32x4 t0 = tweaks[m];
	u64 tw[2] = {(u64)t0.x | ((u64)t0.y << 32), (u64)t0.z | ((u64)t0.w << 32)};
	xts_advance(tw, begin);
	for (u32 i = begin; i < end; i++) {
		u32x4 v = p[i];
		u32 s[4] = {v.x, v.y, v.z, v.w};
		if (tail != 0u && i + 1u == full) {
			u64 next[2] = {tw[0], tw[1]};
			xts_mul_x_pow(next, 1u);
			u32x4 w = p[i + 1u];
			u32 part[4] = {w.x, w.y, w.z, w.w};
			/* keep[k]: the bytes of word k below tail */
			u32 keep[4];
			for (u32 k = 0; k < 4u; k++)
				keep[k] = tail >= 4u * k + 4u ? 0xffffffffu : (tail > 4u * k ? (1u << (8u * (tail - 4u * k))) - 1u : 0u);
			xts_block(t, lane4, rk, rounds, s, decrypt ? next : tw, decrypt);
			u32 c[4];
			for (u32 k = 0; k < 4u; k++) {
				c[k] = (part[k] & keep[k]) | (s[k] & ~keep[k]);
				s[k] &= keep[k];
			}
			xts_block(t, lane4, rk, rounds, c, decrypt ? tw : next, decrypt);
			v.x = c[0]; v.y = c[1]; v.z = c[2]; v.w = c[3];
			p[i] = v;
			w.x = s[0]; w.y = s[1]; w.z = s[2]; w.w = s[3];
			p[i + 1u] = w;
		} else {
			xts_block(t, lane4, rk, rounds, s, tw, decrypt);
			v.x = s[0]; v.y = s[1]; v.z = s[2]; v.w = s[3];
			p[i] = v;
		}
		xts_mul_x_pow(tw, 1u);
	}
}

KERNEL KERNEL_BOUNDS(AES_GROUP, 1) void xts_encrypt(LOCAL_ARG(u32, t), GLOBAL const u32 *tables,
	GLOBAL const u32 *keys, GLOBAL const u32 *msgs, const u32 messages, GLOBAL const u32 *run_message,
	const u32 runs, const u32 run, GLOBAL const u32x4 *tweaks, GLOBAL u32x4 *data) {
	LOCAL_BIND(u32, t);
	aes_fill_round_table(t, tables);
	BARRIER_LOCAL();
	u32 lane4 = (LID() & 31u) << 2;
	for (u32 r = GID(); r < runs; r += GSIZE())
		xts_run(t, lane4, keys, msgs, messages, run_message, r, run, tweaks, data, 0u);
}

KERNEL KERNEL_BOUNDS(AES_GROUP, 1) void xts_decrypt(LOCAL_ARG(u32, t), GLOBAL const u32 *tables,
	GLOBAL const u32 *keys, GLOBAL const u32 *msgs, const u32 messages, GLOBAL const u32 *run_message,
	const u32 runs, const u32 run, GLOBAL const u32x4 *tweaks, GLOBAL u32x4 *data) {
	LOCAL_BIND(u32, t);
	aes_fill_round_table(t, tables + 256);
	aes_fill_inv_sbox(t + AES_ROUND_TABLE_BYTES / 4, tables + 512);
	BARRIER_LOCAL();
	u32 lane4 = (LID() & 31u) << 2;
	for (u32 r = GID(); r < runs; r += GSIZE())
		xts_run(t, lane4, keys, msgs, messages, run_message, r, run, tweaks, data, 1u);
}
