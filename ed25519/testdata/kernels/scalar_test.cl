/* scalar_test.cl: test kernels for kernels/scalar25519.h, one work-item
 * per element. Batches are element-major: element i's words are
 * in[n·i .. n·i + n − 1], little-endian (word 0 least significant). */
#include "scalar25519.h"

/* out[i] = in[i] mod L; 16 words in, 8 out. */
KERNEL void sc25519_test_reduce(GLOBAL u32 *out, GLOBAL const u32 *in, const u32 count)
{
	const u32 i = GID();
	if (i >= count)
		return;
	u32 x[16], r[8];
	for (int j = 0; j < 16; j++)
		x[j] = in[16 * i + j];
	sc25519_reduce(r, x);
	for (int j = 0; j < 8; j++)
		out[8 * i + j] = r[j];
}

/* out[i] = (a·b + c) mod L for in[i] = a, b, c; 24 words in, 8 out. */
KERNEL void sc25519_test_muladd(GLOBAL u32 *out, GLOBAL const u32 *in, const u32 count)
{
	const u32 i = GID();
	if (i >= count)
		return;
	u32 a[8], b[8], c[8], r[8];
	for (int j = 0; j < 8; j++) {
		a[j] = in[24 * i + j];
		b[j] = in[24 * i + 8 + j];
		c[j] = in[24 * i + 16 + j];
	}
	sc25519_muladd(r, a, b, c);
	for (int j = 0; j < 8; j++)
		out[8 * i + j] = r[j];
}

/* out[i] = mont(a, b) = (a·b + m·L) / 2^256 for in[i] = a, b (16 words in,
 * 8 out), the inner Montgomery multiplication, for any a, b < 2^256 with
 * a·b < 2^256·(2^256 − L): wider operands than sc25519_reduce gives it. */
KERNEL void sc25519_test_montgomery_multiply(GLOBAL u32 *out, GLOBAL const u32 *in, const u32 count)
{
	const u32 i = GID();
	if (i >= count)
		return;
	u32 a[8], b[8], r[8];
	for (int j = 0; j < 8; j++) {
		a[j] = in[16 * i + j];
		b[j] = in[16 * i + 8 + j];
	}
	sc25519_montgomery_multiply(r, a, b);
	for (int j = 0; j < 8; j++)
		out[8 * i + j] = r[j];
}

/* The aliasing the header allows, for in[i] = a, b, c (24 words) and five
 * results of 8 words each in out[i]:
 *   0  muladd with r = a      (a·b + c)
 *   1  muladd with r = b      (a·b + c)
 *   2  muladd with r = c      (a·b + c)
 *   3  muladd with r = a = b = c   (a·a + a)
 *   4  reduce with r = x, x = a + b·2^256 */
KERNEL void sc25519_test_aliasing(GLOBAL u32 *out, GLOBAL const u32 *in, const u32 count)
{
	const u32 i = GID();
	if (i >= count)
		return;
	u32 a[8], b[8], c[8], t[8], x[16];
	for (int j = 0; j < 8; j++) {
		a[j] = in[24 * i + j];
		b[j] = in[24 * i + 8 + j];
		c[j] = in[24 * i + 16 + j];
	}
	for (int j = 0; j < 8; j++)
		t[j] = a[j];
	sc25519_muladd(t, t, b, c);
	for (int j = 0; j < 8; j++)
		out[40 * i + j] = t[j];
	for (int j = 0; j < 8; j++)
		t[j] = b[j];
	sc25519_muladd(t, a, t, c);
	for (int j = 0; j < 8; j++)
		out[40 * i + 8 + j] = t[j];
	for (int j = 0; j < 8; j++)
		t[j] = c[j];
	sc25519_muladd(t, a, b, t);
	for (int j = 0; j < 8; j++)
		out[40 * i + 16 + j] = t[j];
	for (int j = 0; j < 8; j++)
		t[j] = a[j];
	sc25519_muladd(t, t, t, t);
	for (int j = 0; j < 8; j++)
		out[40 * i + 24 + j] = t[j];
	for (int j = 0; j < 8; j++) {
		x[j] = a[j];
		x[j + 8] = b[j];
	}
	sc25519_reduce(x, x);
	for (int j = 0; j < 8; j++)
		out[40 * i + 32 + j] = x[j];
}
