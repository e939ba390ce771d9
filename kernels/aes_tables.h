/* aes_tables.h: the AES round tables in local (shared) memory, replicated
 * so that no bank conflict and no global-memory index depends on a secret.
 *
 * The host uploads one small table buffer (aes/tables.go): enc[256], the
 * column MixColumns makes of S[x] in row 0, as little-endian column words;
 * dec[256], the same for the inverse cipher; the inverse S-box packed four
 * bytes to a word (64 words). Each work-group copies it into local memory
 * at the start of a kernel, at indexes that depend only on the work-item.
 *
 * Why the lookups are constant-time. A lookup's index depends on the key
 * and the data. Local memory is split into 32 banks of 4-byte words; a
 * warp's loads take one pass per distinct word of the busiest bank, so a
 * shared table indexed by secrets leaks them through its timing (bank
 * conflicts). Here every table is stored 32 times, interleaved: entry x of
 * copy l sits in bank l, and work-item l of each group of 32 (a warp) only
 * reads copy l. Every load of a warp is then one pass whatever the indexes,
 * so its time does not depend on them (Tezcan's layout). Global memory is
 * never indexed by a secret: kernels read their inputs and round keys at
 * addresses made of work-item and message numbers only. The lane part of
 * an address is lane4 = 4·(LID mod 32).
 *
 * Two layouts, chosen by the host from the device's local memory:
 *
 * AES_TABLES_WIDE=1 (128 KB for the round tables; CUDA's opt-in shared
 *   memory): the four rotated tables T0..T3 are all stored. A row of
 *   256 bytes holds entry x of two tables for the 32 lanes, so the byte
 *   offset of entry x for lane l is x·256 + 4·l — one byte permutation
 *   (prmt) of the state word and lane4 — and the table is an immediate
 *   offset: T0 at 0, T1 at 128, T2 at 65536, T3 at 65536 + 128.
 *
 * AES_TABLES_WIDE=0 (32 KB, fits OpenCL's 48 KB): only T0 is stored
 *   (x·128 + 4·l); T1..T3 are T0 rotated by 8, 16 and 24 bits.
 *
 * The inverse S-box (decryption's last round) follows the round tables:
 * word x/4 of copy l at (x/4)·128 + 4·l, 8 KB.
 */
#pragma once
#include "dialect.h"
#include "limb.h"

#ifndef AES_TABLES_WIDE
#error "AES_TABLES_WIDE must be defined (0 or 1)"
#endif

#if AES_TABLES_WIDE
#define AES_ROUND_TABLE_BYTES 131072u
#else
#define AES_ROUND_TABLE_BYTES 32768u
#endif
#define AES_INV_SBOX_BYTES 8192u
/* Local memory a kernel needs: encryption only, or decryption. */
#define AES_ENC_LOCAL_BYTES AES_ROUND_TABLE_BYTES
#define AES_DEC_LOCAL_BYTES (AES_ROUND_TABLE_BYTES + AES_INV_SBOX_BYTES)

DEVICE_FN u32 aes_rotl(u32 x, u32 n) { return (x << n) | (x >> (32u - n)); }

/* aes_fill_round_table copies src[256] (enc or dec) into t with its
 * replicas; every work-item of the group takes part. */
DEVICE_FN void aes_fill_round_table(LOCAL_PTR u32 *t, GLOBAL const u32 *src) {
#if AES_TABLES_WIDE
	/* word i: region i>>14 (T0|T1 or T2|T3), entry (i>>6)&255, table
	 * 2·region + ((i>>5)&1), lane i&31. */
	for (u32 i = LID(); i < 32768u; i += LSIZE()) {
		u32 table = ((i >> 14) << 1) | ((i >> 5) & 1u);
		u32 w = src[(i >> 6) & 255u];
		t[i] = table ? aes_rotl(w, 8u * table) : w;
	}
#else
	for (u32 i = LID(); i < 8192u; i += LSIZE())
		t[i] = src[i >> 5];
#endif
}

DEVICE_FN void aes_fill_inv_sbox(LOCAL_PTR u32 *t, GLOBAL const u32 *packed) {
	for (u32 i = LID(); i < 2048u; i += LSIZE())
		t[i] = packed[i >> 5];
}

/* AES_LOOK(t, j, x, k, lane4): entry (byte k of x) of table Tj, lane
 * lane4/4's copy. j and k are constants. */
#if AES_TABLES_WIDE
#define AES_TABLE_OFFSET_0 0u
#define AES_TABLE_OFFSET_1 128u
#define AES_TABLE_OFFSET_2 65536u
#define AES_TABLE_OFFSET_3 65664u
#define AES_ENTRY(x, k, lane4) BYTE_PERM((x), (lane4), 0x5504u | ((k) << 4))
#define AES_LOOK(t, j, x, k, lane4) \
	(*(LOCAL_PTR const u32 *)((LOCAL_PTR const u8 *)(t) + AES_TABLE_OFFSET_##j + AES_ENTRY(x, k, lane4)))
#else
#define AES_ENTRY(x, k, lane4) (((((x) >> (8u * (k))) & 0xffu) << 7) | (lane4))
#define AES_LOOK0(t, x, k, lane4) (*(LOCAL_PTR const u32 *)((LOCAL_PTR const u8 *)(t) + AES_ENTRY(x, k, lane4)))
#define AES_LOOK(t, j, x, k, lane4) ((j) ? aes_rotl(AES_LOOK0(t, x, k, lane4), 8u * (j)) : AES_LOOK0(t, x, k, lane4))
#endif

/* Byte k of x through the inverse S-box, in the low byte. */
DEVICE_FN u32 aes_inv_sbox(LOCAL_PTR const u32 *t, u32 x, u32 k, u32 lane4) {
	u32 v = (x >> (8u * k)) & 0xffu;
	u32 w = *(LOCAL_PTR const u32 *)((LOCAL_PTR const u8 *)t + AES_ROUND_TABLE_BYTES + ((v >> 2) << 7) + lane4);
	return (w >> ((v & 3u) << 3)) & 0xffu;
}
