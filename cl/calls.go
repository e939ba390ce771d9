package cl

import (
	"unsafe"

	"github.com/gpucrypto/gpucrypto/internal/ccall"
)

// The entry points that commands and batches call: kernel arguments and
// launches, copies, fills, barriers, flushes, event waits, queries and
// releases, and buffers. They call their symbol through package ccall,
// where a purego.RegisterFunc function (the other entry points, lib.go)
// builds reflect.Values on every call: 5 allocations and several times
// the time of the call itself (BenchmarkDriverCall). Each keeps the
// signature the RegisterFunc function had, so its callers read the same.
//
// Pointer arguments become uintptr in the ccall call expression itself, so
// that the compiler keeps what they point at alive until the call returns
// (ccall's functions are go:uintptrescapes, like syscall.Syscall). That
// also moves what they point at to the heap: the hot paths pass fields of
// objects already there (an Event's handle and query results, a Kernel's
// argument value and work sizes, a Queue's wait list), not locals, which
// would be an allocation a call.
//
// Every argument fills one uintptr (64-bit hosts: cl_mem_flags, 64 bits,
// too); cl_uint and cl_bool ones (32 bits) are passed widened, and the
// callee reads the low half of the register or stack slot. A cl_int
// result is the low half of the result register (int32(r)).

// symbols are the addresses of the entry points of this file; optional
// ones are 0 when the library lacks them (OpenCL 1.1).
type symbols struct {
	createBuffer, releaseMemObject        uintptr
	enqueueWriteBuffer, enqueueReadBuffer uintptr
	setKernelArg, enqueueNDRangeKernel    uintptr
	finish, flush                         uintptr
	waitForEvents, getEventInfo           uintptr
	getEventProfilingInfo, releaseEvent   uintptr
	enqueueFillBuffer                     uintptr // optional (1.2)
	enqueueBarrierWithWaitList            uintptr // optional (1.2)
}

func (a *api) CreateBuffer(c uintptr, flags uint64, size uintptr, host unsafe.Pointer, errc *int32) uintptr {
	return ccall.Call5(a.sym.createBuffer, c, uintptr(flags), size, uintptr(host), uintptr(unsafe.Pointer(errc)))
}

func (a *api) ReleaseMemObject(m uintptr) int32 {
	return int32(ccall.Call1(a.sym.releaseMemObject, m))
}

func (a *api) EnqueueWriteBuffer(q, m uintptr, blocking uint32, off, size uintptr, ptr unsafe.Pointer, nwait uint32, wait *uintptr, ev *uintptr) int32 {
	return int32(ccall.Call9(a.sym.enqueueWriteBuffer, q, m, uintptr(blocking), off, size, uintptr(ptr),
		uintptr(nwait), uintptr(unsafe.Pointer(wait)), uintptr(unsafe.Pointer(ev))))
}

func (a *api) EnqueueReadBuffer(q, m uintptr, blocking uint32, off, size uintptr, ptr unsafe.Pointer, nwait uint32, wait *uintptr, ev *uintptr) int32 {
	return int32(ccall.Call9(a.sym.enqueueReadBuffer, q, m, uintptr(blocking), off, size, uintptr(ptr),
		uintptr(nwait), uintptr(unsafe.Pointer(wait)), uintptr(unsafe.Pointer(ev))))
}

func (a *api) SetKernelArg(k uintptr, index uint32, size uintptr, value unsafe.Pointer) int32 {
	return int32(ccall.Call4(a.sym.setKernelArg, k, uintptr(index), size, uintptr(value)))
}

func (a *api) EnqueueNDRangeKernel(q, k uintptr, dim uint32, offset, global, local *uintptr, nwait uint32, wait *uintptr, ev *uintptr) int32 {
	return int32(ccall.Call9(a.sym.enqueueNDRangeKernel, q, k, uintptr(dim), uintptr(unsafe.Pointer(offset)),
		uintptr(unsafe.Pointer(global)), uintptr(unsafe.Pointer(local)), uintptr(nwait),
		uintptr(unsafe.Pointer(wait)), uintptr(unsafe.Pointer(ev))))
}

func (a *api) Finish(q uintptr) int32 { return int32(ccall.Call1(a.sym.finish, q)) }

func (a *api) Flush(q uintptr) int32 { return int32(ccall.Call1(a.sym.flush, q)) }

func (a *api) WaitForEvents(num uint32, events *uintptr) int32 {
	return int32(ccall.Call2(a.sym.waitForEvents, uintptr(num), uintptr(unsafe.Pointer(events))))
}

func (a *api) GetEventInfo(e uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32 {
	return int32(ccall.Call5(a.sym.getEventInfo, e, uintptr(param), size, uintptr(value), uintptr(unsafe.Pointer(sizeRet))))
}

func (a *api) GetEventProfiling(e uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32 {
	return int32(ccall.Call5(a.sym.getEventProfilingInfo, e, uintptr(param), size, uintptr(value), uintptr(unsafe.Pointer(sizeRet))))
}

func (a *api) ReleaseEvent(e uintptr) int32 { return int32(ccall.Call1(a.sym.releaseEvent, e)) }

// EnqueueFillBuffer needs OpenCL 1.2: check sym.enqueueFillBuffer first.
func (a *api) EnqueueFillBuffer(q, m uintptr, pattern unsafe.Pointer, psize, off, size uintptr, nwait uint32, wait *uintptr, ev *uintptr) int32 {
	return int32(ccall.Call9(a.sym.enqueueFillBuffer, q, m, uintptr(pattern), psize, off, size,
		uintptr(nwait), uintptr(unsafe.Pointer(wait)), uintptr(unsafe.Pointer(ev))))
}

// EnqueueBarrierWithWaitList needs OpenCL 1.2: check
// sym.enqueueBarrierWithWaitList first.
func (a *api) EnqueueBarrierWithWaitList(q uintptr, nwait uint32, wait *uintptr, ev *uintptr) int32 {
	return int32(ccall.Call4(a.sym.enqueueBarrierWithWaitList, q, uintptr(nwait),
		uintptr(unsafe.Pointer(wait)), uintptr(unsafe.Pointer(ev))))
}
