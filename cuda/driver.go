package cuda

// This file binds the CUDA driver API (libcuda) at run time, without cgo:
// devices, their primary contexts, device and pinned host memory, streams,
// events, modules and kernel launches. Every call that needs a context
// runs through Context.Do, on a locked OS thread with the context current,
// since goroutines move between threads and the driver keeps the current
// context per thread.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
)

// EnvCUDALibrary names the environment variable that overrides the CUDA
// driver library (default: libcuda.so.1, then libcuda.so). When it is set,
// it is the only library tried.
const EnvCUDALibrary = "GPUCRYPTO_CUDA_LIB"

var driverSonames = []string{"libcuda.so.1", "libcuda.so"}

// Driver is the loaded and initialized CUDA driver library. Its methods
// are safe for concurrent use.
type Driver struct {
	path    string
	handle  uintptr
	version int // cuDriverGetVersion: 1000*major + 10*minor
	api     driverAPI

	devMu   sync.Mutex
	devices map[int]*Device
}

// driverAPI holds the entry points. CUresult is a C enum (int); CUdevice an
// int; handles (CUcontext, CUstream, ...) pointers; CUdeviceptr 64 bits.
type driverAPI struct {
	init                 func(flags uint32) int32
	driverGetVersion     func(version *int32) int32
	deviceGetCount       func(count *int32) int32
	deviceGet            func(dev *int32, ordinal int32) int32
	deviceGetName        func(name *byte, length int32, dev int32) int32
	deviceGetAttribute   func(value *int32, attr int32, dev int32) int32
	deviceTotalMem       func(bytes *uintptr, dev int32) int32
	primaryCtxRetain     func(ctx *uintptr, dev int32) int32
	primaryCtxRelease    func(dev int32) int32
	ctxSetCurrent        func(ctx uintptr) int32
	memAlloc             func(ptr *uint64, size uintptr) int32
	memFree              func(ptr uint64) int32
	memHostAlloc         func(p *unsafe.Pointer, size uintptr, flags uint32) int32
	memFreeHost          func(p unsafe.Pointer) int32
	memcpyHtoDAsync      func(dst uint64, src unsafe.Pointer, size uintptr, stream uintptr) int32
	memcpyDtoHAsync      func(dst unsafe.Pointer, src uint64, size uintptr, stream uintptr) int32
	memsetD8Async        func(dst uint64, value uint8, count uintptr, stream uintptr) int32
	memsetD16Async       func(dst uint64, value uint16, count uintptr, stream uintptr) int32
	memsetD32Async       func(dst uint64, value uint32, count uintptr, stream uintptr) int32
	streamCreate         func(stream *uintptr, flags uint32) int32
	streamDestroy        func(stream uintptr) int32
	streamSynchronize    func(stream uintptr) int32
	streamWaitEvent      func(stream, event uintptr, flags uint32) int32
	eventCreate          func(event *uintptr, flags uint32) int32
	eventDestroy         func(event uintptr) int32
	eventRecord          func(event, stream uintptr) int32
	eventSynchronize     func(event uintptr) int32
	eventQuery           func(event uintptr) int32
	eventElapsedTime     func(ms *float32, start, end uintptr) int32
	moduleLoadData       func(module *uintptr, image unsafe.Pointer) int32
	moduleLoadDataEx     func(module *uintptr, image unsafe.Pointer, numOptions uint32, options, values unsafe.Pointer) int32
	moduleUnload         func(module uintptr) int32
	moduleGetFunction    func(fn *uintptr, module uintptr, name *byte) int32
	launchKernel         func(fn uintptr, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem uint32, stream uintptr, params, extra unsafe.Pointer) int32
	funcGetAttribute     func(value *int32, attr int32, fn uintptr) int32
	funcSetAttribute     func(fn uintptr, attr int32, value int32) int32
	getErrorName         func(status int32, name **byte) int32 // optional
	getErrorString       func(status int32, desc **byte) int32 // optional
	eventElapsedTimeName string
}

var (
	driverOnce sync.Once
	driverLib  *Driver
	driverErr  error
)

// LoadDriver opens the CUDA driver library once per process, binds its
// entry points and initializes it (cuInit), and returns the same result on
// every call. It tries the path in GPUCRYPTO_CUDA_LIB alone when that is
// set, else libcuda.so.1 and libcuda.so on the system's library path. A
// missing or unusable library gives a *MissingLibraryError (matching
// ErrNoDriver); a library whose cuInit fails (no GPU, a driver too old for
// the GPU) gives that *Error.
func LoadDriver() (*Driver, error) {
	driverOnce.Do(func() {
		candidates := driverSonames
		if p := os.Getenv(EnvCUDALibrary); p != "" {
			candidates = []string{p}
		}
		driverLib, driverErr = openDriver(candidates)
	})
	return driverLib, driverErr
}

func openDriver(candidates []string) (*Driver, error) {
	missing := missingDriver()
	for _, c := range candidates {
		d, reason, err := openDriverFile(c)
		if d != nil {
			return d, nil
		}
		if err != nil {
			return nil, err
		}
		missing.Tried = append(missing.Tried, c)
		missing.Reasons = append(missing.Reasons, reason)
	}
	return nil, missing
}

// openDriverFile opens one candidate: the driver, or why the candidate is
// not a usable library (reason), or the error of a usable library that
// cannot be initialized (err).
func openDriverFile(candidate string) (d *Driver, reason string, err error) {
	if strings.ContainsRune(candidate, '/') {
		if _, err := os.Stat(candidate); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, "no such file", nil
			}
			return nil, err.Error(), nil
		}
	}
	handle, derr := purego.Dlopen(candidate, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if derr != nil {
		return nil, "cannot be loaded: " + derr.Error(), nil
	}
	d = &Driver{path: candidate, handle: handle, devices: map[int]*Device{}}
	if reason := d.bind(); reason != "" {
		_ = purego.Dlclose(handle)
		return nil, reason, nil
	}
	if err := d.check("cuInit", d.api.init(0)); err != nil {
		if HasStatus(err, StatusStubLibrary) {
			_ = purego.Dlclose(handle)
			return nil, "the CUDA toolkit's stub library, not a driver", nil
		}
		return nil, "", fmt.Errorf("cuda: %s: %w", candidate, err)
	}
	var v int32
	if err := d.check("cuDriverGetVersion", d.api.driverGetVersion(&v)); err != nil {
		return nil, "", fmt.Errorf("cuda: %s: %w", candidate, err)
	}
	d.version = int(v)
	if !strings.ContainsRune(candidate, '/') {
		if p := mappedLibrary("libcuda.so"); p != "" {
			d.path = p
		}
	}
	return d, "", nil
}

// bind resolves the entry points, preferring the versioned names; it
// returns why the library is unusable, or "" on success.
func (d *Driver) bind() string {
	a := &d.api
	required := []struct {
		names []string // the first one present is bound
		fn    any
	}{
		{[]string{"cuInit"}, &a.init},
		{[]string{"cuDriverGetVersion"}, &a.driverGetVersion},
		{[]string{"cuDeviceGetCount"}, &a.deviceGetCount},
		{[]string{"cuDeviceGet"}, &a.deviceGet},
		{[]string{"cuDeviceGetName"}, &a.deviceGetName},
		{[]string{"cuDeviceGetAttribute"}, &a.deviceGetAttribute},
		{[]string{"cuDeviceTotalMem_v2"}, &a.deviceTotalMem},
		{[]string{"cuDevicePrimaryCtxRetain"}, &a.primaryCtxRetain},
		{[]string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, &a.primaryCtxRelease},
		{[]string{"cuCtxSetCurrent"}, &a.ctxSetCurrent},
		{[]string{"cuMemAlloc_v2"}, &a.memAlloc},
		{[]string{"cuMemFree_v2"}, &a.memFree},
		{[]string{"cuMemHostAlloc"}, &a.memHostAlloc},
		{[]string{"cuMemFreeHost"}, &a.memFreeHost},
		{[]string{"cuMemcpyHtoDAsync_v2"}, &a.memcpyHtoDAsync},
		{[]string{"cuMemcpyDtoHAsync_v2"}, &a.memcpyDtoHAsync},
		{[]string{"cuMemsetD8Async"}, &a.memsetD8Async},
		{[]string{"cuMemsetD16Async"}, &a.memsetD16Async},
		{[]string{"cuMemsetD32Async"}, &a.memsetD32Async},
		{[]string{"cuStreamCreate"}, &a.streamCreate},
		{[]string{"cuStreamDestroy_v2", "cuStreamDestroy"}, &a.streamDestroy},
		{[]string{"cuStreamSynchronize"}, &a.streamSynchronize},
		{[]string{"cuStreamWaitEvent"}, &a.streamWaitEvent},
		{[]string{"cuEventCreate"}, &a.eventCreate},
		{[]string{"cuEventDestroy_v2", "cuEventDestroy"}, &a.eventDestroy},
		{[]string{"cuEventRecord"}, &a.eventRecord},
		{[]string{"cuEventSynchronize"}, &a.eventSynchronize},
		{[]string{"cuEventQuery"}, &a.eventQuery},
		{[]string{"cuEventElapsedTime_v2", "cuEventElapsedTime"}, &a.eventElapsedTime},
		{[]string{"cuModuleLoadData"}, &a.moduleLoadData},
		{[]string{"cuModuleLoadDataEx"}, &a.moduleLoadDataEx},
		{[]string{"cuModuleUnload"}, &a.moduleUnload},
		{[]string{"cuModuleGetFunction"}, &a.moduleGetFunction},
		{[]string{"cuLaunchKernel"}, &a.launchKernel},
		{[]string{"cuFuncGetAttribute"}, &a.funcGetAttribute},
		{[]string{"cuFuncSetAttribute"}, &a.funcSetAttribute},
	}
	for _, r := range required {
		bound := false
		for _, name := range r.names {
			if sym, err := purego.Dlsym(d.handle, name); err == nil && sym != 0 {
				purego.RegisterFunc(r.fn, sym)
				if r.fn == any(&a.eventElapsedTime) {
					a.eventElapsedTimeName = name
				}
				bound = true
				break
			}
		}
		if !bound {
			return "not a CUDA driver library, or one too old: it lacks " + r.names[0]
		}
	}
	for _, o := range []struct {
		name string
		fn   any
	}{{"cuGetErrorName", &a.getErrorName}, {"cuGetErrorString", &a.getErrorString}} {
		if sym, err := purego.Dlsym(d.handle, o.name); err == nil && sym != 0 {
			purego.RegisterFunc(o.fn, sym)
		}
	}
	return ""
}

// check turns a CUresult into nil or an *Error naming call.
func (d *Driver) check(call string, status int32) error {
	if status == 0 {
		return nil
	}
	return d.newError(call, int(status))
}

func (d *Driver) newError(call string, status int) *Error {
	e := &Error{Call: call, Status: status, Name: statusNames[status]}
	if d != nil && d.api.getErrorName != nil {
		var p *byte
		if d.api.getErrorName(int32(status), &p) == 0 && p != nil {
			e.Name = goString(p)
		}
	}
	if d != nil && d.api.getErrorString != nil {
		var p *byte
		if d.api.getErrorString(int32(status), &p) == 0 && p != nil {
			e.Description = goString(p)
		}
	}
	return e
}

// goString copies a NUL-terminated C string.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// Path is the driver library loaded: the file the dynamic loader chose
// when it was found on the library path.
func (d *Driver) Path() string {
	if d == nil {
		return ""
	}
	return d.path
}

// Version is the CUDA version the driver supports (cuDriverGetVersion),
// such as 12, 8.
func (d *Driver) Version() (major, minor int) {
	if d == nil {
		return 0, 0
	}
	return d.version / 1000, d.version % 1000 / 10
}

// DeviceCount is the number of CUDA devices.
func (d *Driver) DeviceCount() (int, error) {
	if d == nil {
		return 0, errors.New("cuda: DeviceCount of a nil driver")
	}
	var n int32
	if err := d.check("cuDeviceGetCount", d.api.deviceGetCount(&n)); err != nil {
		return 0, err
	}
	return int(n), nil
}

// Device returns the device of the ordinal (0 ≤ ordinal < DeviceCount),
// the same *Device on every call.
func (d *Driver) Device(ordinal int) (*Device, error) {
	if d == nil {
		return nil, errors.New("cuda: Device of a nil driver")
	}
	d.devMu.Lock()
	defer d.devMu.Unlock()
	if dev, ok := d.devices[ordinal]; ok {
		return dev, nil
	}
	if ordinal < 0 || ordinal > math.MaxInt32 {
		return nil, fmt.Errorf("cuda: device ordinal %d out of range", ordinal)
	}
	var h int32
	if err := d.check("cuDeviceGet", d.api.deviceGet(&h, int32(ordinal))); err != nil {
		return nil, err
	}
	dev := &Device{drv: d, handle: h, ordinal: ordinal}
	d.devices[ordinal] = dev
	return dev, nil
}

// Device is one CUDA device.
type Device struct {
	drv     *Driver
	handle  int32
	ordinal int

	ctxOnce sync.Once
	ctx     *Context
	ctxErr  error
}

// DeviceAttribute is a CUdevice_attribute.
type DeviceAttribute int32

// Device attributes used here.
const (
	AttrMaxThreadsPerBlock           DeviceAttribute = 1
	AttrMaxSharedMemoryPerBlock      DeviceAttribute = 8
	AttrWarpSize                     DeviceAttribute = 10
	AttrClockRate                    DeviceAttribute = 13 // kHz
	AttrMultiprocessorCount          DeviceAttribute = 16
	AttrComputeCapabilityMajor       DeviceAttribute = 75
	AttrComputeCapabilityMinor       DeviceAttribute = 76
	AttrMaxSharedMemoryPerBlockOptin DeviceAttribute = 97
)

// Ordinal is the device's index among the driver's devices.
func (d *Device) Ordinal() int {
	if d == nil {
		return -1
	}
	return d.ordinal
}

// Name is the device's name, such as "NVIDIA H100 80GB HBM3".
func (d *Device) Name() (string, error) {
	if d == nil {
		return "", errors.New("cuda: Name of a nil device")
	}
	buf := make([]byte, 256)
	if err := d.drv.check("cuDeviceGetName", d.drv.api.deviceGetName(&buf[0], int32(len(buf)), d.handle)); err != nil {
		return "", err
	}
	if i := strings.IndexByte(string(buf), 0); i >= 0 {
		buf = buf[:i]
	}
	return string(buf), nil
}

// Attribute returns a device attribute.
func (d *Device) Attribute(attr DeviceAttribute) (int, error) {
	if d == nil {
		return 0, errors.New("cuda: Attribute of a nil device")
	}
	var v int32
	if err := d.drv.check("cuDeviceGetAttribute", d.drv.api.deviceGetAttribute(&v, int32(attr), d.handle)); err != nil {
		return 0, err
	}
	return int(v), nil
}

// ComputeCapability is the device's compute capability, such as 9, 0.
func (d *Device) ComputeCapability() (major, minor int, err error) {
	if major, err = d.Attribute(AttrComputeCapabilityMajor); err != nil {
		return 0, 0, err
	}
	if minor, err = d.Attribute(AttrComputeCapabilityMinor); err != nil {
		return 0, 0, err
	}
	return major, minor, nil
}

// TotalMem is the device's global memory in bytes.
func (d *Device) TotalMem() (uint64, error) {
	if d == nil {
		return 0, errors.New("cuda: TotalMem of a nil device")
	}
	var n uintptr
	if err := d.drv.check("cuDeviceTotalMem_v2", d.drv.api.deviceTotalMem(&n, d.handle)); err != nil {
		return 0, err
	}
	return uint64(n), nil
}

// PrimaryContext retains the device's primary context on first use and
// returns it, the same on every call.
func (d *Device) PrimaryContext() (*Context, error) {
	if d == nil {
		return nil, errors.New("cuda: PrimaryContext of a nil device")
	}
	d.ctxOnce.Do(func() {
		var h uintptr
		if err := d.drv.check("cuDevicePrimaryCtxRetain", d.drv.api.primaryCtxRetain(&h, d.handle)); err != nil {
			d.ctxErr = err
			return
		}
		if h == 0 {
			d.ctxErr = errors.New("cuda: cuDevicePrimaryCtxRetain returned no context")
			return
		}
		d.ctx = &Context{dev: d, drv: d.drv, handle: h}
	})
	return d.ctx, d.ctxErr
}

// Context is a device's primary context. Every object made in it (memory,
// streams, events, modules) is used through it.
type Context struct {
	dev      *Device
	drv      *Driver
	handle   uintptr
	released atomic.Bool
}

// Device is the context's device.
func (c *Context) Device() *Device {
	if c == nil {
		return nil
	}
	return c.dev
}

// Do runs f on a locked OS thread with the context current: driver calls
// made by f (through this package or not) find it there. Every method of
// the objects of the context goes through Do.
func (c *Context) Do(f func() error) error {
	if c == nil || c.handle == 0 {
		return errors.New("cuda: no context")
	}
	if c.released.Load() {
		return errors.New("cuda: context released")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.drv.check("cuCtxSetCurrent", c.drv.api.ctxSetCurrent(c.handle)); err != nil {
		return err
	}
	return f()
}

// call runs one driver call in the context and checks its status.
func (c *Context) call(name string, f func() int32) error {
	return c.Do(func() error { return c.drv.check(name, f()) })
}

// Release releases the primary context retained by PrimaryContext. The
// objects made in it must be freed first; the context cannot be used
// afterwards.
func (c *Context) Release() error {
	if c == nil || c.handle == 0 {
		return errors.New("cuda: Release of no context")
	}
	if c.released.Swap(true) {
		return nil
	}
	return c.drv.check("cuDevicePrimaryCtxRelease", c.drv.api.primaryCtxRelease(c.dev.handle))
}

// Memory is device memory (cuMemAlloc).
type Memory struct {
	ctx  *Context
	ptr  atomic.Uint64
	size int
}

// MemAlloc allocates size bytes of device memory.
func (c *Context) MemAlloc(size int) (*Memory, error) {
	if size <= 0 {
		return nil, fmt.Errorf("cuda: MemAlloc of %d bytes", size)
	}
	var p uint64
	if err := c.call("cuMemAlloc_v2", func() int32 { return c.drv.api.memAlloc(&p, uintptr(size)) }); err != nil {
		return nil, err
	}
	m := &Memory{ctx: c, size: size}
	m.ptr.Store(p)
	return m, nil
}

// Ptr is the memory's device address (a CUdeviceptr), 0 once freed.
func (m *Memory) Ptr() uint64 {
	if m == nil {
		return 0
	}
	return m.ptr.Load()
}

// Size is the memory's length in bytes.
func (m *Memory) Size() int {
	if m == nil {
		return 0
	}
	return m.size
}

// Free frees the memory (the driver waits for the work that may use it).
// Freeing it again is an error.
func (m *Memory) Free() error {
	if m == nil {
		return errors.New("cuda: Free of nil memory")
	}
	p := m.ptr.Swap(0)
	if p == 0 {
		return errors.New("cuda: device memory already freed")
	}
	return m.ctx.call("cuMemFree_v2", func() int32 { return m.ctx.drv.api.memFree(p) })
}

// span returns the address of [off, off+n) of m, checking the range.
func (m *Memory) span(op string, off, n int) (uint64, error) {
	if m == nil {
		return 0, fmt.Errorf("cuda: %s: nil device memory", op)
	}
	p := m.ptr.Load()
	if p == 0 {
		return 0, fmt.Errorf("cuda: %s: device memory already freed", op)
	}
	if off < 0 || n < 0 || off > m.size || n > m.size-off {
		return 0, fmt.Errorf("cuda: %s: range [%d, %d) outside %d bytes of device memory", op, off, off+n, m.size)
	}
	return p + uint64(off), nil
}

// HostMemory is page-locked host memory (cuMemHostAlloc), which copies
// reach fastest.
type HostMemory struct {
	ctx  *Context
	mu   sync.Mutex
	p    unsafe.Pointer
	size int
}

// Host allocation flags.
const (
	HostAllocPortable = 1 // pinned for every context, not only the caller's
)

// MemHostAlloc allocates size bytes of page-locked host memory.
func (c *Context) MemHostAlloc(size int, flags uint32) (*HostMemory, error) {
	if size <= 0 {
		return nil, fmt.Errorf("cuda: MemHostAlloc of %d bytes", size)
	}
	var p unsafe.Pointer
	if err := c.call("cuMemHostAlloc", func() int32 { return c.drv.api.memHostAlloc(&p, uintptr(size), flags) }); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errors.New("cuda: cuMemHostAlloc returned no memory")
	}
	return &HostMemory{ctx: c, p: p, size: size}, nil
}

// Bytes views the memory as a byte slice (nil once freed).
func (h *HostMemory) Bytes() []byte {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.size)
}

// Free frees the memory; its bytes must not be used afterwards. Freeing it
// again is an error.
func (h *HostMemory) Free() error {
	if h == nil {
		return errors.New("cuda: Free of nil host memory")
	}
	h.mu.Lock()
	p := h.p
	h.p = nil
	h.mu.Unlock()
	if p == nil {
		return errors.New("cuda: host memory already freed")
	}
	return h.ctx.call("cuMemFreeHost", func() int32 { return h.ctx.drv.api.memFreeHost(p) })
}

// Stream creation flags.
const (
	StreamDefault     = 0
	StreamNonBlocking = 1 // no implicit synchronization with the legacy NULL stream
)

// Stream is a CUDA stream: its commands run in order.
type Stream struct {
	ctx *Context
	h   atomic.Uintptr
}

// NewStream creates a stream.
func (c *Context) NewStream(flags uint32) (*Stream, error) {
	var h uintptr
	if err := c.call("cuStreamCreate", func() int32 { return c.drv.api.streamCreate(&h, flags) }); err != nil {
		return nil, err
	}
	s := &Stream{ctx: c}
	s.h.Store(h)
	return s, nil
}

func (s *Stream) handle(op string) (uintptr, error) {
	if s == nil {
		return 0, fmt.Errorf("cuda: %s on a nil stream", op)
	}
	h := s.h.Load()
	if h == 0 {
		return 0, fmt.Errorf("cuda: %s on a destroyed stream", op)
	}
	return h, nil
}

// Destroy destroys the stream once its commands are done (the driver
// lets them finish). Destroying it again is an error.
func (s *Stream) Destroy() error {
	if s == nil {
		return errors.New("cuda: Destroy of a nil stream")
	}
	h := s.h.Swap(0)
	if h == 0 {
		return errors.New("cuda: stream already destroyed")
	}
	return s.ctx.call("cuStreamDestroy", func() int32 { return s.ctx.drv.api.streamDestroy(h) })
}

// Synchronize waits until every command of the stream has completed.
func (s *Stream) Synchronize() error {
	h, err := s.handle("Synchronize")
	if err != nil {
		return err
	}
	return s.ctx.call("cuStreamSynchronize", func() int32 { return s.ctx.drv.api.streamSynchronize(h) })
}

// Record records the event on the stream: it completes when the commands
// enqueued before it have.
func (s *Stream) Record(e *Event) error {
	h, err := s.handle("Record")
	if err != nil {
		return err
	}
	eh, err := e.handle("Record")
	if err != nil {
		return err
	}
	return s.ctx.call("cuEventRecord", func() int32 { return s.ctx.drv.api.eventRecord(eh, h) })
}

// WaitEvent makes the stream's later commands wait until the event (of
// any stream) has completed.
func (s *Stream) WaitEvent(e *Event) error {
	h, err := s.handle("WaitEvent")
	if err != nil {
		return err
	}
	eh, err := e.handle("WaitEvent")
	if err != nil {
		return err
	}
	return s.ctx.call("cuStreamWaitEvent", func() int32 { return s.ctx.drv.api.streamWaitEvent(h, eh, 0) })
}

// CopyHtoD enqueues a copy of src to dst at byte offset off. src must stay
// alive, unmoved and unchanged until the copy completes (pinned Go memory,
// or HostMemory).
func (s *Stream) CopyHtoD(dst *Memory, off int, src []byte) error {
	if len(src) == 0 {
		return errors.New("cuda: CopyHtoD of no bytes")
	}
	h, err := s.handle("CopyHtoD")
	if err != nil {
		return err
	}
	p, err := dst.span("CopyHtoD", off, len(src))
	if err != nil {
		return err
	}
	err = s.ctx.call("cuMemcpyHtoDAsync_v2", func() int32 {
		return s.ctx.drv.api.memcpyHtoDAsync(p, unsafe.Pointer(&src[0]), uintptr(len(src)), h)
	})
	runtime.KeepAlive(src)
	return err
}

// CopyDtoH enqueues a copy of len(dst) bytes of src from byte offset off
// into dst, which must stay alive and unmoved until the copy completes.
func (s *Stream) CopyDtoH(dst []byte, src *Memory, off int) error {
	if len(dst) == 0 {
		return errors.New("cuda: CopyDtoH of no bytes")
	}
	h, err := s.handle("CopyDtoH")
	if err != nil {
		return err
	}
	p, err := src.span("CopyDtoH", off, len(dst))
	if err != nil {
		return err
	}
	err = s.ctx.call("cuMemcpyDtoHAsync_v2", func() int32 {
		return s.ctx.drv.api.memcpyDtoHAsync(unsafe.Pointer(&dst[0]), p, uintptr(len(dst)), h)
	})
	runtime.KeepAlive(dst)
	return err
}

// MemsetD8 enqueues setting count bytes of dst from byte offset off to v.
func (s *Stream) MemsetD8(dst *Memory, off int, v uint8, count int) error {
	h, p, err := s.memsetArgs("MemsetD8", dst, off, count, 1)
	if err != nil {
		return err
	}
	return s.ctx.call("cuMemsetD8Async", func() int32 { return s.ctx.drv.api.memsetD8Async(p, v, uintptr(count), h) })
}

// MemsetD16 enqueues setting count 16-bit words of dst from byte offset
// off (a multiple of 2) to v.
func (s *Stream) MemsetD16(dst *Memory, off int, v uint16, count int) error {
	h, p, err := s.memsetArgs("MemsetD16", dst, off, count, 2)
	if err != nil {
		return err
	}
	return s.ctx.call("cuMemsetD16Async", func() int32 { return s.ctx.drv.api.memsetD16Async(p, v, uintptr(count), h) })
}

// MemsetD32 enqueues setting count 32-bit words of dst from byte offset
// off (a multiple of 4) to v.
func (s *Stream) MemsetD32(dst *Memory, off int, v uint32, count int) error {
	h, p, err := s.memsetArgs("MemsetD32", dst, off, count, 4)
	if err != nil {
		return err
	}
	return s.ctx.call("cuMemsetD32Async", func() int32 { return s.ctx.drv.api.memsetD32Async(p, v, uintptr(count), h) })
}

func (s *Stream) memsetArgs(op string, dst *Memory, off, count, width int) (uintptr, uint64, error) {
	h, err := s.handle(op)
	if err != nil {
		return 0, 0, err
	}
	if count <= 0 || off%width != 0 || count > math.MaxInt/width {
		return 0, 0, fmt.Errorf("cuda: %s: %d elements at offset %d: want at least one, at a multiple of %d", op, count, off, width)
	}
	p, err := dst.span(op, off, count*width)
	return h, p, err
}

// Dim3 is a grid or block shape; zero sizes count as 1.
type Dim3 struct{ X, Y, Z uint32 }

func (d Dim3) norm() Dim3 {
	if d.X == 0 {
		d.X = 1
	}
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

// Launch enqueues the kernel over grid blocks of block threads with
// sharedMem bytes of dynamic shared memory. Each argument is *Memory (its
// device address), uint32, int32, uint64, int64, float32, float64 or
// []byte (the raw bytes of a value of the kernel's parameter type).
func (s *Stream) Launch(f *Function, grid, block Dim3, sharedMem int, args ...any) error {
	h, err := s.handle("Launch")
	if err != nil {
		return err
	}
	fh, err := f.handle("Launch")
	if err != nil {
		return err
	}
	if sharedMem < 0 || sharedMem > math.MaxUint32 {
		return fmt.Errorf("cuda: Launch %s: %d bytes of shared memory", f.name, sharedMem)
	}
	grid, block = grid.norm(), block.norm()

	// kernelParams (void **): the address of each argument's value. The
	// values live in one Go buffer, each at a multiple of 8 bytes (every
	// kernel parameter type used here is aligned to at most 8), and both
	// the buffer and the address array are pinned for the call.
	values := make([][]byte, len(args))
	words := 0
	for i, a := range args {
		var v []byte
		switch x := a.(type) {
		case *Memory:
			p, err := x.span("Launch", 0, 0)
			if err != nil {
				return fmt.Errorf("cuda: Launch %s: argument %d: %w", f.name, i, err)
			}
			v = binary.LittleEndian.AppendUint64(nil, p)
		case uint32:
			v = binary.LittleEndian.AppendUint32(nil, x)
		case int32:
			v = binary.LittleEndian.AppendUint32(nil, uint32(x))
		case uint64:
			v = binary.LittleEndian.AppendUint64(nil, x)
		case int64:
			v = binary.LittleEndian.AppendUint64(nil, uint64(x))
		case float32:
			v = binary.LittleEndian.AppendUint32(nil, math.Float32bits(x))
		case float64:
			v = binary.LittleEndian.AppendUint64(nil, math.Float64bits(x))
		case []byte:
			if len(x) == 0 {
				return fmt.Errorf("cuda: Launch %s: argument %d is empty", f.name, i)
			}
			v = x
		default:
			return fmt.Errorf("cuda: Launch %s: argument %d has unsupported type %T", f.name, i, a)
		}
		values[i] = v
		words += (len(v) + 7) / 8
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	var params unsafe.Pointer
	if len(args) > 0 {
		buf := make([]uint64, words)
		raw := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), 8*words)
		addrs := make([]unsafe.Pointer, len(args))
		off := 0
		for i, v := range values {
			copy(raw[off:], v)
			addrs[i] = unsafe.Pointer(&raw[off])
			off += 8 * ((len(v) + 7) / 8)
		}
		pin.Pin(&buf[0])
		pin.Pin(&addrs[0])
		params = unsafe.Pointer(&addrs[0])
		defer runtime.KeepAlive(buf)
		defer runtime.KeepAlive(addrs)
	}
	return s.ctx.call("cuLaunchKernel", func() int32 {
		return s.ctx.drv.api.launchKernel(fh, grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z,
			uint32(sharedMem), h, params, nil)
	})
}

// Event creation flags.
const (
	EventDefault       = 0
	EventBlockingSync  = 1 // Synchronize sleeps instead of spinning
	EventDisableTiming = 2
)

// Event is a CUDA event.
type Event struct {
	ctx *Context
	h   atomic.Uintptr
}

// NewEvent creates an event.
func (c *Context) NewEvent(flags uint32) (*Event, error) {
	var h uintptr
	if err := c.call("cuEventCreate", func() int32 { return c.drv.api.eventCreate(&h, flags) }); err != nil {
		return nil, err
	}
	e := &Event{ctx: c}
	e.h.Store(h)
	return e, nil
}

func (e *Event) handle(op string) (uintptr, error) {
	if e == nil {
		return 0, fmt.Errorf("cuda: %s of a nil event", op)
	}
	h := e.h.Load()
	if h == 0 {
		return 0, fmt.Errorf("cuda: %s of a destroyed event", op)
	}
	return h, nil
}

// Synchronize waits until the event has completed, and returns the error
// of failed work before it (a faulted kernel's sticky error).
func (e *Event) Synchronize() error {
	h, err := e.handle("Synchronize")
	if err != nil {
		return err
	}
	return e.ctx.call("cuEventSynchronize", func() int32 { return e.ctx.drv.api.eventSynchronize(h) })
}

// Query reports whether the event has completed, without waiting. A
// "not ready" answer, the common one while a wait polls, is no error: it
// is told from the status alone, without the error (and the two driver
// calls for its name and description) that any other status gets.
func (e *Event) Query() (bool, error) {
	h, err := e.handle("Query")
	if err != nil {
		return false, err
	}
	var status int32
	if err := e.ctx.Do(func() error { status = e.ctx.drv.api.eventQuery(h); return nil }); err != nil {
		return false, err
	}
	switch status {
	case 0:
		return true, nil
	case StatusNotReady:
		return false, nil
	}
	return false, e.ctx.drv.check("cuEventQuery", status)
}

// Destroy destroys the event. Destroying it again is an error.
func (e *Event) Destroy() error {
	if e == nil {
		return errors.New("cuda: Destroy of a nil event")
	}
	h := e.h.Swap(0)
	if h == 0 {
		return errors.New("cuda: event already destroyed")
	}
	return e.ctx.call("cuEventDestroy", func() int32 { return e.ctx.drv.api.eventDestroy(h) })
}

// ElapsedTime is the time between two completed events recorded without
// EventDisableTiming (about half a microsecond resolution).
func ElapsedTime(start, end *Event) (time.Duration, error) {
	sh, err := start.handle("ElapsedTime")
	if err != nil {
		return 0, err
	}
	eh, err := end.handle("ElapsedTime")
	if err != nil {
		return 0, err
	}
	var ms float32
	c := start.ctx
	if err := c.call(c.drv.api.eventElapsedTimeName, func() int32 { return c.drv.api.eventElapsedTime(&ms, sh, eh) }); err != nil {
		return 0, err
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

// Module is loaded code: a CUBIN (or fatbin) image, or PTX that the driver
// compiles for the device as it loads it.
type Module struct {
	ctx *Context
	h   atomic.Uintptr
	log string
}

// CUjit_option values.
const (
	jitInfoLogBuffer           = 3
	jitInfoLogBufferSizeBytes  = 4
	jitErrorLogBuffer          = 5
	jitErrorLogBufferSizeBytes = 6
)

const jitLogSize = 64 << 10

// LoadModule loads a module from an image: a CUBIN or fatbin (ELF), or
// PTX text (a NUL is appended when it lacks one). Loading PTX compiles it;
// the JIT compiler's messages are the module's Log, and a failed load's
// *Error carries its error log.
func (c *Context) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, errors.New("cuda: LoadModule of an empty image")
	}
	if !isELF(image) && image[len(image)-1] != 0 {
		image = append(image[:len(image):len(image)], 0)
	}
	infoLog := make([]byte, jitLogSize)
	errLog := make([]byte, jitLogSize)
	options := []int32{jitInfoLogBuffer, jitInfoLogBufferSizeBytes, jitErrorLogBuffer, jitErrorLogBufferSizeBytes}
	// void **optionValues: buffer addresses, and sizes carried in the
	// pointers' place (the driver writes back the bytes it used).
	values := []uintptr{uintptr(unsafe.Pointer(&infoLog[0])), jitLogSize, uintptr(unsafe.Pointer(&errLog[0])), jitLogSize}
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&image[0])
	pin.Pin(&infoLog[0])
	pin.Pin(&errLog[0])
	pin.Pin(&options[0])
	pin.Pin(&values[0])
	var h uintptr
	err := c.call("cuModuleLoadDataEx", func() int32 {
		return c.drv.api.moduleLoadDataEx(&h, unsafe.Pointer(&image[0]), uint32(len(options)),
			unsafe.Pointer(&options[0]), unsafe.Pointer(&values[0]))
	})
	runtime.KeepAlive(image)
	runtime.KeepAlive(infoLog)
	runtime.KeepAlive(errLog)
	runtime.KeepAlive(options)
	runtime.KeepAlive(values)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Log = cText(errLog)
		}
		return nil, err
	}
	if h == 0 {
		return nil, errors.New("cuda: cuModuleLoadDataEx returned no module")
	}
	m := &Module{ctx: c, log: cText(infoLog)}
	m.h.Store(h)
	return m, nil
}

// cText is the text of b up to its first NUL.
func cText(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimRight(string(b), "\n")
}

func isELF(b []byte) bool {
	return len(b) >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F'
}

// Log is the JIT compiler's informational messages of the load (empty for
// CUBIN images, mostly).
func (m *Module) Log() string {
	if m == nil {
		return ""
	}
	return m.log
}

func (m *Module) handle(op string) (uintptr, error) {
	if m == nil {
		return 0, fmt.Errorf("cuda: %s of a nil module", op)
	}
	h := m.h.Load()
	if h == 0 {
		return 0, fmt.Errorf("cuda: %s of an unloaded module", op)
	}
	return h, nil
}

// Unload unloads the module; its functions cannot be used afterwards.
// Unloading it again is an error.
func (m *Module) Unload() error {
	if m == nil {
		return errors.New("cuda: Unload of a nil module")
	}
	h := m.h.Swap(0)
	if h == 0 {
		return errors.New("cuda: module already unloaded")
	}
	return m.ctx.call("cuModuleUnload", func() int32 { return m.ctx.drv.api.moduleUnload(h) })
}

// Function is a kernel of a module.
type Function struct {
	mod  *Module
	h    uintptr
	name string
}

// Function returns the kernel of the name (as the module's symbol:
// extern "C" kernels keep their source name).
func (m *Module) Function(name string) (*Function, error) {
	mh, err := m.handle("Function")
	if err != nil {
		return nil, err
	}
	if name == "" || strings.IndexByte(name, 0) >= 0 {
		return nil, fmt.Errorf("cuda: invalid kernel name %q", name)
	}
	cname := append([]byte(name), 0)
	var h uintptr
	err = m.ctx.call("cuModuleGetFunction", func() int32 { return m.ctx.drv.api.moduleGetFunction(&h, mh, &cname[0]) })
	runtime.KeepAlive(cname)
	if err != nil {
		return nil, fmt.Errorf("cuda: kernel %q: %w", name, err)
	}
	return &Function{mod: m, h: h, name: name}, nil
}

// Name is the kernel's name.
func (f *Function) Name() string {
	if f == nil {
		return ""
	}
	return f.name
}

func (f *Function) handle(op string) (uintptr, error) {
	if f == nil || f.h == 0 {
		return 0, fmt.Errorf("cuda: %s of a nil kernel", op)
	}
	if _, err := f.mod.handle(op); err != nil {
		return 0, err
	}
	return f.h, nil
}

// FunctionAttribute is a CUfunction_attribute.
type FunctionAttribute int32

// Function attributes.
const (
	FuncMaxThreadsPerBlock        FunctionAttribute = 0
	FuncSharedSizeBytes           FunctionAttribute = 1 // static shared memory
	FuncConstSizeBytes            FunctionAttribute = 2
	FuncLocalSizeBytes            FunctionAttribute = 3 // local (spill) memory per thread
	FuncNumRegs                   FunctionAttribute = 4
	FuncPTXVersion                FunctionAttribute = 5
	FuncBinaryVersion             FunctionAttribute = 6
	FuncMaxDynamicSharedSizeBytes FunctionAttribute = 8
)

// Attribute returns a kernel attribute.
func (f *Function) Attribute(attr FunctionAttribute) (int, error) {
	h, err := f.handle("Attribute")
	if err != nil {
		return 0, err
	}
	var v int32
	c := f.mod.ctx
	if err := c.call("cuFuncGetAttribute", func() int32 { return c.drv.api.funcGetAttribute(&v, int32(attr), h) }); err != nil {
		return 0, err
	}
	return int(v), nil
}

// SetAttribute sets a kernel attribute (FuncMaxDynamicSharedSizeBytes to
// launch with more than 48 KB of dynamic shared memory).
func (f *Function) SetAttribute(attr FunctionAttribute, value int) error {
	h, err := f.handle("SetAttribute")
	if err != nil {
		return err
	}
	if value < math.MinInt32 || value > math.MaxInt32 {
		return fmt.Errorf("cuda: SetAttribute %d: value %d out of range", attr, value)
	}
	c := f.mod.ctx
	return c.call("cuFuncSetAttribute", func() int32 { return c.drv.api.funcSetAttribute(h, int32(attr), int32(value)) })
}
