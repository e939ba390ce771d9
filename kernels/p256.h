/* p256.h: the two moduli of NIST P-256 (FIPS 186-5, SP 800-186) in
 * Montgomery form, instances of mont256.h:
 *
 *   p256_*   modulo the field prime
 *            p = 2^256 − 2^224 + 2^192 + 2^96 − 1
 *              = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff
 *   p256n_*  modulo the group order (the number of points)
 *            n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551
 *
 * for ECDSA (the p256n_* scalars: k^−1, r·d, s^−1) and ECDH (the p256_*
 * coordinates). Both are primes above 2^255, as mont256.h requires, so
 * p256_invert and p256n_invert are inverses. Elements are Montgomery forms
 * with R = 2^256: p256_to_mont / p256n_to_mont on the way in,
 * p256_from_mont / p256n_from_mont on the way out.
 *
 * The constants, little-endian 32-bit words (word 0 least significant);
 * kernels/mont256_test.go recomputes each with math/big and compares:
 *
 *   P256_FIELD_MODULUS         p, from its definition above.
 *   P256_FIELD_MINUS_INVERSE   −p^−1 mod 2^32 = 1: p's low word is
 *                              0xffffffff, so p ≡ −1 and p^−1 ≡ −1
 *                              (mod 2^32).
 *   P256_FIELD_R_SQUARED       R^2 mod p = 2^512 mod p. R mod p is
 *                              2^256 − p = 2^224 − 2^192 − 2^96 + 1, and its
 *                              square reduced mod p (math/big: Exp(2^256, 2,
 *                              p)) is
 *                              0x4fffffffdfffffffffffffffefffffffbffffffff0000000000000003.
 *   P256_ORDER                 n, as published.
 *   P256_ORDER_MINUS_INVERSE   −n^−1 mod 2^32 = 0xee00bc4f, from n's low
 *                              word alone: 0xfc632551 · 0xee00bc4f ≡ −1
 *                              (mod 2^32) (math/big: 2^32 −
 *                              ModInverse(n, 2^32)).
 *   P256_ORDER_R_SQUARED       R^2 mod n = 2^512 mod n (math/big: Exp(2^256,
 *                              2, n)) =
 *                              0x66e12d94f3d956202845b2392b6bec594699799c49bd6fa683244c95be79eea2.
 */
#pragma once
#include "mont256.h"

#define P256_FIELD_MODULUS { 0xffffffffu, 0xffffffffu, 0xffffffffu, 0x00000000u, \
                             0x00000000u, 0x00000000u, 0x00000001u, 0xffffffffu }
#define P256_FIELD_MINUS_INVERSE 0x00000001u
#define P256_FIELD_R_SQUARED { 0x00000003u, 0x00000000u, 0xffffffffu, 0xfffffffbu, \
                               0xfffffffeu, 0xffffffffu, 0xfffffffdu, 0x00000004u }

#define P256_ORDER { 0xfc632551u, 0xf3b9cac2u, 0xa7179e84u, 0xbce6faadu, \
                     0xffffffffu, 0xffffffffu, 0x00000000u, 0xffffffffu }
#define P256_ORDER_MINUS_INVERSE 0xee00bc4fu
#define P256_ORDER_R_SQUARED { 0xbe79eea2u, 0x83244c95u, 0x49bd6fa6u, 0x4699799cu, \
                               0x2b6bec59u, 0x2845b239u, 0xf3d95620u, 0x66e12d94u }

MONT256_DEFINE(p256, P256_FIELD_MODULUS, P256_FIELD_MINUS_INVERSE, P256_FIELD_R_SQUARED)
MONT256_DEFINE(p256n, P256_ORDER, P256_ORDER_MINUS_INVERSE, P256_ORDER_R_SQUARED)
