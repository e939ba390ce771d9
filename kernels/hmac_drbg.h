/* hmac_drbg.h: the nonces of ECDSA P-256 signatures as crypto/ecdsa makes
 * them (Go 1.24 and later), derived on the device so that the host does
 * not spend its cores on HMAC: "hedged" nonces
 * (draft-irtf-cfrg-det-sigs-with-noise), an HMAC_DRBG (NIST SP 800-90A
 * §10.1.2) over HMAC-SHA512 instantiated with
 *
 *   entropy          Z, 32 random bytes from the caller's reader,
 *   nonce            none,
 *   personalization  d ‖ bits2octets(hash), each part preceded by zeros up
 *                    to a multiple of SHA-512's block (128 bytes) of the
 *                    HMAC message before it,
 *
 * whose 32-byte outputs, read big-endian, are drawn until one is in
 * [1, n). The tests compare it with the same DRBG on the host (ecdsa/nonce.go's,
 * as hedgedNonce in the tests uses it).
 *
 *   hmac_drbg_p256_nonce(k, z, d, e);
 *
 * takes Z, the private key d and the hash's integer e (its leftmost 256
 * bits; bits2octets(hash) is e mod n, reduced here) and gives the nonce k,
 * each a number of 8 little-endian words as the rest of the tree stores
 * them (Z is its 32 bytes read big-endian).
 *
 * In terms of the DRBG's key K and value V, each a SHA-512 output:
 *
 *   K = 0, V = 0x01 0x01 ...
 *   for round 0, 1:  K = HMAC(K, V ‖ round ‖ Z ‖ zeros ‖ d ‖ zeros ‖ b)
 *                    V = HMAC(K, V)
 *   candidate:       V = HMAC(K, V); k = V's first 32 bytes
 *   while k is not in [1, n):
 *                    K = HMAC(K, V ‖ 0), V = HMAC(K, V), then a candidate
 *
 * hmac_drbg_round is one update and, from round 1 on, a candidate; the
 * nonce loops over it.
 *
 * SP 800-90A's generate ends with that update of K and V after every
 * candidate; after the accepted one it would serve only a next call, and
 * there is none, so it is skipped. With HMAC's keyed states computed once
 * per key (hmac_sha512_key), a nonce costs 20 SHA-512 compressions: 2 for
 * the zero key, 8 for each instantiation round, 2 for the candidate (and
 * 8 more for each rejected one).
 *
 * Constant time: Z, d and k are secret. Every array is private and indexed
 * by loop counters and SHA-512's fill positions only, which depend on
 * lengths, never on the bytes; there is no branch on them but one: the
 * candidate loop's, on the test "k in [1, n)" (itself without branches: a
 * borrow and an OR of the words). crypto/ecdsa loops the same way. A
 * candidate falls outside [1, n) with probability about 2^−32 (n is just
 * below 2^256), so a second candidate is that rare. The number of
 * candidates, which timing may show, is the only thing that depends on the
 * secrets, and all it reveals is that earlier candidates, discarded, were
 * out of range: a property of pseudorandom HMAC outputs that says nothing
 * usable about d or Z, and nothing about the accepted k, which is a later,
 * independent output.
 *
 * The private arrays that held Z, d, K, V and k are not cleared at the
 * end: they live in registers and private memory of the work-item, which
 * a kernel cannot reliably wipe (compilers drop stores to arrays never
 * read again). The host zeroes its buffers that held d and Z, and the
 * device buffer that held them is a secret one, zeroed after the batch.
 */
#pragma once
#include "sha512.h"
#include "p256.h"

/* HMAC-SHA512 (RFC 2104, FIPS 198-1) with a key of 64 bytes, HMAC_DRBG's
 * K, kept as the SHA-512 states after the key's inner and outer padded
 * blocks, so that several messages under one key hash those blocks once
 * (as nonce.go's generate resets one hmac.Hash):
 *
 *   hmac_sha512_key key;
 *   hmac_sha512_set_key(&key, k);           u32 k[16]: 64 bytes
 *   sha512_state s = key.inner;
 *   sha512_update_words(&s, message, n);    any sha512_update_*
 *   hmac_sha512_final(&key, &s, mac);       u32 mac[16]
 *
 * Words hold 4 bytes each, little-endian, as in sha512.h. */
typedef struct {
	sha512_state inner; /* after (key ‖ zeros) XOR 0x36 ... */
	sha512_state outer; /* after (key ‖ zeros) XOR 0x5c ... */
} hmac_sha512_key;

/* The key k, 16 words, padded with zeros to the block (128 bytes). */
DEVICE_FN void hmac_sha512_set_key(hmac_sha512_key *key, const u32 *k)
{
	u32 inner[32], outer[32];
	for (int j = 0; j < 16; j++) {
		inner[j] = k[j] ^ 0x36363636u;
		outer[j] = k[j] ^ 0x5c5c5c5cu;
	}
	for (int j = 16; j < 32; j++) {
		inner[j] = 0x36363636u;
		outer[j] = 0x5c5c5c5cu;
	}
	sha512_init(&key->inner);
	sha512_update_words(&key->inner, inner, 32);
	sha512_init(&key->outer);
	sha512_update_words(&key->outer, outer, 32);
}

/* Ends the MAC of the message hashed into inner, a copy of key->inner:
 * mac = SHA-512(outer block ‖ SHA-512(inner block ‖ message)), 16 words.
 * inner is spent. */
DEVICE_FN void hmac_sha512_final(const hmac_sha512_key *key, sha512_state *inner, u32 *mac)
{
	sha512_final(inner, mac);
	sha512_state outer = key->outer;
	sha512_update_words(&outer, mac, 16);
	sha512_final(&outer, mac);
}

/* HMAC_DRBG's working state: the key K (as its HMAC states) and V. */
typedef struct {
	hmac_sha512_key key;
	u32 v[16];
} hmac_drbg;

/* V = HMAC(K, V). */
DEVICE_FN void hmac_drbg_next_v(hmac_drbg *g)
{
	sha512_state s = g->key.inner;
	sha512_update_words(&s, g->v, 16);
	hmac_sha512_final(&g->key, &s, g->v);
}

/* One round of HMAC_DRBG's update (SP 800-90A §10.1.2.2):
 * K = HMAC(K, V ‖ round ‖ seed), then V = HMAC(K, V). seed is 0 (none, as
 * after a candidate) or 24 words: Z, d and bits2octets(hash) as 32
 * big-endian bytes each, hashed as nonce.go's newDRBG writes them, d and
 * bits2octets(hash) each from a block boundary. */
DEVICE_FN void hmac_drbg_update(hmac_drbg *g, u32 round, const u32 *seed)
{
	sha512_state s = g->key.inner;
	sha512_update_words(&s, g->v, 16);
	sha512_update_byte(&s, round);
	if (seed != 0) {
		sha512_update_words(&s, seed, 8);      /* entropy: Z */
		sha512_pad_to_block(&s);
		sha512_update_words(&s, seed + 8, 8);  /* personalization: d */
		sha512_pad_to_block(&s);
		sha512_update_words(&s, seed + 16, 8); /* and bits2octets(hash) */
	}
	u32 k[16];
	hmac_sha512_final(&g->key, &s, k);
	hmac_sha512_set_key(&g->key, k);
	hmac_drbg_next_v(g);
}

/* K = 0, V = 0x01 ... 0x01: the state before the instantiation's
 * update. */
DEVICE_FN void hmac_drbg_init(hmac_drbg *g)
{
	u32 zero[16];
	for (int j = 0; j < 16; j++) {
		zero[j] = 0;
		g->v[j] = 0x01010101u;
	}
	hmac_sha512_set_key(&g->key, zero);
}

/* The 8 words of a number (little-endian, word 0 the least significant)
 * as its 32 big-endian bytes in 8 hash words (byte 0 in the low 8 bits of
 * word 0), or back: the same permutation both ways. */
DEVICE_FN void hmac_drbg_big_endian(u32 *out, const u32 *in)
{
	for (int j = 0; j < 8; j++) {
		out[j] = sha512_byte_swap(in[7 - j]);
	}
}

/* The candidate k (a number of 8 words): V = HMAC(K, V), k = V's first 32
 * bytes read big-endian. */
DEVICE_FN void hmac_drbg_candidate(hmac_drbg *g, u32 *k)
{
	hmac_drbg_next_v(g);
	hmac_drbg_big_endian(k, g->v);
}

/* Round round of the nonce's DRBG, from K = 0, V = 0x01 ... 0x01: an
 * update, then from round 1 on a candidate k. Rounds 0 and 1 are the
 * instantiation's (round bytes 0 and 1, with the seed); a later round is
 * the update that ends SP 800-90A's generate after a rejected candidate
 * (round byte 0, no seed), then the next candidate. */
DEVICE_FN void hmac_drbg_round(hmac_drbg *g, u32 round, const u32 *seed, u32 *k)
{
	hmac_drbg_update(g, round == 1, round < 2 ? seed : 0);
	if (round > 0) {
		hmac_drbg_candidate(g, k);
	}
}

/* difference = x − n mod 2^256, in constant time; returns 1 when x < n
 * (the final borrow), else 0. */
DEVICE_FN u32 hmac_drbg_subtract_order(u32 *difference, const u32 *x)
{
	const u32 order[8] = P256_ORDER;
	u32 borrow = 0;
	for (int j = 0; j < 8; j++) {
		const u64 t = (u64)x[j] - order[j] - borrow;
		difference[j] = (u32)t;
		borrow = (u32)(t >> 63);
	}
	return borrow;
}

/* 1 when 1 ≤ k < n, else 0, in constant time. */
DEVICE_FN u32 hmac_drbg_in_range(const u32 *k)
{
	u32 unused[8], any = 0;
	const u32 below = hmac_drbg_subtract_order(unused, k);
	for (int j = 0; j < 8; j++) {
		any |= k[j];
	}
	return below & ((any | (0u - any)) >> 31);
}

/* The seed of hmac_drbg_update (24 words) for Z, the private key d and
 * the hash's integer e (numbers of 8 words): Z, d and bits2octets(hash) as
 * big-endian bytes. */
DEVICE_FN void hmac_drbg_p256_seed(u32 *seed, const u32 *z, const u32 *d, const u32 *e)
{
	/* bits2octets(hash) = e mod n: e < 2^256 < 2n, so at most one
	 * subtraction, kept or not by a mask */
	u32 b[8], reduced[8];
	const u32 keep = 0u - hmac_drbg_subtract_order(reduced, e);
	for (int j = 0; j < 8; j++) {
		b[j] = (e[j] & keep) | (reduced[j] & ~keep);
	}
	hmac_drbg_big_endian(seed, z);
	hmac_drbg_big_endian(seed + 8, d);
	hmac_drbg_big_endian(seed + 16, b);
}

/* k = crypto/ecdsa's hedged nonce for Z, the private key d and the hash's
 * integer e (numbers of 8 words; see the top of this file). */
DEVICE_FN void hmac_drbg_p256_nonce(u32 *k, const u32 *z, const u32 *d, const u32 *e)
{
	u32 seed[24];
	hmac_drbg_p256_seed(seed, z, d, e);
	hmac_drbg g;
	hmac_drbg_init(&g);
	/* One loop for the instantiation and the candidates, not a code path
	 * for each: every HMAC call site inlines SHA-512's compression a few
	 * times (about 3,500 instructions each on sm_90). */
	for (u32 round = 0; ; round++) {
		hmac_drbg_round(&g, round, seed, k);
		/* the one branch on secret data (see the top of this file) */
		if (round > 0 && hmac_drbg_in_range(k)) {
			break;
		}
	}
}
