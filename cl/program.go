package cl

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// EnvNoPTX, when "1", makes every device use the portable C paths even where
// inline PTX works (to test both paths on one NVIDIA GPU).
const EnvNoPTX = "GPUCRYPTO_NO_PTX"

// BuildOptions are the -D definitions and extra compiler flags of a build.
type BuildOptions struct {
	Defines map[string]string // NAME → value ("" gives -DNAME)
	Flags   []string          // passed through verbatim, e.g. "-cl-std=CL1.2"
}

func (o BuildOptions) String() string {
	names := make([]string, 0, len(o.Defines))
	for k := range o.Defines {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		if v := o.Defines[k]; v != "" {
			parts = append(parts, "-D"+k+"="+v)
		} else {
			parts = append(parts, "-D"+k)
		}
	}
	parts = append(parts, o.Flags...)
	return strings.Join(parts, " ")
}

// Cache states of a built program.
const (
	CacheDisabled = "disabled"
	CacheMiss     = "miss"
	CacheHit      = "hit"
	CacheCorrupt  = "corrupt" // an entry existed but was unusable; rebuilt and rewritten
)

// Program is a program built for one device. Its kernels are shared and
// safe for concurrent launches.
type Program struct {
	dev     *Device
	prog    uintptr
	Key     string // cache key (hex SHA-256)
	Cache   string // one of the Cache* states
	Source  string // full source as compiled (prelude included)
	Options string

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

// Prelude is the generated header put before every source compiled for the
// device: the dialect selector and the device's feature flags.
func (d *Device) Prelude() string {
	var b strings.Builder
	b.WriteString("/* gpucrypto prelude */\n#define GPUCRYPTO_OPENCL 1\n")
	fmt.Fprintf(&b, "#define GPUCRYPTO_VENDOR_%s 1\n", strings.ToUpper(d.Class.String()))
	if d.FP64 {
		b.WriteString("#define GPUCRYPTO_HAS_FP64 1\n")
	}
	if d.Subgroups {
		b.WriteString("#define GPUCRYPTO_HAS_SUBGROUPS 1\n")
	}
	if d.InlinePTX() {
		b.WriteString("#define GPUCRYPTO_HAS_PTX 1\n")
	}
	return b.String()
}

// Program returns the program for src built with opts, building it (or
// loading it from the disk cache) on first use and reusing it afterwards.
func (d *Device) Program(src string, opts BuildOptions) (*Program, error) {
	full := d.Prelude() + src
	key := d.cacheKey(full, opts.String())
	d.progMu.Lock()
	defer d.progMu.Unlock()
	if p, ok := d.programs[key]; ok {
		return p, nil
	}
	p, err := d.build(full, opts.String(), key)
	if err != nil {
		return nil, err
	}
	d.programs[key] = p
	return p, nil
}

// Build compiles src (after the prelude) with opts. Unlike Program it does
// not reuse an earlier in-process build, but it does use the disk cache.
func (d *Device) Build(src string, opts BuildOptions) (*Program, error) {
	full := d.Prelude() + src
	return d.build(full, opts.String(), d.cacheKey(full, opts.String()))
}

func (d *Device) cacheKey(full, opts string) string {
	h := sha256.New()
	for _, s := range []string{cacheFormat, full, opts, d.Name, d.Vendor, d.DriverVersion, d.Platform, d.PlatformVersion, d.Version} {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (d *Device) build(full, opts, key string) (*Program, error) {
	if err := d.open(); err != nil {
		return nil, err
	}
	p := &Program{dev: d, Key: key, Source: full, Options: opts, kernels: map[string]*Kernel{}}
	cache := openCache()
	p.Cache = CacheDisabled
	if cache != nil {
		p.Cache = CacheMiss
		bin, state := cache.load(key)
		if state == CacheHit {
			if prog, err := d.fromBinary(bin, opts); err == nil {
				p.prog, p.Cache = prog, CacheHit
			} else {
				state = CacheCorrupt
			}
		}
		if state == CacheCorrupt {
			p.Cache = CacheCorrupt
			cache.remove(key)
		}
	}
	if p.prog == 0 {
		prog, err := d.fromSource(full, opts)
		if err != nil {
			return nil, err
		}
		p.prog = prog
		if cache != nil {
			if bin, err := d.binary(prog); err == nil && len(bin) > 0 {
				_ = cache.store(key, bin) // a cache that cannot be written is not an error
			}
		}
	}
	p.handles = &progHandles{api: d.api, prog: p.prog}
	p.cleanup = runtime.AddCleanup(p, (*progHandles).free, p.handles)
	return p, nil
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

// Local asks for n bytes of local (shared) memory as a kernel argument.
type Local int

// Launch runs the kernel over a 1-D range of global work-items in groups of
// local (0 lets the driver choose). global is rounded up to a multiple of
// local, so kernels must bound-check their index. Arguments may be *Buffer,
// Local, int32, uint32, int64, uint64, float32 or float64.
func (k *Kernel) Launch(global, local int, args ...any) (*Event, error) {
	if global <= 0 {
		return nil, fmt.Errorf("cl: Launch %s: global size %d must be positive", k.Name, global)
	}
	if local < 0 || local > k.dev.MaxWorkGroup {
		return nil, fmt.Errorf("cl: Launch %s: work-group size %d outside [0, %d]", k.Name, local, k.dev.MaxWorkGroup)
	}
	if local > 0 && global%local != 0 {
		global += local - global%local
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.k == 0 {
		return nil, fmt.Errorf("cl: Launch %s: kernel released", k.Name)
	}
	a := k.dev.api
	var keep []*Buffer
	for i, arg := range args {
		var st int32
		switch v := arg.(type) {
		case *Buffer:
			if v == nil || v.mem == 0 {
				return nil, fmt.Errorf("cl: Launch %s: argument %d is a nil or released buffer", k.Name, i)
			}
			mem := v.mem
			st = a.SetKernelArg(k.k, uint32(i), unsafe.Sizeof(mem), unsafe.Pointer(&mem))
			keep = append(keep, v)
		case Local:
			st = a.SetKernelArg(k.k, uint32(i), uintptr(v), nil)
		case int32:
			st = a.SetKernelArg(k.k, uint32(i), 4, unsafe.Pointer(&v))
		case uint32:
			st = a.SetKernelArg(k.k, uint32(i), 4, unsafe.Pointer(&v))
		case int64:
			st = a.SetKernelArg(k.k, uint32(i), 8, unsafe.Pointer(&v))
		case uint64:
			st = a.SetKernelArg(k.k, uint32(i), 8, unsafe.Pointer(&v))
		case float32:
			st = a.SetKernelArg(k.k, uint32(i), 4, unsafe.Pointer(&v))
		case float64:
			st = a.SetKernelArg(k.k, uint32(i), 8, unsafe.Pointer(&v))
		default:
			return nil, fmt.Errorf("cl: Launch %s: argument %d has unsupported type %T", k.Name, i, arg)
		}
		if err := check("clSetKernelArg", st); err != nil {
			return nil, fmt.Errorf("%w (kernel %s, argument %d)", err, k.Name, i)
		}
	}
	g := uintptr(global)
	l := uintptr(local)
	var lp *uintptr
	if local > 0 {
		lp = &l
	}
	ev := &Event{api: a, keep: nil}
	st := a.EnqueueNDRangeKernel(k.dev.queue, k.k, 1, nil, &g, lp, 0, nil, &ev.ev)
	runtime.KeepAlive(keep)
	if err := check("clEnqueueNDRangeKernel", st); err != nil {
		return nil, fmt.Errorf("%w (kernel %s, global %d, local %d)", err, k.Name, global, local)
	}
	a.Flush(k.dev.queue)
	runtime.SetFinalizer(ev, (*Event).finalize)
	return ev, nil
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

// InlinePTX reports whether the device's compiler accepts inline PTX. It is
// probed once per device by a test compile of carry-chain and shfl.sync
// instructions (NVIDIA only), and the answer is
// kept in the disk cache keyed by device and driver. GPUCRYPTO_NO_PTX=1
// turns it off.
func (d *Device) InlinePTX() bool {
	d.probeOnce.Do(func() {
		if d.Class != VendorNVIDIA {
			return
		}
		key := "probe-ptx-" + d.cacheKey(ptxProbe, "")
		cache := openCache()
		if cache != nil {
			if v, ok := cache.loadSmall(key); ok {
				d.ptx = v == "1"
				return
			}
		}
		if d.open() != nil {
			return
		}
		prog, err := d.fromSource(ptxProbe, "")
		if err == nil {
			d.api.ReleaseProgram(prog)
		}
		d.ptx = err == nil
		if cache != nil {
			v := "0"
			if d.ptx {
				v = "1"
			}
			_ = cache.storeSmall(key, v)
		}
	})
	return d.ptx && os.Getenv(EnvNoPTX) != "1"
}
