/* aes_cipher.h: one AES block, encrypted or decrypted with the replicated
 * round tables of aes_tables.h (whose comment gives the constant-time
 * argument). A block is four little-endian column words s0..s3, as loaded
 * from memory; rk is the schedule of aes/key.go (enc or dec), in private
 * memory (registers: every index below is a constant once unrolled), and
 * rounds is 10, 12 or 14. The number of rounds depends on the key's size
 * only, which is not secret. */
#pragma once
#include "aes_tables.h"

/* The last round key: words last..last+3 of rk (40, 48 or 56), chosen
 * with constant indexes so that rk stays in registers. */
DEVICE_FN void aes_last_key(const u32 *rk, u32 last, u32 *k0, u32 *k1, u32 *k2, u32 *k3) {
	*k0 = rk[40]; *k1 = rk[41]; *k2 = rk[42]; *k3 = rk[43];
	if (last == 48) { *k0 = rk[48]; *k1 = rk[49]; *k2 = rk[50]; *k3 = rk[51]; }
	if (last == 56) { *k0 = rk[56]; *k1 = rk[57]; *k2 = rk[58]; *k3 = rk[59]; }
}

/* One full round: column c takes byte k of column c+k through table Tk
 * (encryption), of column c−k (decryption). */
#define AES_ENC_ROUND(t, l, s, n, rk, r) do { \
	n[0] = AES_LOOK(t, 0, s[0], 0, l) ^ AES_LOOK(t, 1, s[1], 1, l) ^ AES_LOOK(t, 2, s[2], 2, l) ^ AES_LOOK(t, 3, s[3], 3, l) ^ rk[4 * (r)]; \
	n[1] = AES_LOOK(t, 0, s[1], 0, l) ^ AES_LOOK(t, 1, s[2], 1, l) ^ AES_LOOK(t, 2, s[3], 2, l) ^ AES_LOOK(t, 3, s[0], 3, l) ^ rk[4 * (r) + 1]; \
	n[2] = AES_LOOK(t, 0, s[2], 0, l) ^ AES_LOOK(t, 1, s[3], 1, l) ^ AES_LOOK(t, 2, s[0], 2, l) ^ AES_LOOK(t, 3, s[1], 3, l) ^ rk[4 * (r) + 2]; \
	n[3] = AES_LOOK(t, 0, s[3], 0, l) ^ AES_LOOK(t, 1, s[0], 1, l) ^ AES_LOOK(t, 2, s[1], 2, l) ^ AES_LOOK(t, 3, s[2], 3, l) ^ rk[4 * (r) + 3]; \
} while (0)

#define AES_DEC_ROUND(t, l, s, n, rk, r) do { \
	n[0] = AES_LOOK(t, 0, s[0], 0, l) ^ AES_LOOK(t, 1, s[3], 1, l) ^ AES_LOOK(t, 2, s[2], 2, l) ^ AES_LOOK(t, 3, s[1], 3, l) ^ rk[4 * (r)]; \
	n[1] = AES_LOOK(t, 0, s[1], 0, l) ^ AES_LOOK(t, 1, s[0], 1, l) ^ AES_LOOK(t, 2, s[3], 2, l) ^ AES_LOOK(t, 3, s[2], 3, l) ^ rk[4 * (r) + 1]; \
	n[2] = AES_LOOK(t, 0, s[2], 0, l) ^ AES_LOOK(t, 1, s[1], 1, l) ^ AES_LOOK(t, 2, s[0], 2, l) ^ AES_LOOK(t, 3, s[3], 3, l) ^ rk[4 * (r) + 2]; \
	n[3] = AES_LOOK(t, 0, s[3], 0, l) ^ AES_LOOK(t, 1, s[2], 1, l) ^ AES_LOOK(t, 2, s[1], 2, l) ^ AES_LOOK(t, 3, s[0], 3, l) ^ rk[4 * (r) + 3]; \
} while (0)

/* Rounds 1 .. rounds−1 with ROUND (AES_ENC_ROUND or AES_DEC_ROUND), the
 * state moving s → n → s ...; it ends in n whatever the number of rounds,
 * and last is the index of the last round key (40, 48 or 56). */
#define AES_MIDDLE_ROUNDS(ROUND, t, l, s, n, rk, rounds, last) do { \
	ROUND(t, l, s, n, rk, 1); ROUND(t, l, n, s, rk, 2); ROUND(t, l, s, n, rk, 3); \
	ROUND(t, l, n, s, rk, 4); ROUND(t, l, s, n, rk, 5); ROUND(t, l, n, s, rk, 6); \
	ROUND(t, l, s, n, rk, 7); ROUND(t, l, n, s, rk, 8); ROUND(t, l, s, n, rk, 9); \
	last = 40; \
	if ((rounds) > 10) { \
		ROUND(t, l, n, s, rk, 10); ROUND(t, l, s, n, rk, 11); \
		last = 48; \
		if ((rounds) > 12) { \
			ROUND(t, l, n, s, rk, 12); ROUND(t, l, s, n, rk, 13); \
			last = 56; \
		} \
	} \
} while (0)

/* Encryption's last round: S[x] is byte 1 of T0[x]; the four bytes of a
 * column are gathered with three byte permutations. */
#define AES_ENC_LAST_COLUMN(t, l, a, b, c, d) \
	BYTE_PERM(BYTE_PERM(AES_LOOK(t, 0, a, 0, l), AES_LOOK(t, 0, b, 1, l), 0x0051u), \
	          BYTE_PERM(AES_LOOK(t, 0, c, 2, l), AES_LOOK(t, 0, d, 3, l), 0x5100u), 0x7610u)

/* The last round: out = SubBytes∘ShiftRows of the state n, plus the last
 * round key k0..k3. */
#define AES_ENC_LAST_ROUND(t, l, n, out, k0, k1, k2, k3) do { \
	out[0] = AES_ENC_LAST_COLUMN(t, l, n[0], n[1], n[2], n[3]) ^ (k0); \
	out[1] = AES_ENC_LAST_COLUMN(t, l, n[1], n[2], n[3], n[0]) ^ (k1); \
	out[2] = AES_ENC_LAST_COLUMN(t, l, n[2], n[3], n[0], n[1]) ^ (k2); \
	out[3] = AES_ENC_LAST_COLUMN(t, l, n[3], n[0], n[1], n[2]) ^ (k3); \
} while (0)

DEVICE_FN void aes_encrypt(LOCAL_PTR const u32 *t, u32 lane4, const u32 *rk, u32 rounds, u32 *s) {
	u32 n[4];
	s[0] ^= rk[0]; s[1] ^= rk[1]; s[2] ^= rk[2]; s[3] ^= rk[3];
	u32 last;
	AES_MIDDLE_ROUNDS(AES_ENC_ROUND, t, lane4, s, n, rk, rounds, last);
	u32 k0, k1, k2, k3;
	aes_last_key(rk, last, &k0, &k1, &k2, &k3);
	AES_ENC_LAST_ROUND(t, lane4, n, s, k0, k1, k2, k3);
}

/* aes_encrypt2 encrypts two blocks at once: twice the independent loads
 * per round for the scheduler to overlap. */
DEVICE_FN void aes_encrypt2(LOCAL_PTR const u32 *t, u32 lane4, const u32 *rk, u32 rounds, u32 *s, u32 *v) {
	u32 n[4], m[4];
	s[0] ^= rk[0]; s[1] ^= rk[1]; s[2] ^= rk[2]; s[3] ^= rk[3];
	v[0] ^= rk[0]; v[1] ^= rk[1]; v[2] ^= rk[2]; v[3] ^= rk[3];
	AES_ENC_ROUND(t, lane4, s, n, rk, 1); AES_ENC_ROUND(t, lane4, v, m, rk, 1);
	AES_ENC_ROUND(t, lane4, n, s, rk, 2); AES_ENC_ROUND(t, lane4, m, v, rk, 2);
	AES_ENC_ROUND(t, lane4, s, n, rk, 3); AES_ENC_ROUND(t, lane4, v, m, rk, 3);
	AES_ENC_ROUND(t, lane4, n, s, rk, 4); AES_ENC_ROUND(t, lane4, m, v, rk, 4);
	AES_ENC_ROUND(t, lane4, s, n, rk, 5); AES_ENC_ROUND(t, lane4, v, m, rk, 5);
	AES_ENC_ROUND(t, lane4, n, s, rk, 6); AES_ENC_ROUND(t, lane4, m, v, rk, 6);
	AES_ENC_ROUND(t, lane4, s, n, rk, 7); AES_ENC_ROUND(t, lane4, v, m, rk, 7);
	AES_ENC_ROUND(t, lane4, n, s, rk, 8); AES_ENC_ROUND(t, lane4, m, v, rk, 8);
	AES_ENC_ROUND(t, lane4, s, n, rk, 9); AES_ENC_ROUND(t, lane4, v, m, rk, 9);
	u32 last = 40;
	if (rounds > 10) {
		AES_ENC_ROUND(t, lane4, n, s, rk, 10); AES_ENC_ROUND(t, lane4, m, v, rk, 10);
		AES_ENC_ROUND(t, lane4, s, n, rk, 11); AES_ENC_ROUND(t, lane4, v, m, rk, 11);
		last = 48;
		if (rounds > 12) {
			AES_ENC_ROUND(t, lane4, n, s, rk, 12); AES_ENC_ROUND(t, lane4, m, v, rk, 12);
			AES_ENC_ROUND(t, lane4, s, n, rk, 13); AES_ENC_ROUND(t, lane4, v, m, rk, 13);
			last = 56;
		}
	}
	u32 k0, k1, k2, k3;
	aes_last_key(rk, last, &k0, &k1, &k2, &k3);
	AES_ENC_LAST_ROUND(t, lane4, n, s, k0, k1, k2, k3);
	AES_ENC_LAST_ROUND(t, lane4, m, v, k0, k1, k2, k3);
}

/* Decryption's last round reads the inverse S-box. */
#define AES_DEC_LAST_COLUMN(t, l, a, b, c, d) \
	(aes_inv_sbox(t, a, 0, l) | (aes_inv_sbox(t, b, 1, l) << 8) | (aes_inv_sbox(t, c, 2, l) << 16) | (aes_inv_sbox(t, d, 3, l) << 24))

DEVICE_FN void aes_decrypt(LOCAL_PTR const u32 *t, u32 lane4, const u32 *rk, u32 rounds, u32 *s) {
	u32 n[4];
	s[0] ^= rk[0]; s[1] ^= rk[1]; s[2] ^= rk[2]; s[3] ^= rk[3];
	u32 last;
	AES_MIDDLE_ROUNDS(AES_DEC_ROUND, t, lane4, s, n, rk, rounds, last);
	u32 k0, k1, k2, k3;
	aes_last_key(rk, last, &k0, &k1, &k2, &k3);
	s[0] = AES_DEC_LAST_COLUMN(t, lane4, n[0], n[3], n[2], n[1]) ^ k0;
	s[1] = AES_DEC_LAST_COLUMN(t, lane4, n[1], n[0], n[3], n[2]) ^ k1;
	s[2] = AES_DEC_LAST_COLUMN(t, lane4, n[2], n[1], n[0], n[3]) ^ k2;
	s[3] = AES_DEC_LAST_COLUMN(t, lane4, n[3], n[2], n[1], n[0]) ^ k3;
}

/* aes_load_schedule reads the rounds of a schedule of 60 words into rk
 * (AES-128 and -192 leave the tail unread). */
DEVICE_FN void aes_load_schedule(u32 *rk, GLOBAL const u32 *src, u32 rounds) {
	UNROLL_OUTER for (u32 i = 0; i < 44; i++) rk[i] = src[i];
	UNROLL_OUTER for (u32 i = 44; i < 60; i++) rk[i] = (i < 4 * rounds + 4) ? src[i] : 0u;
}
