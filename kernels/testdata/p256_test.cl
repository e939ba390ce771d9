/* p256_test.cl: the test kernel of kernels/p256.h (and so of mont256.h),
 * one work-item per element, for either instance: the argument modulus
 * picks p256_* (0, the field) or p256n_* (1, the group order) for the
 * whole launch.
 *
 * Element i reads in[24·i ..] = a, b, x (8 little-endian words each; a and
 * b canonical, below the modulus m; x any 256-bit number) and writes
 * TEST_SLOTS results of 8 words to out[8·TEST_SLOTS·i ..], slot k at
 * 8·k. Every value below is a Montgomery element taken as it is (its
 * words), R = 2^256:
 *    0  mul(a, b)
 *    1  sqr(a)
 *    2  add(a, b)
 *    3  sub(a, b)
 *    4  neg(a)
 *    5  to_mont(x)
 *    6  from_mont(a)
 *    7  invert(a)
 *    8  from_mont(mul(to_mont(a), to_mont(b))): a·b mod m
 *    9  from_mont(invert(to_mont(a))): a^−1 mod m (0 for a = 0)
 *   10  mul(to_mont(a), invert(to_mont(a))): R mod m (0 for a = 0)
 *   11  set_one()
 *   12  cmov(r = a, b, all ones): b
 *   13  cmov(r = a, b, 0): a
 *   14  one mask per word: is_zero(a), is_zero(b), equal(a, b),
 *       equal(b, a), equal(a, a), equal(a, x), then 0, 0
 *   15  from_mont(to_mont(x)): x mod m
 * and the same functions with the result in place of an input (t starts
 * as a copy of the input it replaces):
 *   16  mul(t, t, b), t = a         24  sub(t, a, t), t = b
 *   17  mul(t, a, t), t = b         25  sub(t, t, t), t = a
 *   18  mul(t, t, t), t = a         26  neg(t, t), t = a
 *   19  sqr(t, t), t = a            27  to_mont(t, t), t = x
 *   20  add(t, t, b), t = a         28  from_mont(t, t), t = a
 *   21  add(t, a, t), t = b         29  invert(t, t), t = a
 *   22  add(t, t, t), t = a         30  cmov(t, t, all ones), t = a
 *   23  sub(t, t, b), t = a
 */
#include "p256.h"

#define TEST_SLOTS 31

/* OPERATION(name, ...) is p256_name(...) or p256n_name(...) by modulus,
 * PREDICATE the same for the functions that return a mask. */
#define OPERATION(name, ...) \
	do { if (modulus == 0) p256_##name(__VA_ARGS__); else p256n_##name(__VA_ARGS__); } while (0)
#define PREDICATE(name, ...) (modulus == 0 ? p256_##name(__VA_ARGS__) : p256n_##name(__VA_ARGS__))

DEVICE_FN void test_copy(u32 *r, const u32 *a)
{
	for (int j = 0; j < 8; j++)
		r[j] = a[j];
}

DEVICE_FN void test_store(GLOBAL u32 *result, const int slot, const u32 *r)
{
	for (int j = 0; j < 8; j++)
		result[8 * slot + j] = r[j];
}

KERNEL void p256_test_operations(GLOBAL u32 *out, GLOBAL const u32 *in, const u32 count, const u32 modulus)
{
	const u32 i = GID();
	if (i >= count)
		return;
	GLOBAL u32 *result = out + 8 * TEST_SLOTS * i;
	u32 a[8], b[8], x[8], r[8], t[8], u[8];
	for (int j = 0; j < 8; j++) {
		a[j] = in[24 * i + j];
		b[j] = in[24 * i + 8 + j];
		x[j] = in[24 * i + 16 + j];
	}

	OPERATION(mul, r, a, b);
	test_store(result, 0, r);
	OPERATION(sqr, r, a);
	test_store(result, 1, r);
	OPERATION(add, r, a, b);
	test_store(result, 2, r);
	OPERATION(sub, r, a, b);
	test_store(result, 3, r);
	OPERATION(neg, r, a);
	test_store(result, 4, r);
	OPERATION(to_mont, r, x);
	test_store(result, 5, r);
	OPERATION(from_mont, r, a);
	test_store(result, 6, r);
	OPERATION(invert, r, a);
	test_store(result, 7, r);

	OPERATION(to_mont, t, a);
	OPERATION(to_mont, u, b);
	OPERATION(mul, r, t, u);
	OPERATION(from_mont, r, r);
	test_store(result, 8, r);
	OPERATION(invert, u, t);
	OPERATION(from_mont, r, u);
	test_store(result, 9, r);
	OPERATION(mul, r, t, u);
	test_store(result, 10, r);

	OPERATION(set_one, r);
	test_store(result, 11, r);
	test_copy(r, a);
	OPERATION(cmov, r, b, 0xffffffffu);
	test_store(result, 12, r);
	test_copy(r, a);
	OPERATION(cmov, r, b, 0u);
	test_store(result, 13, r);
	r[0] = PREDICATE(is_zero, a);
	r[1] = PREDICATE(is_zero, b);
	r[2] = PREDICATE(equal, a, b);
	r[3] = PREDICATE(equal, b, a);
	r[4] = PREDICATE(equal, a, a);
	r[5] = PREDICATE(equal, a, x);
	r[6] = 0;
	r[7] = 0;
	test_store(result, 14, r);
	OPERATION(to_mont, r, x);
	OPERATION(from_mont, r, r);
	test_store(result, 15, r);

	test_copy(t, a);
	OPERATION(mul, t, t, b);
	test_store(result, 16, t);
	test_copy(t, b);
	OPERATION(mul, t, a, t);
	test_store(result, 17, t);
	test_copy(t, a);
	OPERATION(mul, t, t, t);
	test_store(result, 18, t);
	test_copy(t, a);
	OPERATION(sqr, t, t);
	test_store(result, 19, t);
	test_copy(t, a);
	OPERATION(add, t, t, b);
	test_store(result, 20, t);
	test_copy(t, b);
	OPERATION(add, t, a, t);
	test_store(result, 21, t);
	test_copy(t, a);
	OPERATION(add, t, t, t);
	test_store(result, 22, t);
	test_copy(t, a);
	OPERATION(sub, t, t, b);
	test_store(result, 23, t);
	test_copy(t, b);
	OPERATION(sub, t, a, t);
	test_store(result, 24, t);
	test_copy(t, a);
	OPERATION(sub, t, t, t);
	test_store(result, 25, t);
	test_copy(t, a);
	OPERATION(neg, t, t);
	test_store(result, 26, t);
	test_copy(t, x);
	OPERATION(to_mont, t, t);
	test_store(result, 27, t);
	test_copy(t, a);
	OPERATION(from_mont, t, t);
	test_store(result, 28, t);
	test_copy(t, a);
	OPERATION(invert, t, t);
	test_store(result, 29, t);
	test_copy(t, a);
	OPERATION(cmov, t, t, 0xffffffffu);
	test_store(result, 30, t);
}
