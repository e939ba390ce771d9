/* field_test.h: the test kernel of a curve's field, included by
 * fe25519_test.cl and fe448_test.cl after FE(op), NL and TEST_SMALL, in the
 * form the program's defines ask (FIELD_MUL_FORM, FIELD_MUL_ROWS:
 * kernels/generated.go), one work-item per element. Element i reads
 * in[2·NL·i ..] = a, b (NL little-endian words each: any values below
 * 2^(32·NL), loosely reduced elements) and writes 2·TEST_SLOTS results of
 * NL words to out[2·NL·TEST_SLOTS·i ..]: slot k at NL·k as the function
 * leaves it (loosely reduced), and at NL·(TEST_SLOTS + k) after canon:
 *    0  mul(a, b)                  5  sqr(t, t), t = a
 *    1  sqr(a)                     6  invert(a)
 *    2  mul(t, t, b), t = a        7  add(a, b)
 *    3  mul(t, a, t), t = b        8  sub(a, b)
 *    4  mul(t, t, t), t = a        9  mul_small_add(a, TEST_SMALL, b)
 * field_test_element is the work of one element, which the host test also
 * runs compiled by gcc (kernels/field_test.go). */
#pragma once

#define TEST_SLOTS 10

DEVICE_FN void test_store(GLOBAL u32 *result, const int slot, u32 *r)
{
	for (int j = 0; j < NL; j++)
		result[NL * slot + j] = r[j];
	FE(canon)(r);
	for (int j = 0; j < NL; j++)
		result[NL * (TEST_SLOTS + slot) + j] = r[j];
}

DEVICE_FN void field_test_element(GLOBAL u32 *result, const u32 *a, const u32 *b)
{
	u32 r[NL], t[NL];
	FE(mul)(r, a, b);
	test_store(result, 0, r);
	FE(sqr)(r, a);
	test_store(result, 1, r);
	FE(copy)(t, a);
	FE(mul)(t, t, b);
	test_store(result, 2, t);
	FE(copy)(t, b);
	FE(mul)(t, a, t);
	test_store(result, 3, t);
	FE(copy)(t, a);
	FE(mul)(t, t, t);
	test_store(result, 4, t);
	FE(copy)(t, a);
	FE(sqr)(t, t);
	test_store(result, 5, t);
	FE(invert)(r, a);
	test_store(result, 6, r);
	FE(add)(r, a, b);
	test_store(result, 7, r);
	FE(sub)(r, a, b);
	test_store(result, 8, r);
	FE(mul_small_add)(r, a, TEST_SMALL, b);
	test_store(result, 9, r);
}

KERNEL void field_test(GLOBAL u32 *out, GLOBAL const u32 *in, const u32 count)
{
	const u32 i = GID();
	if (i >= count)
		return;
	u32 a[NL], b[NL];
	for (int j = 0; j < NL; j++) {
		a[j] = in[2 * NL * i + j];
		b[j] = in[2 * NL * i + NL + j];
	}
	field_test_element(out + 2 * NL * TEST_SLOTS * i, a, b);
}
