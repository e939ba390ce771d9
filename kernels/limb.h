/* limb.h: 32-bit limb arithmetic with an explicit carry chain.
 *
 * A carry chain is written as a sequence of macros that share one carry
 * flag: start it with ADD_CC / SUB_CC / MADLO_CC / MADHI_CC (which ignore the
 * incoming carry and set a new one), continue it with the *C_CC forms (which
 * consume and set it), and end it with the plain *C forms (which consume it).
 * Declare CARRY_DECL once in any function that uses a chain.
 *
 * Two implementations: NVIDIA inline PTX (limb_ptx.h, one instruction per
 * wrapper, the carry kept in the hardware condition code) when the host
 * defines GPUCRYPTO_HAS_PTX, and portable C with 64-bit arithmetic
 * (limb_portable.h) everywhere else. Both give identical results; the test
 * suite runs both on NVIDIA hardware (GPUCRYPTO_NO_PTX=1 forces portable).
 *
 *   ADD_CC(r,a,b)       r = a + b            carry out
 *   ADDC_CC(r,a,b)      r = a + b + cf       carry out
 *   ADDC(r,a,b)         r = a + b + cf
 *   SUB_CC(r,a,b)       r = a - b            borrow out
 *   SUBC_CC(r,a,b)      r = a - b - bf       borrow out
 *   SUBC(r,a,b)         r = a - b - bf
 *   MADLO_CC(r,a,b,c)   r = lo(a*b) + c      carry out
 *   MADLOC_CC(r,a,b,c)  r = lo(a*b) + c + cf carry out
 *   MADLOC(r,a,b,c)     r = lo(a*b) + c + cf
 *   MADHI_CC(r,a,b,c)   r = hi(a*b) + c      carry out
 *   MADHIC_CC(r,a,b,c)  r = hi(a*b) + c + cf carry out
 *   MADHIC(r,a,b,c)     r = hi(a*b) + c + cf
 *   MUL_LO(a,b), MUL_HI(a,b)  plain products, no carry
 *   BYTE_PERM(a,b,s)    bytes of b:a picked by the nibbles of s (prmt)
 */
#pragma once
#include "dialect.h"

#if defined(GPUCRYPTO_HAS_PTX) || (defined(__CUDACC__) && !defined(GPUCRYPTO_NO_PTX))
#include "limb_ptx.h"
#else
#include "limb_portable.h"
#endif
