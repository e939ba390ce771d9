/*
 * A stand-in for libcuda with the C signatures of cuda.h, for
 * TestFakeDriver: it checks, without a GPU, that the package passes every
 * argument of the calls it makes where and as wide as the driver reads
 * them. "Device memory" is host memory from malloc; streams run their
 * commands at once; the calls record their arguments for the test to read
 * (fake_record).
 */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUstream, *CUevent, *CUmodule, *CUfunction;

#define NOT_READY 600

static int context_token, stream_token, module_token, function_token;

/* the record of the calls: the context current at each, and the arguments
 * of the last launch, stream wait, event record and memset */
static unsigned long long rec[32];
enum {
	R_CTX, R_LAUNCH_F, R_GRID_X, R_GRID_Y, R_GRID_Z, R_BLOCK_X, R_BLOCK_Y,
	R_BLOCK_Z, R_SHARED, R_LAUNCH_STREAM, R_EXTRA, R_WAIT_STREAM,
	R_WAIT_EVENT, R_WAIT_FLAGS, R_RECORD_EVENT, R_RECORD_STREAM,
	R_QUERIES, R_NPARAMS, R_EVENT_FLAGS, R_MEMSET_STREAM, R_N
};
static int param_sizes[16];
static unsigned char params[256];

void fake_record(unsigned long long *out) { memcpy(out, rec, sizeof rec); }
void fake_params(unsigned char *out) { memcpy(out, params, sizeof params); }

/* fake_expect sets the sizes of the next launch's parameters, which it
 * copies into params one after the other */
void fake_expect(int n, const int *sizes)
{
	rec[R_NPARAMS] = n;
	memcpy(param_sizes, sizes, n * sizeof *sizes);
}

CUresult cuInit(unsigned int flags) { return flags == 0 ? 0 : 1; }
CUresult cuDriverGetVersion(int *v) { *v = 12080; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return ordinal == 0 ? 0 : 101; }
CUresult cuDeviceGetName(char *name, int len, CUdevice d) { strncpy(name, "Fake GPU", len); return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) { *v = attr * 10; return 0; }
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) { *bytes = (size_t)80 << 30; return 0; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { *c = &context_token; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return 0; }
CUresult cuCtxSetCurrent(CUcontext c) { rec[R_CTX] = (unsigned long long)c; return 0; }

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)calloc(1, n); return *p ? 0 : 2; }
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)p); return 0; }
CUresult cuMemHostAlloc(void **p, size_t n, unsigned int flags) { *p = calloc(1, n); return 0; }
CUresult cuMemFreeHost(void *p) { free(p); return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	if (s != &stream_token) return 400;
	memcpy((void *)dst, src, n);
	return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	if (s != &stream_token) return 400;
	memcpy(dst, (const void *)src, n);
	return 0;
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s)
{
	rec[R_MEMSET_STREAM] = (unsigned long long)s;
	memset((void *)dst, v, n);
	return 0;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream s)
{
	rec[R_MEMSET_STREAM] = (unsigned long long)s;
	for (size_t i = 0; i < n; i++) ((unsigned short *)dst)[i] = v;
	return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s)
{
	rec[R_MEMSET_STREAM] = (unsigned long long)s;
	for (size_t i = 0; i < n; i++) ((unsigned int *)dst)[i] = v;
	return 0;
}

CUresult cuStreamCreate(CUstream *s, unsigned int flags) { *s = &stream_token; return flags == 1 ? 0 : 1; }
CUresult cuStreamDestroy_v2(CUstream s) { return s == &stream_token ? 0 : 400; }
CUresult cuStreamSynchronize(CUstream s) { return s == &stream_token ? 0 : 400; }
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags)
{
	rec[R_WAIT_STREAM] = (unsigned long long)s;
	rec[R_WAIT_EVENT] = (unsigned long long)e;
	rec[R_WAIT_FLAGS] = flags;
	return 0;
}

/* an event is a malloc'd int: its flags */
CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
	int *p = malloc(sizeof *p);
	*p = flags;
	rec[R_EVENT_FLAGS] = flags;
	*e = p;
	return 0;
}
CUresult cuEventDestroy_v2(CUevent e) { free(e); return 0; }
CUresult cuEventRecord(CUevent e, CUstream s)
{
	rec[R_RECORD_EVENT] = (unsigned long long)e;
	rec[R_RECORD_STREAM] = (unsigned long long)s;
	return 0;
}
CUresult cuEventSynchronize(CUevent e) { return e ? 0 : 400; }
/* every other query is not ready yet */
CUresult cuEventQuery(CUevent e) { return rec[R_QUERIES]++ % 2 == 0 ? NOT_READY : 0; }
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
	if (!start || !end || start == end) return 400;
	*ms = 1.5f;
	return 0;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image) { *m = &module_token; return 0; }
CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n, void *options, void **values)
{
	*m = &module_token;
	return 0;
}
CUresult cuModuleUnload(CUmodule m) { return m == &module_token ? 0 : 400; }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	if (strcmp(name, "k") != 0) return 500;
	*f = &function_token;
	return 0;
}
CUresult cuFuncGetAttribute(int *v, int attr, CUfunction f) { *v = attr; return 0; }
CUresult cuFuncSetAttribute(CUfunction f, int attr, int v) { return 0; }

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
	unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared, CUstream s,
	void **kernelParams, void **extra)
{
	rec[R_LAUNCH_F] = (unsigned long long)f;
	rec[R_GRID_X] = gx;
	rec[R_GRID_Y] = gy;
	rec[R_GRID_Z] = gz;
	rec[R_BLOCK_X] = bx;
	rec[R_BLOCK_Y] = by;
	rec[R_BLOCK_Z] = bz;
	rec[R_SHARED] = shared;
	rec[R_LAUNCH_STREAM] = (unsigned long long)s;
	rec[R_EXTRA] = (unsigned long long)extra;
	size_t off = 0;
	for (unsigned long long i = 0; i < rec[R_NPARAMS]; i++) {
		memcpy(params + off, kernelParams[i], param_sizes[i]);
		off += param_sizes[i];
	}
	return 0;
}
