/* x25519.cl: batched X25519 (RFC 7748), one work-item per scalar
 * multiplication over limb-major batches of 8 limbs: kernel x25519, the
 * ladder for shared secrets (variable u; scalars clamped and u masked by
 * x25519_decode, see ladder.h), and x25519_base_comb, the fixed-base comb
 * for public keys (comb.h). x25519_xz and x25519_base_comb_xz are the same
 * without the final inversion, which x25519_invert_batch does for a whole
 * batch. x25519_decode and x25519_encode turn the keys' byte strings into
 * limb-major rows and the results back (ecdh_codec.h). */
#include "fe25519.h"

#define FE(op) fe25519_##op
#define NL 8
#define SCALAR_BITS 255
#define A24 121665u
#define LADDER x25519_ladder
#define LADDER_KERNEL x25519
#define LADDER_XZ_KERNEL x25519_xz
/* LADDER_FP64: the ladder's steps on fe25519_fp64.h's doubles (GPUs with
 * fast fp64); the inversion and everything else stay on fe25519.h */
#if defined(LADDER_FP64)
#include "fe25519_fp64.h"
#define LADDER_FE(op) fe51_##op
#define LADDER_FE_T double
#define LADDER_FE_N FE51_N
#define LADDER_FE_IN(r, u) fe51_from_limbs(r, u)
#define LADDER_FE_OUT(r, a) fe51_to_limbs(r, a)
#define LADDER_FE_CARRY(a) fe51_carry(a)
/* the per-element kernel at most 128 registers (four groups of 128 per
 * multiprocessor): faster than with the 142 NVRTC 13 gives it unbounded;
 * the kernel before the batched inversion is faster unbounded */
#if !defined(LADDER_GROUPS)
#define LADDER_BOUNDS KERNEL_BOUNDS(128, 4)
#endif
#endif
/* LADDER_GROUPS (benchmarks of forms): both ladder kernels bounded to
 * that many groups of 128 work-items per multiprocessor */
#if defined(LADDER_GROUPS)
#define LADDER_BOUNDS KERNEL_BOUNDS(128, LADDER_GROUPS)
#define LADDER_XZ_BOUNDS KERNEL_BOUNDS(128, LADDER_GROUPS)
#endif
#include "ladder.h"

/* public keys by the fixed-base comb (comb.h), its constants generated */
#include "comb25519_gen.h"
#define COMB_KERNEL x25519_base_comb
#define COMB_XZ_KERNEL x25519_base_comb_xz
#include "comb.h"

/* u = X/Z with one inversion per group of elements (batch_invert.h):
 * kernel x25519_invert_batch finishes x25519_xz and x25519_base_comb_xz */
#define BATCH_INVERT_KERNEL x25519_invert_batch
#include "batch_invert.h"

/* the keys' byte strings in, the results' out (ecdh_codec.h) */
#define DECODE_KERNEL x25519_decode
#define ENCODE_KERNEL x25519_encode
#include "ecdh_codec.h"
