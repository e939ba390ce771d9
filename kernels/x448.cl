/* x448.cl: batched X448 (RFC 7748), one work-item per scalar
 * multiplication over limb-major batches of 14 limbs: kernels x448
 * (variable u; scalars clamped by the host) and x448_base
 * (u = 5, public keys). The ladder and kernels are in ladder.h; x448_xz is
 * the variable-u ladder without its final inversion. */
#include "fe448.h"

#define FE(op) fe448_##op
#define NL 14
#define SCALAR_BITS 448
#define A24 39081u
#define BASE_U 5u
#define LADDER x448_ladder
#define LADDER_KERNEL x448
#define LADDER_BASE_KERNEL x448_base
#define LADDER_XZ_KERNEL x448_xz
#include "ladder.h"

/* public keys by the fixed-base comb (comb.h): kernel x448_base_comb,
 * which the Engine uses; x448_base above is kept for comparison */
#include "comb448_gen.h"
#define COMB_KERNEL x448_base_comb
#define COMB_XZ_KERNEL x448_base_comb_xz
#include "comb.h"

/* u = X/Z with one inversion per group of elements (batch_invert.h):
 * kernel x448_invert_batch finishes x448_xz and x448_base_comb_xz */
#define BATCH_INVERT_KERNEL x448_invert_batch
#include "batch_invert.h"
