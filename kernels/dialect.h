/* dialect.h: the few words that differ between OpenCL C and CUDA C.
 *
 * Every kernel source in this tree is written against these macros, so one
 * file compiles as OpenCL C (clBuildProgram, including PoCL) and as CUDA C
 * (NVRTC, when __CUDACC__ is defined). Nothing else in the tree may use a
 * dialect-specific keyword directly.
 */
#pragma once

#if defined(__CUDACC__)
typedef unsigned int u32;
typedef unsigned long long u64;
typedef int i32;
typedef long long i64;
typedef unsigned char u8;
typedef uint4 u32x4;
#define KERNEL extern "C" __global__
#define DEVICE_FN static __device__ __forceinline__
/* A function compiled once and called, not copied into each call site:
 * for large bodies (a field product) called from many places, whose
 * inlined copies outgrow the instruction cache. OpenCL C has no portable
 * way to say it; there it is DEVICE_FN. */
#define DEVICE_FN_NOINLINE static __device__ __noinline__
#define GLOBAL
#define LOCAL_PTR
#define RESTRICT __restrict__
/* A kernel argument in local (shared) memory (device.Local on the host):
 * CUDA has one dynamic shared region per block, and the host passes each
 * such argument as its byte offset there; LOCAL_BIND, the first statement
 * of the kernel, makes the pointer. */
extern __shared__ __align__(16) unsigned char dialect_shared[];
#define LOCAL_ARG(T, name) const u32 name##_offset
#define LOCAL_BIND(T, name) T *name = (T *)(dialect_shared + name##_offset)
/* KERNEL_BOUNDS(threads, groups), after KERNEL's return type: the kernel
 * runs in work-groups of at most threads work-items and wants groups of
 * them resident per multiprocessor, which caps its registers at
 * 65536 / (threads · groups) (CUDA's __launch_bounds__). Nothing on
 * OpenCL, whose compiler chooses by itself. */
#define KERNEL_BOUNDS(threads, groups) __launch_bounds__(threads, groups)
#define GID() ((u32)(blockIdx.x * blockDim.x + threadIdx.x))
#define LID() ((u32)threadIdx.x)
#define LSIZE() ((u32)blockDim.x)
#define GSIZE() ((u32)(gridDim.x * blockDim.x))
#define BARRIER_LOCAL() __syncthreads()
#else
typedef uint u32;
typedef ulong u64;
typedef int i32;
typedef long i64;
typedef uchar u8;
typedef uint4 u32x4;
#define KERNEL __kernel
#define DEVICE_FN static inline
#define DEVICE_FN_NOINLINE static inline
#define GLOBAL __global
#define LOCAL_PTR __local
#define RESTRICT restrict
#define LOCAL_ARG(T, name) __local T *name
#define LOCAL_BIND(T, name) do { } while (0)
#define KERNEL_BOUNDS(threads, groups)
#define GID() ((u32)get_global_id(0))
#define LID() ((u32)get_local_id(0))
#define LSIZE() ((u32)get_local_size(0))
#define GSIZE() ((u32)get_global_size(0))
#define BARRIER_LOCAL() barrier(CLK_LOCAL_MEM_FENCE)
#endif

/* UNROLL_OUTER goes before a loop whose body is already unrolled limb code
 * (a Montgomery row, say). GPU compilers unroll the loop fully, so every
 * array index becomes a constant and the arrays live in registers; CPU
 * devices keep the loop (smaller code, faster builds, arrays in cache). */
#if defined(GPUCRYPTO_VENDOR_CPU)
#define UNROLL_OUTER
#else
#define UNROLL_OUTER _Pragma("unroll")
#endif

/* A batch of numbers is stored limb-major ("interleaved"): limb j of element
 * i sits at index j*stride + i, so neighbouring threads read neighbouring
 * words (coalesced). LIMB(p, j, stride) addresses limb j of this thread's
 * element when p already points at element i's limb 0. */
#define LIMB(p, j, stride) ((p)[(u32)(j) * (stride)])
