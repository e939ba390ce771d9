/* x25519_iterate.cl: the test program of RFC 7748 §5.2's iterated X25519
 * vectors: x25519.cl as the engine builds it, plus kernel x25519_iterate
 * (ladder_iterate.h) on its ladder, x25519_ladder. */
#include "x25519.cl"

#define ITERATE_KERNEL x25519_iterate
#include "ladder_iterate.h"
