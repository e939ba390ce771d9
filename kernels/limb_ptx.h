/* limb_ptx.h: the limb layer as NVIDIA inline PTX. This is the only file in
 * the tree that contains PTX. Each wrapper is one instruction; the carry
 * lives in the condition-code register between wrappers of one chain. The
 * split form is checked on the GPU by the arith and cl test suites (every
 * chain against math/big), as the issue that introduced it requires. */
#pragma once
#include "dialect.h"

#define LIMB_PATH_PTX 1
#define CARRY_DECL do { } while (0)

#define PTX_OP2(name, ins) \
	DEVICE_FN u32 name(u32 a, u32 b) { u32 r; asm volatile (ins " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
#define PTX_OP3(name, ins) \
	DEVICE_FN u32 name(u32 a, u32 b, u32 c) { u32 r; asm volatile (ins " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }

PTX_OP2(ptx_add_cc,   "add.cc.u32")
PTX_OP2(ptx_addc_cc,  "addc.cc.u32")
PTX_OP2(ptx_addc,     "addc.u32")
PTX_OP2(ptx_sub_cc,   "sub.cc.u32")
PTX_OP2(ptx_subc_cc,  "subc.cc.u32")
PTX_OP2(ptx_subc,     "subc.u32")
PTX_OP3(ptx_mad_lo_cc,  "mad.lo.cc.u32")
PTX_OP3(ptx_madc_lo_cc, "madc.lo.cc.u32")
PTX_OP3(ptx_madc_lo,    "madc.lo.u32")
PTX_OP3(ptx_mad_hi_cc,  "mad.hi.cc.u32")
PTX_OP3(ptx_madc_hi_cc, "madc.hi.cc.u32")
PTX_OP3(ptx_madc_hi,    "madc.hi.u32")

/* BYTE_PERM(a, b, s): byte i of the result is byte (nibble i of s) of the
 * eight bytes b:a (a's bytes are 0–3). One prmt instruction. */
DEVICE_FN u32 ptx_prmt(u32 a, u32 b, u32 s) {
	u32 r;
	asm ("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
	return r;
}
#define BYTE_PERM(a, b, s) ptx_prmt((a), (b), (s))

/* a·b + c rounded toward zero (one fma.rz): the split of the multi-thread
 * floating-point Montgomery product with 52-bit digits */
DEVICE_FN double ptx_fma_rz(double a, double b, double c) {
	double r;
	asm ("fma.rz.f64 %0, %1, %2, %3;" : "=d"(r) : "d"(a), "d"(b), "d"(c));
	return r;
}
#define FMA_RZ(a, b, c) ptx_fma_rz((a), (b), (c))

/* v of lane src of the caller's segment of the warp; c = ((32 − width) << 8)
 * | 31 for segments of width lanes (lanes.h). Every lane of the warp runs it. */
DEVICE_FN u32 ptx_shfl_idx(u32 v, u32 src, u32 c) {
	u32 r;
	asm volatile ("shfl.sync.idx.b32 %0, %1, %2, %3, 0xffffffff;" : "=r"(r) : "r"(v), "r"(src), "r"(c));
	return r;
}

#define ADD_CC(r, a, b)  ((r) = ptx_add_cc((a), (b)))
#define ADDC_CC(r, a, b) ((r) = ptx_addc_cc((a), (b)))
#define ADDC(r, a, b)    ((r) = ptx_addc((a), (b)))
#define SUB_CC(r, a, b)  ((r) = ptx_sub_cc((a), (b)))
#define SUBC_CC(r, a, b) ((r) = ptx_subc_cc((a), (b)))
#define SUBC(r, a, b)    ((r) = ptx_subc((a), (b)))

#define MUL_LO(a, b) ((u32)(a) * (u32)(b))
#define MUL_HI(a, b) ((u32)(((u64)(a) * (b)) >> 32))

#define MADLO_CC(r, a, b, c)  ((r) = ptx_mad_lo_cc((a), (b), (c)))
#define MADLOC_CC(r, a, b, c) ((r) = ptx_madc_lo_cc((a), (b), (c)))
#define MADLOC(r, a, b, c)    ((r) = ptx_madc_lo((a), (b), (c)))
#define MADHI_CC(r, a, b, c)  ((r) = ptx_mad_hi_cc((a), (b), (c)))
#define MADHIC_CC(r, a, b, c) ((r) = ptx_madc_hi_cc((a), (b), (c)))
#define MADHIC(r, a, b, c)    ((r) = ptx_madc_hi((a), (b), (c)))
