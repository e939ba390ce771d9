package cl

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Program is a program built for one device. Its kernels are shared and
// safe for concurrent launches.
type Program struct {
	dev  *Device
	prog uintptr

	mu      sync.Mutex
	kernels map[string]*Kernel
	handles *progHandles    // what the cleanup frees when the program is garbage
	cleanup runtime.Cleanup // cancelled by an explicit Release
}

// progHandles are the OpenCL objects of a Program, kept apart from it so the
// cleanup that frees them does not keep the Program reachable. A Kernel
// points at its Program, so a program stays alive as long as any of its
// kernels is in use.
type progHandles struct {
	api     *api
	prog    uintptr
	kernels []uintptr
}

func (h *progHandles) free() {
	for _, k := range h.kernels {
		h.api.ReleaseKernel(k)
	}
	if h.prog != 0 {
		h.api.ReleaseProgram(h.prog)
	}
}

// BuildSource compiles src with the compiler options opts. A failed build
// is an *Error carrying the compiler's log.
func (d *Device) BuildSource(src, opts string) (*Program, error) {
	if err := d.open(); err != nil {
		return nil, err
	}
	prog, err := d.fromSource(src, opts)
	if err != nil {
		return nil, err
	}
	return d.newProgram(prog), nil
}

// BuildBinary loads a program from a binary that Program.Binary returned
// for the same device and driver, built with the same options.
func (d *Device) BuildBinary(bin []byte, opts string) (*Program, error) {
	if len(bin) == 0 {
		return nil, fmt.Errorf("cl: BuildBinary: empty binary")
	}
	if err := d.open(); err != nil {
		return nil, err
	}
	prog, err := d.fromBinary(bin, opts)
	if err != nil {
		return nil, err
	}
	return d.newProgram(prog), nil
}

func (d *Device) newProgram(prog uintptr) *Program {
	p := &Program{dev: d, prog: prog, kernels: map[string]*Kernel{}}
	p.handles = &progHandles{api: d.api, prog: prog}
	p.cleanup = runtime.AddCleanup(p, (*progHandles).free, p.handles)
	return p
}

func (d *Device) fromSource(src, opts string) (uintptr, error) {
	a := d.api
	cs := append([]byte(src), 0)
	strs := []uintptr{uintptr(unsafe.Pointer(&cs[0]))}
	lens := []uintptr{uintptr(len(src))}
	var st int32
	prog := a.CreateProgramSource(d.ctx, 1, &strs[0], &lens[0], &st)
	runtime.KeepAlive(cs)
	if err := check("clCreateProgramWithSource", st); err != nil {
		return 0, err
	}
	id := d.id
	st = a.BuildProgram(prog, 1, &id, opts, 0, 0)
	if st != Success {
		log := d.buildLog(prog)
		a.ReleaseProgram(prog)
		return 0, &Error{Call: "clBuildProgram", Status: st, Log: log}
	}
	return prog, nil
}

func (d *Device) fromBinary(bin []byte, opts string) (uintptr, error) {
	a := d.api
	id := d.id
	lens := []uintptr{uintptr(len(bin))}
	ptrs := []uintptr{uintptr(unsafe.Pointer(&bin[0]))}
	var st, binStatus int32
	prog := a.CreateProgramBinary(d.ctx, 1, &id, &lens[0], &ptrs[0], &binStatus, &st)
	runtime.KeepAlive(bin)
	if err := check("clCreateProgramWithBinary", st); err != nil {
		return 0, err
	}
	if err := check("clCreateProgramWithBinary", binStatus); err != nil {
		a.ReleaseProgram(prog)
		return 0, err
	}
	if st = a.BuildProgram(prog, 1, &id, opts, 0, 0); st != Success {
		a.ReleaseProgram(prog)
		return 0, &Error{Call: "clBuildProgram", Status: st}
	}
	return prog, nil
}

func (d *Device) buildLog(prog uintptr) string {
	var size uintptr
	const buildLog = 0x1183
	if d.api.GetProgramBuildInfo(prog, d.id, buildLog, 0, nil, &size) != Success || size == 0 {
		return ""
	}
	buf := make([]byte, size)
	if d.api.GetProgramBuildInfo(prog, d.id, buildLog, size, unsafe.Pointer(&buf[0]), nil) != Success {
		return ""
	}
	return cString(buf)
}

func (d *Device) binary(prog uintptr) ([]byte, error) {
	var size uintptr
	const binarySizes, binaries = 0x1165, 0x1166
	if err := check("clGetProgramInfo", d.api.GetProgramInfo(prog, binarySizes, unsafe.Sizeof(size), unsafe.Pointer(&size), nil)); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, nil
	}
	bin := make([]byte, size)
	ptrs := []uintptr{uintptr(unsafe.Pointer(&bin[0]))}
	st := d.api.GetProgramInfo(prog, binaries, unsafe.Sizeof(ptrs[0]), unsafe.Pointer(&ptrs[0]), nil)
	runtime.KeepAlive(bin)
	if err := check("clGetProgramInfo", st); err != nil {
		return nil, err
	}
	return bin, nil
}

// BuildLog returns the compiler's log for a built program (warnings, and on
// NVIDIA the ptxas statistics when built with -cl-nv-verbose).
func (p *Program) BuildLog() string { return p.dev.buildLog(p.prog) }

// Binary returns the device binary (PTX text on NVIDIA).
func (p *Program) Binary() ([]byte, error) { return p.dev.binary(p.prog) }

// Release frees the program and its kernels.
func (p *Program) Release() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prog == 0 {
		return nil
	}
	p.cleanup.Stop()
	for _, k := range p.kernels {
		k.release()
	}
	p.kernels = nil
	err := check("clReleaseProgram", p.dev.api.ReleaseProgram(p.prog))
	p.prog = 0
	p.handles = nil
	return err
}

// Kernel returns the named kernel of the program.
func (p *Program) Kernel(name string) (*Kernel, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prog == 0 {
		return nil, fmt.Errorf("cl: Kernel %q: program released", name)
	}
	if k, ok := p.kernels[name]; ok {
		return k, nil
	}
	var st int32
	h := p.dev.api.CreateKernel(p.prog, name, &st)
	if err := check("clCreateKernel", st); err != nil {
		return nil, fmt.Errorf("%w (kernel %q)", err, name)
	}
	k := &Kernel{dev: p.dev, prog: p, k: h, Name: name}
	p.kernels[name] = k
	p.handles.kernels = append(p.handles.kernels, h)
	return k, nil
}

// Kernel is a kernel of a built program. Launch is safe for concurrent use:
// setting arguments and enqueueing happen under one lock.
type Kernel struct {
	dev  *Device
	prog *Program // keeps the program (and so this kernel's handle) alive
	mu   sync.Mutex
	k    uintptr
	Name string
}

// WorkGroupInfo reports the kernel's largest work-group size and its private
// memory per work-item (bytes), as the driver computes them for the device.
func (k *Kernel) WorkGroupInfo() (maxGroup int, privateMem uint64, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var wg uintptr
	if err = check("clGetKernelWorkGroupInfo", k.dev.api.GetKernelWGInfo(k.k, k.dev.id, 0x11B0, unsafe.Sizeof(wg), unsafe.Pointer(&wg), nil)); err != nil {
		return
	}
	err = check("clGetKernelWorkGroupInfo", k.dev.api.GetKernelWGInfo(k.k, k.dev.id, 0x11B4, 8, unsafe.Pointer(&privateMem), nil))
	return int(wg), privateMem, err
}

func (k *Kernel) release() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.k != 0 {
		k.dev.api.ReleaseKernel(k.k)
		k.k = 0
	}
}

const ptxProbe = `
__kernel void gpucrypto_probe(__global uint *o) {
	uint a = o[0], b = o[1], r, c;
	asm volatile ("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
	asm volatile ("addc.u32 %0, 0, 0;" : "=r"(c));
	asm volatile ("shfl.sync.idx.b32 %0, %1, 0, 31, 0xffffffff;" : "=r"(a) : "r"(r));
	o[2] = r; o[3] = c; o[4] = a;
}
`

// AcceptsInlinePTX compiles a probe of carry-chain and shfl.sync
// instructions: whether the device's compiler accepts inline PTX (NVIDIA
// only; false elsewhere without trying).
func (d *Device) AcceptsInlinePTX() bool {
	if d.Class != VendorNVIDIA || d.open() != nil {
		return false
	}
	prog, err := d.fromSource(ptxProbe, "")
	if err == nil {
		d.api.ReleaseProgram(prog)
	}
	return err == nil
}
