/* x448.cl: batched X448 (RFC 7748), one work-item per scalar
 * multiplication. Inputs and outputs are limb-major batches of 14 limbs. */
#include "fe448.h"

#define FE(op) fe448_##op
#define NL 14
#define SCALAR_BITS 448
#define A24 39081u
#define LADDER x448_ladder
#include "ladder.h"
#undef FE
#undef NL
#undef SCALAR_BITS
#undef A24
#undef LADDER

/* out[i] = X448(k[i], u[i]); k clamped by the host. */
KERNEL void x448(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT k,
	GLOBAL const u32 *RESTRICT u, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 ui[14], r[14];
	for (int j = 0; j < 14; j++) ui[j] = LIMB(u + i, j, count);
	x448_ladder(r, k + i, count, ui);
	for (int j = 0; j < 14; j++) LIMB(out + i, j, count) = r[j];
}

/* out[i] = X448(k[i], 5): public keys. */
KERNEL void x448_base(GLOBAL u32 *RESTRICT out, GLOBAL const u32 *RESTRICT k, const u32 count)
{
	const u32 i = GID();
	if (i >= count) return;
	u32 ui[14], r[14];
	fe448_set_small(ui, 5u);
	x448_ladder(r, k + i, count, ui);
	for (int j = 0; j < 14; j++) LIMB(out + i, j, count) = r[j];
}
