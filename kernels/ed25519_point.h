/* ed25519_point.h: points of Ed25519 (−x² + y² = 1 + d·x²·y² modulo
 * p = 2^255 − 19, RFC 8032 §5.1) for the signing and verification kernels
 * of ed25519.cl: decoding and encoding, additions of cached points, and
 * the double-scalar multiplication of verification. It builds on comb.h
 * (the same curve: the X25519 comb computes on it), whose completed
 * points (E, F, G, H), x = E/G and y = H/F, and conversions it shares:
 * comb_ext to extended coordinates (X : Y : Z : T), x = X/Z, y = Y/Z,
 * T = XY/Z, comb_proj without T, comb_dbl and comb_madd.
 *
 * Two fields: decoding, encoding and their inversions run on FE
 * (fe25519.h, 32-bit limbs), the additions and doublings on comb.h's
 * COMB_FE, which is FE or, with ED25519_FP64, fe25519_fp64.h's doubles
 * (ed25519.cl); ED_FE_OUT(r, a) turns one of its elements back into FE
 * limbs.
 *
 * The formulas are complete on this curve (a = −1 a square, d not one:
 * kernels/internal/generate/comb.go), so every point, small-order and
 * mixed-order ones included, adds and doubles without exceptions, and
 * verification computes exactly the group element crypto/ed25519 does.
 *
 * Constant time where secrets pass: ed_encode (a signature's R, a public
 * key) uses the Fermat inversion, whose exponent is public, and masked
 * selections. ed_decode and ed_verify_sum work on public values (public
 * keys, signatures, their hashes) and index their tables by digits of
 * public scalars.
 */
#pragma once
#include "ed25519_gen.h"
#include "radix16.h"
#include "mask.h"

/* r = z^((p − 5)/8) = z^(2^252 − 3): the square-root exponent, with
 * fe25519_invert's chain up to 2^250 − 1. */
DEVICE_FN void ed_pow_p58(u32 *r, const u32 *z)
{
	u32 z2[NL], z9[NL], z11[NL], t[NL], a[NL], b[NL];
	FE(sqr)(z2, z);                     /* 2 */
	FE(sqr_n)(t, z2, 2);                /* 8 */
	FE(mul)(z9, t, z);                  /* 9 */
	FE(mul)(z11, z9, z2);               /* 11 */
	FE(sqr)(t, z11);                    /* 22 */
	FE(mul)(a, t, z9);                  /* 2^5 − 1 */
	FE(sqr_n)(t, a, 5);
	FE(mul)(a, t, a);                   /* 2^10 − 1 */
	FE(sqr_n)(t, a, 10);
	FE(mul)(b, t, a);                   /* 2^20 − 1 */
	FE(sqr_n)(t, b, 20);
	FE(mul)(t, t, b);                   /* 2^40 − 1 */
	FE(sqr_n)(t, t, 10);
	FE(mul)(a, t, a);                   /* 2^50 − 1 */
	FE(sqr_n)(t, a, 50);
	FE(mul)(b, t, a);                   /* 2^100 − 1 */
	FE(sqr_n)(t, b, 100);
	FE(mul)(t, t, b);                   /* 2^200 − 1 */
	FE(sqr_n)(t, t, 50);
	FE(mul)(t, t, a);                   /* 2^250 − 1 */
	FE(sqr_n)(t, t, 2);
	FE(mul)(r, t, z);                   /* 2^252 − 3 */
}

/* all ones when a ≡ b (mod p), else zero; a and b loosely reduced */
DEVICE_FN u32 ed_fe_equal(const u32 *a, const u32 *b)
{
	u32 t[NL], acc = 0;
	FE(sub)(t, a, b);
	FE(canon)(t);
	for (int w = 0; w < NL; w++)
		acc |= t[w];
	return mask_if_zero(acc);
}

/* r = −a */
DEVICE_FN void ed_fe_neg(u32 *r, const u32 *a)
{
	u32 zero[NL];
	FE(set_small)(zero, 0u);
	FE(sub)(r, zero, a);
}

/* r = m ? a : r for a mask m of all ones or zero */
DEVICE_FN void ed_fe_cmov(u32 *r, const u32 *a, const u32 m)
{
	for (int w = 0; w < NL; w++)
		r[w] ^= m & (r[w] ^ a[w]);
}

/* The point of the 32-byte encoding enc (8 little-endian words) as
 * crypto/ed25519 decodes a public key (edwards25519's Point.SetBytes):
 * y is the low 255 bits reduced mod p (non-canonical y ≥ p accepted), x
 * the square root of (y² − 1)/(d·y² + 1) whose parity is the top bit
 * (x = 0 with the top bit set accepted as x = 0). Returns all ones and
 * sets (X : Y : 1 : T) when there is such an x, else zero. */
DEVICE_FN u32 ed_decode(u32 *X, u32 *Y, u32 *Z, u32 *T, const u32 *enc)
{
	const u32 d[NL] = ED25519_D;
	const u32 sqrtM1[NL] = ED25519_SQRT_M1;
	u32 u[NL], v[NL], v3[NL], t[NL], r[NL], check[NL], one[NL];
	for (int w = 0; w < NL; w++)
		Y[w] = enc[w];
	Y[NL - 1] &= 0x7fffffffu;
	FE(set_small)(one, 1u);
	FE(sqr)(t, Y);
	FE(sub)(u, t, one);                 /* u = y² − 1 */
	FE(mul)(v, t, d);
	FE(add)(v, v, one);                 /* v = d·y² + 1 */
	/* r = u·v³·(u·v⁷)^((p − 5)/8), the candidate root of u/v */
	FE(sqr)(t, v);
	FE(mul)(v3, t, v);
	FE(sqr)(t, v3);
	FE(mul)(t, t, v);
	FE(mul)(t, t, u);                   /* u·v⁷ */
	ed_pow_p58(t, t);
	FE(mul)(r, u, v3);
	FE(mul)(r, r, t);
	FE(sqr)(check, r);
	FE(mul)(check, check, v);           /* v·r² */
	u32 negU[NL], negUI[NL];
	ed_fe_neg(negU, u);
	FE(mul)(negUI, negU, sqrtM1);
	const u32 correct = ed_fe_equal(check, u);
	const u32 flipped = ed_fe_equal(check, negU);
	const u32 flippedI = ed_fe_equal(check, negUI);
	FE(mul)(t, r, sqrtM1);
	ed_fe_cmov(r, t, flipped | flippedI);
	/* the non-negative root (even canonical value), then the sign bit */
	FE(canon)(r);
	ed_fe_neg(t, r);
	ed_fe_cmov(r, t, 0u - (r[0] & 1u));
	ed_fe_neg(t, r);
	ed_fe_cmov(r, t, 0u - (enc[NL - 1] >> 31));
	FE(copy)(X, r);
	FE(set_small)(Z, 1u);
	FE(mul)(T, X, Y);
	return correct | flipped;
}

/* enc = the encoding of the completed point (E, F, G, H): y = H/F
 * canonical, with the low bit of x = E/G on top; x = E/G canonical. One
 * inversion of F·G. */
DEVICE_FN void ed_encode_x(u32 *enc, u32 *x, const u32 *E, const u32 *F, const u32 *G, const u32 *H)
{
	u32 zi[NL];
	FE(mul)(zi, F, G);
	FE(invert)(zi, zi);
	FE(mul)(x, E, F);
	FE(mul)(x, x, zi);                  /* E·F/(F·G) = E/G */
	FE(mul)(enc, H, G);
	FE(mul)(enc, enc, zi);              /* H·G/(F·G) = H/F */
	FE(canon)(x);
	FE(canon)(enc);
	enc[NL - 1] |= x[0] << 31;
}

/* ed_encode_x without x */
DEVICE_FN void ed_encode(u32 *enc, const u32 *E, const u32 *F, const u32 *G, const u32 *H)
{
	u32 x[NL];
	ed_encode_x(enc, x, E, F, G, H);
}

/* r = a on the point formulas' field (COMB_FE, comb.h: FE itself, or
 * fe25519_fp64.h's doubles) from a loosely reduced FE element */
DEVICE_FN void ed_fe_in(COMB_FE_T *r, const u32 *a)
{
	u32 t[NL];
	FE(copy)(t, a);
	FE(canon)(t);                       /* below 2^255, as COMB_FE_IN wants */
	COMB_FE_IN(r, t);
}

/* the completed point (E, F, G, H) of the formulas' field as FE elements
 * (E, a difference of products, carried first) */
DEVICE_FN void ed_completed_out(u32 *e, u32 *f, u32 *g, u32 *h,
	const COMB_FE_T *E, const COMB_FE_T *F, const COMB_FE_T *G, const COMB_FE_T *H)
{
	COMB_FE_T t[COMB_FE_N];
	COMB_FE(copy)(t, E);
	COMB_FE_CARRY(t);
	ED_FE_OUT(e, t);
	ED_FE_OUT(f, F);
	ED_FE_OUT(g, G);
	ED_FE_OUT(h, H);
}

/* The cached form of an extended point, the second operand of
 * ed_add_cached: (Y + X, Y − X, 2d·T, 2Z), each carried. */
DEVICE_FN void ed_cache(COMB_FE_T *c, const COMB_FE_T *X, const COMB_FE_T *Y, const COMB_FE_T *Z,
	const COMB_FE_T *T, const COMB_FE_T *d2)
{
	COMB_FE(add)(c, Y, X);
	COMB_FE_CARRY(c);
	COMB_FE(sub)(c + COMB_FE_N, Y, X);
	COMB_FE_CARRY(c + COMB_FE_N);
	COMB_FE(mul)(c + 2 * COMB_FE_N, T, d2);
	COMB_FE(add)(c + 3 * COMB_FE_N, Z, Z);
	COMB_FE_CARRY(c + 3 * COMB_FE_N);
}

/* (E, F, G, H) = (X : Y : Z : T) + c, c cached (ed_cache): add-2008-hwcd-3
 * (Hisil et al. 2008), 8M with comb_ext before it; complete here. F, G
 * and H are carried (second operands of comb_ext's products), E is a
 * difference of two products (a first operand only). */
DEVICE_FN void ed_add_cached(COMB_FE_T *E, COMB_FE_T *F, COMB_FE_T *G, COMB_FE_T *H,
	const COMB_FE_T *X, const COMB_FE_T *Y, const COMB_FE_T *Z, const COMB_FE_T *T,
	const COMB_FE_T *c)
{
	COMB_FE_T A[COMB_FE_N], B[COMB_FE_N], C[COMB_FE_N], D[COMB_FE_N];
	COMB_FE(sub)(A, Y, X);
	COMB_FE(mul)(A, A, c + COMB_FE_N);          /* (Y − X)(y − x) */
	COMB_FE(add)(B, Y, X);
	COMB_FE(mul)(B, B, c);                      /* (Y + X)(y + x) */
	COMB_FE(mul)(C, T, c + 2 * COMB_FE_N);      /* 2d·T·T' */
	COMB_FE(mul)(D, Z, c + 3 * COMB_FE_N);      /* 2Z·Z' */
	COMB_FE(sub)(E, B, A);
	COMB_FE(sub)(F, D, C);
	COMB_FE_CARRY(F);
	COMB_FE(add)(G, D, C);
	COMB_FE_CARRY(G);
	COMB_FE(add)(H, B, A);
	COMB_FE_CARRY(H);
}

/* (E, F, G, H) = k·P + s·B on the formulas' field, for public scalars k, s
 * below 2^253 and the extended point P (FE elements), B the base point
 * (row 0 of the comb table, tab: its entries n·B for n = 1..8). Straus'
 * interleaving over signed radix-16 digits: 252 doublings shared by both
 * sums, 64 additions of a multiple of P from a table in private memory
 * and 64 of a multiple of B. Variable time: the digits index the tables
 * and decide whether B's is added. */
DEVICE_FN void ed_double_scalar(COMB_FE_T *E, COMB_FE_T *F, COMB_FE_T *G, COMB_FE_T *H,
	const u32 *k, const u32 *X0, const u32 *Y0, const u32 *Z0, const u32 *T0,
	const u32 *s, GLOBAL const u32 *RESTRICT tab)
{
	const u32 d2limbs[NL] = ED25519_D2;
	COMB_FE_T d2[COMB_FE_N];
	COMB_FE_IN(d2, d2limbs);
	/* multiples[n] = n·P cached, n = 0..8 (0: the neutral element) */
	COMB_FE_T multiples[9][4 * COMB_FE_N];
	COMB_FE_T X[COMB_FE_N], Y[COMB_FE_N], Z[COMB_FE_N], T[COMB_FE_N];
	COMB_FE(set_small)(multiples[0], 1u);
	COMB_FE(set_small)(multiples[0] + COMB_FE_N, 1u);
	COMB_FE(set_small)(multiples[0] + 2 * COMB_FE_N, 0u);
	COMB_FE(set_small)(multiples[0] + 3 * COMB_FE_N, 2u);
	ed_fe_in(X, X0);
	ed_fe_in(Y, Y0);
	ed_fe_in(Z, Z0);
	ed_fe_in(T, T0);
	ed_cache(multiples[1], X, Y, Z, T, d2);
	for (int n = 2; n <= 8; n++) {
		ed_add_cached(E, F, G, H, X, Y, Z, T, multiples[1]);
		comb_ext(X, Y, Z, T, E, F, G, H);
		ed_cache(multiples[n], X, Y, Z, T, d2);
	}

	u32 kr[9], sr[9], l0[NL], l1[NL], l2[NL];
	COMB_FE_T c[4 * COMB_FE_N], p0[COMB_FE_N], p1[COMB_FE_N], p2[COMB_FE_N];
	radix16_recode(kr, k);             /* k, s < 2^253: digit 64 is 0 */
	radix16_recode(sr, s);
	COMB_FE(set_small)(E, 0u);          /* the neutral element */
	COMB_FE(set_small)(F, 1u);
	COMB_FE(set_small)(G, 1u);
	COMB_FE(set_small)(H, 1u);
	for (int i = 63; i >= 0; i--) {
		if (i != 63) {
			for (int t = 0; t < 4; t++) {
				comb_proj(X, Y, Z, E, F, G, H);
				comb_dbl(E, F, G, H, X, Y, Z);
			}
		}
		/* + e·P: the cached entry, negated (y + x ↔ y − x, T → −T) for e < 0 */
		const i32 e = radix16_digit(kr, i);
		const u32 neg = 0u - (u32)(e < 0);
		const int abs = e < 0 ? -e : e;
		for (int w = 0; w < 4 * COMB_FE_N; w++)
			c[w] = multiples[abs][w];
		COMB_FE(cswap)(neg, c, c + COMB_FE_N);
		COMB_FE(set_small)(p0, 0u);
		COMB_FE(sub)(p2, p0, c + 2 * COMB_FE_N);
		COMB_FE(cswap)(neg, c + 2 * COMB_FE_N, p2);
		comb_ext(X, Y, Z, T, E, F, G, H);
		ed_add_cached(E, F, G, H, X, Y, Z, T, c);
		/* + f·B from the comb table's row 0; f = 0 adds nothing */
		const i32 f = radix16_digit(sr, i);
		if (f != 0) {
			const u32 off = (u32)((f < 0 ? -f : f) - 1) * COMB_ENTRY_WORDS;
			for (int w = 0; w < NL; w++) {
				l0[w] = tab[off + w];
				l1[w] = tab[off + NL + w];
				l2[w] = tab[off + 2 * NL + w];
			}
			COMB_FE_IN(p0, l0);
			COMB_FE_IN(p1, l1);
			COMB_FE_IN(p2, l2);
			comb_cneg(p0, p1, p2, 0u - (u32)(f < 0));
			comb_ext(X, Y, Z, T, E, F, G, H);
			comb_madd(E, F, G, H, X, Y, Z, T, p0, p1, p2);
		}
	}
}
