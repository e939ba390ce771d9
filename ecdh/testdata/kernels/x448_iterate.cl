/* x448_iterate.cl: the test program of RFC 7748 §5.2's iterated X448
 * vectors: x448.cl as the engine builds it, plus kernel x448_iterate
 * (ladder_iterate.h) on its ladder, x448_ladder. */
#include "x448.cl"

#define ITERATE_KERNEL x448_iterate
#include "ladder_iterate.h"
