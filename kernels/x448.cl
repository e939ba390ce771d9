/* x448.cl: batched X448 (RFC 7748), one work-item per scalar
 * multiplication over limb-major batches of 14 limbs: kernels x448
 * (variable u; scalars clamped by the host) and x448_base
 * (u = 5, public keys). The ladder and kernels are in ladder.h. */
#include "fe448.h"

#define FE(op) fe448_##op
#define NL 14
#define SCALAR_BITS 448
#define A24 39081u
#define BASE_U 5u
#define LADDER x448_ladder
#define LADDER_KERNEL x448
#define LADDER_BASE_KERNEL x448_base
#include "ladder.h"

/* public keys by the fixed-base comb (comb.h): kernel x448_base_comb,
 * which the Engine uses; x448_base above is kept for comparison */
#define COMB_X448 1
#include "comb_gen.h"
#define COMB_KERNEL x448_base_comb
#include "comb.h"
