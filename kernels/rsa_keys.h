/* rsa_keys.h: the layout of the RSA key table (rsa.cl's header describes
 * it): the offset of each field, in words, for H-word halves and F-word
 * moduli (the including file defines F), K keys. */
#pragma once

#define KEY_P(H, K)   0u
#define KEY_Q(H, K)   ((H) * (K))
#define KEY_QINV(H, K) (2u * (H) * (K))
#define KEY_R2P(H, K) (3u * (H) * (K))
#define KEY_N(H, K)   (4u * (H) * (K))
#define KEY_R2N(H, K) (4u * (H) * (K) + F * (K))
#define KEY_N0P(H, K) (4u * (H) * (K) + 2u * F * (K))
#define KEY_N0N(H, K) (KEY_N0P(H, K) + (K))
#define KEY_E(H, K)   (KEY_N0P(H, K) + 2u * (K))
