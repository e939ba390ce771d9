/* limb_portable.h: the limb layer in portable C (any OpenCL device, PoCL).
 * The carry/borrow flag is the local variable _cf (0 or 1). */
#pragma once
#include "dialect.h"

#define LIMB_PATH_PORTABLE 1
#define CARRY_DECL u32 _cf = 0; u64 _ct

#define ADD_CC(r, a, b)  do { _ct = (u64)(a) + (b);        (r) = (u32)_ct; _cf = (u32)(_ct >> 32); } while (0)
#define ADDC_CC(r, a, b) do { _ct = (u64)(a) + (b) + _cf;  (r) = (u32)_ct; _cf = (u32)(_ct >> 32); } while (0)
#define ADDC(r, a, b)    do { (r) = (u32)(a) + (u32)(b) + _cf; } while (0)

#define SUB_CC(r, a, b)  do { _ct = (u64)(a) - (b);        (r) = (u32)_ct; _cf = (u32)(_ct >> 63); } while (0)
#define SUBC_CC(r, a, b) do { _ct = (u64)(a) - (b) - _cf;  (r) = (u32)_ct; _cf = (u32)(_ct >> 63); } while (0)
#define SUBC(r, a, b)    do { (r) = (u32)(a) - (u32)(b) - _cf; } while (0)

#define MUL_LO(a, b) ((u32)(a) * (u32)(b))
#define MUL_HI(a, b) ((u32)(((u64)(a) * (b)) >> 32))

#define MADLO_CC(r, a, b, c)  do { _ct = (u64)MUL_LO(a, b) + (c);       (r) = (u32)_ct; _cf = (u32)(_ct >> 32); } while (0)
#define MADLOC_CC(r, a, b, c) do { _ct = (u64)MUL_LO(a, b) + (c) + _cf; (r) = (u32)_ct; _cf = (u32)(_ct >> 32); } while (0)
#define MADLOC(r, a, b, c)    do { (r) = MUL_LO(a, b) + (u32)(c) + _cf; } while (0)
#define MADHI_CC(r, a, b, c)  do { _ct = (u64)MUL_HI(a, b) + (c);       (r) = (u32)_ct; _cf = (u32)(_ct >> 32); } while (0)
#define MADHIC_CC(r, a, b, c) do { _ct = (u64)MUL_HI(a, b) + (c) + _cf; (r) = (u32)_ct; _cf = (u32)(_ct >> 32); } while (0)
#define MADHIC(r, a, b, c)    do { (r) = MUL_HI(a, b) + (u32)(c) + _cf; } while (0)

/* BYTE_PERM(a, b, s): byte i of the result is byte (nibble i of s, 0–7) of
 * the eight bytes b:a (a's bytes are 0–3), as NVIDIA's prmt. With a
 * constant s the compiler folds it into shifts and masks. */
DEVICE_FN u32 byte_perm(u32 a, u32 b, u32 s) {
	u64 pool = ((u64)b << 32) | a;
	u32 r = 0;
	for (u32 i = 0; i < 4; i++)
		r |= (u32)((pool >> (((s >> (4 * i)) & 7) * 8)) & 0xff) << (8 * i);
	return r;
}
#define BYTE_PERM(a, b, s) byte_perm((a), (b), (s))
