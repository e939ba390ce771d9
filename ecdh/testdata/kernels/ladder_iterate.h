/* ladder_iterate.h: the iterated test of RFC 7748 §5.2 on the device, for
 * the tests only (no production program includes it): starting from
 * k = u = 9, each iteration sets k, u = X(k, u), k, where X is the ladder
 * of ladder.h, exactly as the production kernels run it. The chain is
 * sequential, so one work-item runs it, a whole run of iterations per
 * launch, and the state stays in device memory between launches (one
 * launch per iteration costs more in host and launch overhead than the
 * ladder itself). The including file has instantiated ladder.h (FE, NL,
 * LADDER) and defines
 *   ITERATE_KERNEL  the kernel's name
 * Constant time like the ladder: the loop bounds, indices and branches
 * depend on the iteration count and the limb position only. */

/* Runs iterations iterations over state: words [0, NL) hold k and
 * [NL, 2NL) hold u, the RFC's byte strings as NL little-endian words,
 * read and written in place; words [2NL, 3NL) are scratch (the decoded
 * scalar, which the ladder reads from global memory). Each iteration
 * decodes k and u as ecdh_codec.h does, with the host's masks: the first
 * word ANDed with *_and0, the last ANDed with *_and_top and ORed with
 * *_or_top (decodeScalar: s_*; decodeUCoordinate: u_*). Work-items other
 * than the first return at once. */
KERNEL void ITERATE_KERNEL(GLOBAL u32 *RESTRICT state, const u32 iterations,
	const u32 s_and0, const u32 s_and_top, const u32 s_or_top,
	const u32 u_and0, const u32 u_and_top, const u32 u_or_top)
{
	if (GID() != 0) return;
	GLOBAL u32 *k = state, *u = state + NL, *scalar = state + 2 * NL;
	for (u32 it = 0; it < iterations; it++) {
		u32 ui[NL], x2[NL], z2[NL], r[NL];
		for (int j = 0; j < NL; j++) {
			u32 s = k[j], w = u[j];
			if (j == 0) {
				s &= s_and0;
				w &= u_and0;
			}
			if (j == NL - 1) {
				s = (s & s_and_top) | s_or_top;
				w = (w & u_and_top) | u_or_top;
			}
			scalar[j] = s;
			ui[j] = w;
		}
		LADDER(x2, z2, scalar, 1u, ui);
		FE(invert)(z2, z2);          /* u = x2·z2^(p−2), as LADDER_KERNEL */
		FE(mul)(r, x2, z2);
		FE(canon)(r);
		for (int j = 0; j < NL; j++) {
			u[j] = k[j];             /* the new u is the old k, undecoded */
			k[j] = r[j];
		}
	}
}
