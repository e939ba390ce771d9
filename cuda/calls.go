package cuda

import (
	"unsafe"

	"github.com/gpucrypto/gpucrypto/internal/ccall"
)

// The entry points that commands and batches call: the context switch of
// every call (Context.Do), launches, asynchronous copies and memsets,
// stream waits and synchronizations, events (create, record, query,
// synchronize, time, destroy), and device memory. They call their symbol
// through package ccall, where a purego.RegisterFunc function (the other
// entry points, driver.go) builds reflect.Values on every call: 5
// allocations and several times the time of the call itself (cl's
// BenchmarkDriverCall). Each keeps the signature the RegisterFunc function
// had, so its callers read the same; TestFakeDriver checks them against a
// stand-in for libcuda built from C.
//
// Pointer arguments become uintptr in the ccall call expression itself, so
// that the compiler keeps what they point at alive until the call returns
// (ccall's functions are go:uintptrescapes, like syscall.Syscall). That
// also moves what they point at to the heap: the hot paths pass pooled
// memory (outParam, launchParams) or Go memory already there (the host
// side of copies), not locals, which would be an allocation a call.
//
// The C types, against which each function below was checked: CUresult is
// a 32-bit enum, the low half of the result register (int32(r)); handles
// (CUcontext, CUstream, CUevent, CUfunction) are pointers and CUdeviceptr
// 64 bits, one uintptr each (64-bit hosts); size_t is uintptr; unsigned
// int, unsigned short and unsigned char arguments are passed widened
// (zero-extended) to uintptr, and the callee reads their low bits.

// symbols are the addresses of the entry points of this file.
type symbols struct {
	ctxSetCurrent                                 uintptr
	memAlloc, memFree                             uintptr
	memcpyHtoDAsync, memcpyDtoHAsync              uintptr
	memsetD8Async, memsetD16Async, memsetD32Async uintptr
	streamSynchronize, streamWaitEvent            uintptr
	eventCreate, eventDestroy, eventRecord        uintptr
	eventSynchronize, eventQuery                  uintptr
	eventElapsedTime                              uintptr
	launchKernel                                  uintptr
}

// cuCtxSetCurrent(CUcontext ctx)
func (a *driverAPI) ctxSetCurrent(ctx uintptr) int32 {
	return int32(ccall.Call1(a.sym.ctxSetCurrent, ctx))
}

// cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
func (a *driverAPI) memAlloc(ptr *uint64, size uintptr) int32 {
	return int32(ccall.Call2(a.sym.memAlloc, uintptr(unsafe.Pointer(ptr)), size))
}

// cuMemFree_v2(CUdeviceptr dptr)
func (a *driverAPI) memFree(ptr uint64) int32 {
	return int32(ccall.Call1(a.sym.memFree, uintptr(ptr)))
}

// cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)
func (a *driverAPI) memcpyHtoDAsync(dst uint64, src unsafe.Pointer, size uintptr, stream uintptr) int32 {
	return int32(ccall.Call4(a.sym.memcpyHtoDAsync, uintptr(dst), uintptr(src), size, stream))
}

// cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
func (a *driverAPI) memcpyDtoHAsync(dst unsafe.Pointer, src uint64, size uintptr, stream uintptr) int32 {
	return int32(ccall.Call4(a.sym.memcpyDtoHAsync, uintptr(dst), uintptr(src), size, stream))
}

// cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
func (a *driverAPI) memsetD8Async(dst uint64, value uint8, count uintptr, stream uintptr) int32 {
	return int32(ccall.Call4(a.sym.memsetD8Async, uintptr(dst), uintptr(value), count, stream))
}

// cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
func (a *driverAPI) memsetD16Async(dst uint64, value uint16, count uintptr, stream uintptr) int32 {
	return int32(ccall.Call4(a.sym.memsetD16Async, uintptr(dst), uintptr(value), count, stream))
}

// cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
func (a *driverAPI) memsetD32Async(dst uint64, value uint32, count uintptr, stream uintptr) int32 {
	return int32(ccall.Call4(a.sym.memsetD32Async, uintptr(dst), uintptr(value), count, stream))
}

// cuStreamSynchronize(CUstream hStream)
func (a *driverAPI) streamSynchronize(stream uintptr) int32 {
	return int32(ccall.Call1(a.sym.streamSynchronize, stream))
}

// cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
func (a *driverAPI) streamWaitEvent(stream, event uintptr, flags uint32) int32 {
	return int32(ccall.Call3(a.sym.streamWaitEvent, stream, event, uintptr(flags)))
}

// cuEventCreate(CUevent *phEvent, unsigned int Flags)
func (a *driverAPI) eventCreate(event *uintptr, flags uint32) int32 {
	return int32(ccall.Call2(a.sym.eventCreate, uintptr(unsafe.Pointer(event)), uintptr(flags)))
}

// cuEventDestroy_v2(CUevent hEvent)
func (a *driverAPI) eventDestroy(event uintptr) int32 {
	return int32(ccall.Call1(a.sym.eventDestroy, event))
}

// cuEventRecord(CUevent hEvent, CUstream hStream)
func (a *driverAPI) eventRecord(event, stream uintptr) int32 {
	return int32(ccall.Call2(a.sym.eventRecord, event, stream))
}

// cuEventSynchronize(CUevent hEvent)
func (a *driverAPI) eventSynchronize(event uintptr) int32 {
	return int32(ccall.Call1(a.sym.eventSynchronize, event))
}

// cuEventQuery(CUevent hEvent)
func (a *driverAPI) eventQuery(event uintptr) int32 {
	return int32(ccall.Call1(a.sym.eventQuery, event))
}

// cuEventElapsedTime_v2 or cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
func (a *driverAPI) eventElapsedTime(ms *float32, start, end uintptr) int32 {
	return int32(ccall.Call3(a.sym.eventElapsedTime, uintptr(unsafe.Pointer(ms)), start, end))
}

// cuLaunchKernel(CUfunction f, unsigned int gridDimX, gridDimY, gridDimZ,
// blockDimX, blockDimY, blockDimZ, unsigned int sharedMemBytes, CUstream
// hStream, void **kernelParams, void **extra): eleven arguments, the last
// five on the stack on amd64 (the last three on arm64), each in a slot of
// 8 bytes.
func (a *driverAPI) launchKernel(fn uintptr, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem uint32, stream uintptr, params, extra unsafe.Pointer) int32 {
	return int32(ccall.Call11(a.sym.launchKernel, fn,
		uintptr(gridX), uintptr(gridY), uintptr(gridZ),
		uintptr(blockX), uintptr(blockY), uintptr(blockZ),
		uintptr(sharedMem), stream, uintptr(params), uintptr(extra)))
}
