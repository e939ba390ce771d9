/* x25519_mt.cl: experimental X25519 shared secrets with LANES = 2 or 4
 * work-items per scalar multiplication (the ladder and its design are in
 * ladder_mt.h): kernel x25519_mt, and x25519_mt_xz, which stops before the
 * inversion for the batched inversion kernel of x25519.cl. Built with
 * -DXMT_X448 the file is X448 instead (x448_mt, x448_mt_xz): one
 * experimental file for both curves; an x448_mt.cl would hold only the
 * second block. Same arguments (plus the lanes.h scratch), layouts,
 * clamping, masking, final inversion and canonical output as the
 * variable-u kernels of ladder.h. The host (ecdh/mt.go) defines LANES and
 * LANES_WG and launches LANES work-items per element in work-groups of
 * LANES_WG. */
/* both fields: kernels.Source expands each #include once, ahead of #if */
#include "fe25519.h"
#include "fe448.h"
#if defined(XMT_X448)
#define FE(op) fe448_##op
#define NL 14
#define SCALAR_BITS 448
#define A24 39081u
#define XMT_KERNEL x448_mt
#define XMT_XZ_KERNEL x448_mt_xz
#else
#define FE(op) fe25519_##op
#define NL 8
#define SCALAR_BITS 255
#define A24 121665u
#define XMT_KERNEL x25519_mt
#define XMT_XZ_KERNEL x25519_mt_xz
#endif
#include "ladder_mt.h"
