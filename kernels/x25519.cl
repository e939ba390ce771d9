/* x25519.cl: batched X25519 (RFC 7748), one work-item per scalar
 * multiplication. Inputs and outputs are limb-major batches of 8 limbs. */
#include "fe25519.h"

#define FE(op) fe25519_##op
#define NL 8
#define SCALAR_BITS 255
#define A24 121665u
#define LADDER x25519_ladder
#include "ladder.h"
#undef FE
#undef NL
#undef SCALAR_BITS
#undef A24
#undef LADDER

/* out[i] = X25519(k[i], u[i]); k clamped, u masked by the host. */
KERNEL void x25519(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT k,
	GLOBAL const u32 *RESTRICT u, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 ui[8], r[8];
	for (int j = 0; j < 8; j++) ui[j] = LIMB(u + i, j, count);
	x25519_ladder(r, k + i, count, ui);
	for (int j = 0; j < 8; j++) LIMB(out + i, j, count) = r[j];
}

/* out[i] = X25519(k[i], 9): public keys. */
KERNEL void x25519_base(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT k, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 ui[8], r[8];
	fe25519_set_small(ui, 9u);
	x25519_ladder(r, k + i, count, ui);
	for (int j = 0; j < 8; j++) LIMB(out + i, j, count) = r[j];
}
