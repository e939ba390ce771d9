/* x448.cl: batched X448 (RFC 7748), one work-item per scalar
 * multiplication over limb-major batches of 14 limbs: kernel x448, the
 * ladder for shared secrets (variable u; scalars clamped by x448_decode,
 * see ladder.h), and x448_base_comb, the fixed-base comb for public keys
 * (comb.h). x448_xz and x448_base_comb_xz are the same without the final
 * inversion, which x448_invert_batch does for a whole batch. x448_decode
 * and x448_encode turn the keys' byte strings into limb-major rows and the
 * results back (ecdh_codec.h). */
#include "fe448.h"

#define FE(op) fe448_##op
#define NL 14
#define SCALAR_BITS 448
#define A24 39081u
#define LADDER x448_ladder
#define LADDER_KERNEL x448
#define LADDER_XZ_KERNEL x448_xz
/* at most 128 registers, four groups of 128 per multiprocessor, for both
 * ladder kernels: NVRTC gives the ladder 140 (three groups) and it runs
 * slower than NVIDIA's OpenCL build of it, which uses 128; x448_xz takes
 * 130 in the Karatsuba form of the field.
 * LADDER_GROUPS (benchmarks of forms): another number of groups. */
#if !defined(LADDER_GROUPS)
#define LADDER_GROUPS 4
#endif
#define LADDER_BOUNDS KERNEL_BOUNDS(128, LADDER_GROUPS)
#define LADDER_XZ_BOUNDS KERNEL_BOUNDS(128, LADDER_GROUPS)
#include "ladder.h"

/* public keys by the fixed-base comb (comb.h), its constants generated */
#include "comb448_gen.h"
#define COMB_KERNEL x448_base_comb
#define COMB_XZ_KERNEL x448_base_comb_xz
#include "comb.h"

/* u = X/Z with one inversion per group of elements (batch_invert.h):
 * kernel x448_invert_batch finishes x448_xz and x448_base_comb_xz */
#define BATCH_INVERT_KERNEL x448_invert_batch
#include "batch_invert.h"

/* the keys' byte strings in, the results' out (ecdh_codec.h) */
#define DECODE_KERNEL x448_decode
#define ENCODE_KERNEL x448_encode
#include "ecdh_codec.h"
