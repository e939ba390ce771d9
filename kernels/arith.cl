/* arith.cl: batched multi-precision add, subtract and product (the parallel
 * big-integer basics of the Wu thesis), one work-item per element, over
 * limb-major batches. The kernels themselves are generated (arith_gen.h). */
#include "arith_gen.h"
