/* x25519.cl: batched X25519 (RFC 7748), one work-item per scalar
 * multiplication over limb-major batches of 8 limbs: kernels x25519
 * (variable u; scalars clamped and u masked by the host) and x25519_base
 * (u = 9, public keys). The ladder and kernels are in ladder.h. */
#include "fe25519.h"

#define FE(op) fe25519_##op
#define NL 8
#define SCALAR_BITS 255
#define A24 121665u
#define BASE_U 9u
#define LADDER x25519_ladder
#define LADDER_KERNEL x25519
#define LADDER_BASE_KERNEL x25519_base
#include "ladder.h"

/* public keys by the fixed-base comb (comb.h): kernel x25519_base_comb,
 * which the Engine uses; x25519_base above is kept for comparison */
#define COMB_X25519 1
#include "comb_gen.h"
#define COMB_KERNEL x25519_base_comb
#include "comb.h"
