/* aes_manavski.cl: a BENCHMARK reproduction of Manavski's AES on CUDA
 * (S. A. Manavski, "CUDA compatible GPU as an efficient hardware
 * accelerator for AES cryptography", ICSPC 2007, §5.2): AES encryption in
 * ECB mode, the paper's mode, over a buffer of 16-byte blocks.
 *
 * ********************************************************************
 * NOT CONSTANT-TIME. DO NOT USE FOR ANYTHING BUT MEASUREMENTS.
 * The four T-tables sit in local (shared) memory ONCE, not replicated:
 * the table indexes are bytes of the secret state, so the bank conflicts
 * of every lookup (and so the kernel's time) depend on the key and the
 * data — the cache-timing channel that aes_tables.h exists to close. The
 * library's AES (aes.cl) is the constant-time one; this file is only
 * there to compare the paper's design with it on the same GPU. Its host
 * side is internal/aesvariant, which is not public API.
 * ********************************************************************
 *
 * The design, as the paper gives it (§5.2), and where it had to be read:
 *
 * - The input is cut into chunks of 1024 bytes; one thread block of 256
 *   threads computes one chunk ("One CUDA block of threads is responsible
 *   for computing one chunk of the input. The block is composed of 256 GPU
 *   threads."). The grid has one block per chunk: no block loops over
 *   several chunks ("performance improvement can be observed as the
 *   number of blocks increases").
 * - "Every GPU thread of the block computes four output bytes in each AES
 *   round, so four threads encrypt/decrypt the whole input state": a
 *   thread computes one 32-bit column e_j of equation (1) per round, and
 *   4 threads share one 16-byte block, so 256 threads cover 64 blocks =
 *   1024 bytes. Interpretation: thread l owns word l of its chunk, i.e.
 *   column l mod 4 of block l / 4 of the chunk (the paper does not say
 *   which thread takes which column; this makes its load and store of the
 *   chunk coalesced and keeps every thread on the same word all along).
 * - "Two arrays of 1KB shared memory are used for the input, reading data
 *   from the first and saving results of each AES round to the second one.
 *   Then the arrays are swapped for the successive round." The block loads
 *   its chunk into the first array, and one barrier per round separates
 *   the writes of a round from the reads of the next (with two arrays, a
 *   round never writes the array that its own reads use). Interpretation:
 *   the initial AddRoundKey is applied as the chunk is stored into shared
 *   memory, and the last round's column goes from the thread's register
 *   straight to global memory (the thread that computes word l also
 *   writes word l, so no exchange through shared memory is needed there).
 * - The round: e_j = T0[a0,j] ^ T1[a1,j+1] ^ T2[a2,j+2] ^ T3[a3,j+3] ^ k_j
 *   (equation (1)): four lookups and four XORs per column per round.
 *   The paper does not say how it does the last round (no MixColumns) and
 *   names only the four T-tables, so the S-box is taken out of them:
 *   byte r of T(r+2 mod 4)[x] is S[x] (see the tables below), one lookup
 *   and one mask per byte; no fifth table.
 * - T-tables: the paper keeps them in CONSTANT memory ("The precomputed
 *   T-boxes are pre-loaded in the specific constant memory of the
 *   device"). This variant keeps them in LOCAL (shared) memory, four
 *   tables of 256 words (4 KB), one copy, filled by every block from a
 *   global buffer at its start: that is the benchmark asked for (the
 *   common "T-tables in shared memory" reading of this design), and
 *   dialect.h has no constant address space. The cost of that fill is
 *   4 KB read (from cache) per 1 KB chunk, which the paper's constant
 *   memory did not pay.
 * - The key schedule is expanded on the host (§5: "it was implemented on
 *   the CPU"). The paper's first version loads it into shared memory in
 *   every block (MANAVSKI_KEY_SHARED=1); its final, faster version (the
 *   one its figures report) reads it from texture memory, cached
 *   (MANAVSKI_KEY_SHARED=0): here a const restrict global pointer, read
 *   through the read-only/L1 cache, which is what textures come down to on
 *   current GPUs and what dialect.h can say.
 *
 * Words are little-endian column words: byte r of a word is row r of the
 * state, the order blocks are stored in memory, so no byte swap is done.
 * T0[x] has the bytes (2·S[x], S[x], S[x], 3·S[x]) (the column MixColumns
 * makes of S[x] in row 0) and Tk[x] is T0[x] rotated left by 8k bits
 * (S[x] in row k). Hence byte r of T(r+2 mod 4)[x] is S[x]. The host
 * (internal/aesvariant) uploads T0..T3, 1024 words.
 *
 * Kernel arguments: smem, the block's local memory (MANAVSKI_LOCAL_BYTES);
 * tables, T0..T3; rk, the encryption schedule, 4·(rounds+1) words; rounds
 * (10, 12 or 14); src and dst, words of data (dst may be src: a thread
 * reads word l before it writes word l, and no other thread touches it
 * in global memory); words, the number of data words (a multiple of 4).
 * The host launches ceil(words / 256) blocks of 256 work-items. */
#include "dialect.h"

#ifndef MANAVSKI_KEY_SHARED
#error "MANAVSKI_KEY_SHARED must be defined (0 or 1)"
#endif

/* Threads per block, and words per 1024-byte chunk: the same number. */
#define MANAVSKI_THREADS 256u
#define MANAVSKI_TABLE_WORDS 1024u /* T0..T3 */
#define MANAVSKI_STATE_WORDS 256u  /* one chunk, per array */
#define MANAVSKI_KEY_WORDS 60u     /* AES-256's schedule */
#if MANAVSKI_KEY_SHARED
#define MANAVSKI_LOCAL_BYTES (4u * (MANAVSKI_TABLE_WORDS + 2u * MANAVSKI_STATE_WORDS + MANAVSKI_KEY_WORDS))
#else
#define MANAVSKI_LOCAL_BYTES (4u * (MANAVSKI_TABLE_WORDS + 2u * MANAVSKI_STATE_WORDS))
#endif

KERNEL KERNEL_BOUNDS(256, 1) void manavski_ecb_encrypt(LOCAL_ARG(u32, smem), GLOBAL const u32 *tables,
	GLOBAL const u32 *RESTRICT rk, const u32 rounds, GLOBAL const u32 *src, GLOBAL u32 *dst, const u32 words) {
	LOCAL_BIND(u32, smem);
	LOCAL_PTR u32 *t0 = smem;
	LOCAL_PTR u32 *t1 = smem + 256;
	LOCAL_PTR u32 *t2 = smem + 512;
	LOCAL_PTR u32 *t3 = smem + 768;
	LOCAL_PTR u32 *in = smem + MANAVSKI_TABLE_WORDS;
	LOCAL_PTR u32 *out = in + MANAVSKI_STATE_WORDS;
	const u32 l = LID();
	const u32 g = GID(); /* this thread's word of the whole buffer */
	const u32 col = l & 3u;
	/* byte offset of this thread's block in a state array */
	const u32 blk = (l & ~3u) << 2;

	/* Every block fills the tables (one copy, 4 KB), 4 words a thread. */
	t0[l] = tables[l];
	t1[l] = tables[256u + l];
	t2[l] = tables[512u + l];
	t3[l] = tables[768u + l];
#if MANAVSKI_KEY_SHARED
	/* the paper's first version: the expanded key in shared memory too */
	LOCAL_PTR u32 *k = out + MANAVSKI_STATE_WORDS;
	if (l < 4u * (rounds + 1u))
		k[l] = rk[l];
	BARRIER_LOCAL();
#else
	/* the final version: the key in (texture-)cached memory */
	GLOBAL const u32 *RESTRICT k = rk;
#endif

	/* The chunk into the first array, with the initial AddRoundKey. A
	 * thread past the end of the data (the last chunk may be short)
	 * works on zeros and stores nothing, but keeps to the barriers. */
	const int live = g < words;
	in[l] = (live ? src[g] : 0u) ^ k[col];
	BARRIER_LOCAL();

	for (u32 r = 1; r < rounds; r++) {
		LOCAL_PTR const u8 *a = (LOCAL_PTR const u8 *)in + blk;
		/* byte r of column col + r: a[4·((col + r) mod 4) + r] */
		u32 e = t0[a[4u * col]] ^ t1[a[4u * ((col + 1u) & 3u) + 1u]] ^ t2[a[4u * ((col + 2u) & 3u) + 2u]] ^
			t3[a[4u * ((col + 3u) & 3u) + 3u]] ^ k[4u * r + col];
		out[l] = e;
		BARRIER_LOCAL();
		LOCAL_PTR u32 *swap = in;
		in = out;
		out = swap;
	}

	/* The last round: SubBytes and ShiftRows only, S[x] taken from the
	 * T-tables (byte r of T(r+2 mod 4)[x]). */
	LOCAL_PTR const u8 *a = (LOCAL_PTR const u8 *)in + blk;
	u32 e = (t2[a[4u * col]] & 0x000000ffu) | (t3[a[4u * ((col + 1u) & 3u) + 1u]] & 0x0000ff00u) |
		(t0[a[4u * ((col + 2u) & 3u) + 2u]] & 0x00ff0000u) | (t1[a[4u * ((col + 3u) & 3u) + 3u]] & 0xff000000u);
	e ^= k[4u * rounds + col];
	if (live)
		dst[g] = e;
}
