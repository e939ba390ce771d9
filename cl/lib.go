package cl

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// EnvLibrary names the environment variable that overrides the OpenCL
// library path (default: libOpenCL.so.1, then libOpenCL.so).
const EnvLibrary = "GPUCRYPTO_OPENCL_LIB"

// RuntimeError says why no OpenCL runtime could be used. Devices returns it
// (wrapped) when the library is missing or unusable; callers can test for it
// with errors.As and fall back to the CPU.
type RuntimeError struct {
	Library string // the library that was tried last
	Reason  string
	Err     error
}

func (e *RuntimeError) Error() string {
	msg := "opencl: " + e.Reason
	if e.Library != "" {
		msg += " (" + e.Library + ")"
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *RuntimeError) Unwrap() error { return e.Err }

// ErrNoRuntime is matched (errors.Is) by every RuntimeError.
var ErrNoRuntime = errors.New("opencl: no runtime")

func (e *RuntimeError) Is(target error) bool { return target == ErrNoRuntime }

// api holds the OpenCL entry points bound at run time. Required entries are
// OpenCL 1.2 core; optional ones stay nil when the library lacks them.
type api struct {
	path string

	GetPlatformIDs       func(num uint32, platforms *uintptr, numOut *uint32) int32
	GetPlatformInfo      func(p uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	GetDeviceIDs         func(p uintptr, typ uint64, num uint32, devices *uintptr, numOut *uint32) int32
	GetDeviceInfo        func(d uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	CreateContext        func(props unsafe.Pointer, num uint32, devices *uintptr, notify uintptr, user uintptr, errc *int32) uintptr
	ReleaseContext       func(c uintptr) int32
	CreateCommandQueue   func(c uintptr, d uintptr, props uint64, errc *int32) uintptr
	ReleaseCommandQueue  func(q uintptr) int32
	CreateBuffer         func(c uintptr, flags uint64, size uintptr, host unsafe.Pointer, errc *int32) uintptr
	ReleaseMemObject     func(m uintptr) int32
	EnqueueWriteBuffer   func(q, m uintptr, blocking uint32, off, size uintptr, ptr unsafe.Pointer, nwait uint32, wait *uintptr, ev *uintptr) int32
	EnqueueReadBuffer    func(q, m uintptr, blocking uint32, off, size uintptr, ptr unsafe.Pointer, nwait uint32, wait *uintptr, ev *uintptr) int32
	EnqueueCopyBuffer    func(q, src, dst uintptr, srcOff, dstOff, size uintptr, nwait uint32, wait *uintptr, ev *uintptr) int32
	CreateProgramSource  func(c uintptr, count uint32, strs *uintptr, lens *uintptr, errc *int32) uintptr
	CreateProgramBinary  func(c uintptr, num uint32, devices *uintptr, lens *uintptr, bins *uintptr, status *int32, errc *int32) uintptr
	BuildProgram         func(p uintptr, num uint32, devices *uintptr, options string, notify uintptr, user uintptr) int32
	GetProgramInfo       func(p uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	GetProgramBuildInfo  func(p, d uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	ReleaseProgram       func(p uintptr) int32
	CreateKernel         func(p uintptr, name string, errc *int32) uintptr
	ReleaseKernel        func(k uintptr) int32
	SetKernelArg         func(k uintptr, index uint32, size uintptr, value unsafe.Pointer) int32
	GetKernelWGInfo      func(k, d uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	EnqueueNDRangeKernel func(q, k uintptr, dim uint32, offset, global, local *uintptr, nwait uint32, wait *uintptr, ev *uintptr) int32
	Finish               func(q uintptr) int32
	Flush                func(q uintptr) int32
	WaitForEvents        func(num uint32, events *uintptr) int32
	GetEventInfo         func(e uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	GetEventProfiling    func(e uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	ReleaseEvent         func(e uintptr) int32

	// Optional (nil when absent: OpenCL 1.1 libraries).
	EnqueueFillBuffer          func(q, m uintptr, pattern unsafe.Pointer, psize, off, size uintptr, nwait uint32, wait *uintptr, ev *uintptr) int32
	EnqueueBarrierWithWaitList func(q uintptr, nwait uint32, wait *uintptr, ev *uintptr) int32
}

var (
	libOnce sync.Once
	lib     *api
	libErr  error
)

// load opens the OpenCL library once per process.
func load() (*api, error) {
	libOnce.Do(func() { lib, libErr = openLibrary() })
	return lib, libErr
}

func openLibrary() (*api, error) {
	candidates := []string{"libOpenCL.so.1", "libOpenCL.so"}
	if p := os.Getenv(EnvLibrary); p != "" {
		candidates = []string{p}
	}
	var handle uintptr
	var lastErr error
	var path string
	for _, c := range candidates {
		h, err := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			handle, path = h, c
			break
		}
		lastErr, path = err, c
	}
	if handle == 0 {
		return nil, &RuntimeError{Library: path, Reason: "OpenCL library not found; install an ICD loader (ocl-icd-libopencl1) and a driver, or set " + EnvLibrary, Err: lastErr}
	}
	a := &api{path: path}
	required := []struct {
		name string
		fn   any
	}{
		{"clGetPlatformIDs", &a.GetPlatformIDs},
		{"clGetPlatformInfo", &a.GetPlatformInfo},
		{"clGetDeviceIDs", &a.GetDeviceIDs},
		{"clGetDeviceInfo", &a.GetDeviceInfo},
		{"clCreateContext", &a.CreateContext},
		{"clReleaseContext", &a.ReleaseContext},
		{"clCreateCommandQueue", &a.CreateCommandQueue},
		{"clReleaseCommandQueue", &a.ReleaseCommandQueue},
		{"clCreateBuffer", &a.CreateBuffer},
		{"clReleaseMemObject", &a.ReleaseMemObject},
		{"clEnqueueWriteBuffer", &a.EnqueueWriteBuffer},
		{"clEnqueueReadBuffer", &a.EnqueueReadBuffer},
		{"clEnqueueCopyBuffer", &a.EnqueueCopyBuffer},
		{"clCreateProgramWithSource", &a.CreateProgramSource},
		{"clCreateProgramWithBinary", &a.CreateProgramBinary},
		{"clBuildProgram", &a.BuildProgram},
		{"clGetProgramInfo", &a.GetProgramInfo},
		{"clGetProgramBuildInfo", &a.GetProgramBuildInfo},
		{"clReleaseProgram", &a.ReleaseProgram},
		{"clCreateKernel", &a.CreateKernel},
		{"clReleaseKernel", &a.ReleaseKernel},
		{"clSetKernelArg", &a.SetKernelArg},
		{"clGetKernelWorkGroupInfo", &a.GetKernelWGInfo},
		{"clEnqueueNDRangeKernel", &a.EnqueueNDRangeKernel},
		{"clFinish", &a.Finish},
		{"clFlush", &a.Flush},
		{"clWaitForEvents", &a.WaitForEvents},
		{"clGetEventInfo", &a.GetEventInfo},
		{"clGetEventProfilingInfo", &a.GetEventProfiling},
		{"clReleaseEvent", &a.ReleaseEvent},
	}
	for _, r := range required {
		sym, err := purego.Dlsym(handle, r.name)
		if err != nil || sym == 0 {
			return nil, &RuntimeError{Library: path, Reason: "OpenCL library lacks required symbol " + r.name, Err: err}
		}
		purego.RegisterFunc(r.fn, sym)
	}
	for _, o := range []struct {
		name string
		fn   any
	}{{"clEnqueueFillBuffer", &a.EnqueueFillBuffer}, {"clEnqueueBarrierWithWaitList", &a.EnqueueBarrierWithWaitList}} {
		if sym, err := purego.Dlsym(handle, o.name); err == nil && sym != 0 {
			purego.RegisterFunc(o.fn, sym)
		}
	}
	return a, nil
}

// Error is a failed OpenCL call: the call's name and its status, plus the
// build log for build failures.
type Error struct {
	Call   string
	Status int32
	Log    string // compiler output, for program builds
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s", e.Call, StatusName(e.Status))
	if e.Log != "" {
		s += "\nbuild log:\n" + e.Log
	}
	return s
}

// Status codes used by callers.
const (
	Success                   = 0
	DeviceNotFound            = -1
	MemObjectAllocationFailed = -4
	OutOfResources            = -5
	OutOfHostMemory           = -6
	BuildProgramFailure       = -11
	InvalidBinary             = -42
	InvalidBufferSize         = -61
)

// IsDeviceLost reports whether err is an OpenCL status that usually means
// the device failed or vanished (callers then fall back to the CPU).
func IsDeviceLost(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Status {
	case OutOfResources, -2 /* DEVICE_NOT_AVAILABLE */, -14 /* EXEC_STATUS_ERROR_FOR_EVENTS */, -36 /* INVALID_COMMAND_QUEUE */, -34 /* INVALID_CONTEXT */ :
		return true
	}
	return false
}

func check(call string, status int32) error {
	if status == Success {
		return nil
	}
	return &Error{Call: call, Status: status}
}

var statusNames = map[int32]string{
	0: "CL_SUCCESS", -1: "CL_DEVICE_NOT_FOUND", -2: "CL_DEVICE_NOT_AVAILABLE",
	-3: "CL_COMPILER_NOT_AVAILABLE", -4: "CL_MEM_OBJECT_ALLOCATION_FAILURE",
	-5: "CL_OUT_OF_RESOURCES", -6: "CL_OUT_OF_HOST_MEMORY",
	-7: "CL_PROFILING_INFO_NOT_AVAILABLE", -8: "CL_MEM_COPY_OVERLAP",
	-9: "CL_IMAGE_FORMAT_MISMATCH", -10: "CL_IMAGE_FORMAT_NOT_SUPPORTED",
	-11: "CL_BUILD_PROGRAM_FAILURE", -12: "CL_MAP_FAILURE",
	-13: "CL_MISALIGNED_SUB_BUFFER_OFFSET", -14: "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
	-15: "CL_COMPILE_PROGRAM_FAILURE", -16: "CL_LINKER_NOT_AVAILABLE",
	-17: "CL_LINK_PROGRAM_FAILURE", -18: "CL_DEVICE_PARTITION_FAILED",
	-19: "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
	-30: "CL_INVALID_VALUE", -31: "CL_INVALID_DEVICE_TYPE", -32: "CL_INVALID_PLATFORM",
	-33: "CL_INVALID_DEVICE", -34: "CL_INVALID_CONTEXT", -35: "CL_INVALID_QUEUE_PROPERTIES",
	-36: "CL_INVALID_COMMAND_QUEUE", -37: "CL_INVALID_HOST_PTR", -38: "CL_INVALID_MEM_OBJECT",
	-39: "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", -40: "CL_INVALID_IMAGE_SIZE",
	-41: "CL_INVALID_SAMPLER", -42: "CL_INVALID_BINARY", -43: "CL_INVALID_BUILD_OPTIONS",
	-44: "CL_INVALID_PROGRAM", -45: "CL_INVALID_PROGRAM_EXECUTABLE",
	-46: "CL_INVALID_KERNEL_NAME", -47: "CL_INVALID_KERNEL_DEFINITION",
	-48: "CL_INVALID_KERNEL", -49: "CL_INVALID_ARG_INDEX", -50: "CL_INVALID_ARG_VALUE",
	-51: "CL_INVALID_ARG_SIZE", -52: "CL_INVALID_KERNEL_ARGS",
	-53: "CL_INVALID_WORK_DIMENSION", -54: "CL_INVALID_WORK_GROUP_SIZE",
	-55: "CL_INVALID_WORK_ITEM_SIZE", -56: "CL_INVALID_GLOBAL_OFFSET",
	-57: "CL_INVALID_EVENT_WAIT_LIST", -58: "CL_INVALID_EVENT", -59: "CL_INVALID_OPERATION",
	-60: "CL_INVALID_GL_OBJECT", -61: "CL_INVALID_BUFFER_SIZE", -62: "CL_INVALID_MIP_LEVEL",
	-63: "CL_INVALID_GLOBAL_WORK_SIZE", -64: "CL_INVALID_PROPERTY",
	-65: "CL_INVALID_IMAGE_DESCRIPTOR", -66: "CL_INVALID_COMPILER_OPTIONS",
	-67: "CL_INVALID_LINKER_OPTIONS", -68: "CL_INVALID_DEVICE_PARTITION_COUNT",
	-69: "CL_INVALID_PIPE_SIZE", -70: "CL_INVALID_DEVICE_QUEUE",
	-1001: "CL_PLATFORM_NOT_FOUND_KHR",
}

// StatusName returns the symbolic name of an OpenCL status code.
func StatusName(s int32) string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("CL_STATUS(%d)", s)
}
