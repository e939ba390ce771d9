/* ecdh_codec.h: keys and results of X25519/X448 between their RFC 7748
 * byte strings and the limb-major rows that the ladder and comb kernels
 * read and write, written once for both curves. The including file
 * defines
 *   NL            limbs per field element (the string's 32-bit words)
 *   DECODE_KERNEL the name of the decoding kernel
 *   ENCODE_KERNEL the name of the encoding kernel
 * A string is read as NL little-endian words (GPUs are little-endian, so
 * a word load of its bytes is the RFC's decoding). Constant time: the
 * masks are applied to every element alike, and every branch and index
 * depends on the position only. */

/* rows[j·count + i] = word j of the string keys[i·NL .. i·NL+NL), the
 * first word ANDed with first_and and the last one ANDed with top_and and
 * ORed with top_or: decodeScalar (clamping) or decodeUCoordinate (the
 * unused top bit of X25519), as the host's masks say. */
KERNEL void DECODE_KERNEL(GLOBAL u32 *RESTRICT rows, GLOBAL const u32 *RESTRICT keys,
	const u32 first_and, const u32 top_and, const u32 top_or, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	for (int j = 0; j < NL; j++) {
		u32 w = keys[i * NL + j];
		if (j == 0) w &= first_and;
		if (j == NL - 1) w = (w & top_and) | top_or;
		rows[j * count + i] = w;
	}
}

/* out[i·NL + j] = rows[j·count + i]: the canonical results, limb-major,
 * as the byte strings of RFC 7748 (little-endian words). */
KERNEL void ENCODE_KERNEL(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT rows, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	for (int j = 0; j < NL; j++) out[i * NL + j] = rows[j * count + i];
}
