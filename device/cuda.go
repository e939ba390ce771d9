//go:build cuda

package device

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/cuda"
)

// The CUDA driver: NVIDIA GPUs through the CUDA driver API, with kernels
// built by NVRTC (package cuda). It comes before OpenCL, which then skips
// the GPUs found here.
func init() { drivers = append([]driver{cudaDriver{}}, drivers...) }

type cudaDriver struct{}

func (cudaDriver) name() string { return "cuda" }

func (cudaDriver) devices() ([]driverDevice, error) {
	drv, err := cuda.LoadDriver()
	if err != nil {
		return nil, err
	}
	nv, err := cuda.LoadNVRTC()
	if err != nil {
		return nil, fmt.Errorf("cuda: the CUDA driver (%s) is here but NVRTC, which builds the kernels, is not, so no GPU is driven through CUDA (OpenCL may still drive it): %w", drv.Path(), err)
	}
	n, err := drv.DeviceCount()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("cuda: no CUDA device")
	}
	var out []driverDevice
	var errs []error
	for i := range n {
		d, err := newCUDADevice(drv, nv, i)
		if err != nil {
			errs = append(errs, fmt.Errorf("cuda: device %d: %w", i, err))
			continue
		}
		out = append(out, d)
	}
	return out, errors.Join(errs...)
}

// cudaDevice is a CUDA GPU, or (dev == nil) a compile-only device of
// CUDACompiler.
type cudaDevice struct {
	facts  Info
	ident  string
	nvrtc  *cuda.NVRTC
	target string // NVRTC's --gpu-architecture: sm_XY (CUBIN) or compute_XY (PTX)
	cubin  bool
	// newerCompiler: NVRTC is of a later CUDA release than the driver
	// supports, whose loader may refuse its output.
	newerCompiler bool

	dev *cuda.Device // nil: compile only

	queueOnce sync.Once
	queue     *cudaQueue
	queueErr  error
}

// cudaSourceName names the program source in NVRTC's messages.
const cudaSourceName = "gpucrypto.cu"

// Binaries (those compile returns, for the disk cache) are one byte of
// kind followed by the image.
const (
	cudaBinCUBIN = 'C'
	cudaBinPTX   = 'P'
)

// errCompileOnly is the error of what a compile-only device cannot do.
var errCompileOnly = errors.New("cuda: a compile-only device (CUDACompiler) has no GPU: it builds programs but cannot allocate, copy or launch")

func newCUDADevice(drv *cuda.Driver, nv *cuda.NVRTC, ordinal int) (*cudaDevice, error) {
	dev, err := drv.Device(ordinal)
	if err != nil {
		return nil, err
	}
	name, err := dev.Name()
	if err != nil {
		return nil, err
	}
	major, minor, err := dev.ComputeCapability()
	if err != nil {
		return nil, err
	}
	mem, err := dev.TotalMem()
	if err != nil {
		return nil, err
	}
	attrs := map[cuda.DeviceAttribute]int{}
	for _, a := range []cuda.DeviceAttribute{cuda.AttrMultiprocessorCount, cuda.AttrMaxThreadsPerBlock,
		cuda.AttrMaxSharedMemoryPerBlock, cuda.AttrMaxSharedMemoryPerBlockOptin} {
		if attrs[a], err = dev.Attribute(a); err != nil {
			return nil, err
		}
	}
	clock, err := dev.Attribute(cuda.AttrClockRate)
	if err != nil {
		clock = 0 // not every driver still reports it
	}
	dmaj, dmin := drv.Version()
	nmaj, nmin := nv.Version()
	cudaVersion := fmt.Sprintf("CUDA %d.%d", dmaj, dmin)
	driverVersion := nvidiaKernelVersion()
	if driverVersion == "" {
		driverVersion = cudaVersion
	}
	info := cudaInfo(major, minor, nmaj, nmin)
	info.Platform = cudaVersion
	info.Name = name
	info.DriverVersion = driverVersion
	info.Runtime = cudaVersion
	info.ComputeUnits = attrs[cuda.AttrMultiprocessorCount]
	info.ClockMHz = clock / 1000
	info.GlobalMem = mem
	info.MaxAlloc = mem
	info.SharedMem = uint64(attrs[cuda.AttrMaxSharedMemoryPerBlock])
	info.MaxSharedMem = max(uint64(attrs[cuda.AttrMaxSharedMemoryPerBlockOptin]), info.SharedMem)
	info.MaxGroup = attrs[cuda.AttrMaxThreadsPerBlock]

	c := &cudaDevice{facts: info, nvrtc: nv, dev: dev}
	if c.target, c.cubin, err = cudaTarget(10*major+minor, nv.SupportedArchs()); err != nil {
		return nil, err
	}
	c.newerCompiler = nmaj > dmaj || nmaj == dmaj && nmin > dmin
	c.ident = cudaIdentity(info, c.target)
	return c, nil
}

// cudaIdentity is what the disk cache's keys name of a CUDA device
// (Device.cacheKey, beside the source and the options): the compiler and
// its target, which alone make the binary. A cache filled ahead on a
// machine without a GPU (CUDACompiler; gpucrypto kernelinfo
// --compute-capability) then serves every GPU of that architecture
// whatever its name and driver; a driver that cannot load what a newer
// NVRTC made fails the load, and Build compiles the program again.
func cudaIdentity(info Info, target string) string {
	return strings.Join([]string{"cuda", info.ComputeCapability, info.Compiler, target}, "\x00")
}

// cudaInfo is the Info common to CUDA devices of a compute capability.
func cudaInfo(major, minor, nvrtcMajor, nvrtcMinor int) Info {
	ptx := os.Getenv(EnvNoPTX) != "1"
	return Info{
		Backend: "cuda", Vendor: "NVIDIA Corporation", Class: VendorNVIDIA, Type: TypeGPU,
		Compiler:          fmt.Sprintf("NVRTC %d.%d", nvrtcMajor, nvrtcMinor),
		ComputeCapability: fmt.Sprintf("%d.%d", major, minor),
		FP64:              true, CarryChains: ptx, Shuffles: ptx,
		UnrollLimit: nvidiaUnrollLimit,
	}
}

// cudaTarget picks NVRTC's architecture for a device of compute capability
// arch (×10): the device's own (a CUBIN) when NVRTC knows it, else PTX of
// the newest virtual architecture not above it, which the driver compiles
// for the device as it loads it.
func cudaTarget(arch int, supported []int) (target string, cubin bool, err error) {
	if len(supported) == 0 { // NVRTC before 11.2 does not say
		return fmt.Sprintf("compute_%d", arch), false, nil
	}
	best := 0
	for _, a := range supported {
		if a == arch {
			return fmt.Sprintf("sm_%d", arch), true, nil
		}
		if a < arch && a > best {
			best = a
		}
	}
	if best == 0 {
		return "", false, fmt.Errorf("cuda: NVRTC supports no architecture at or below sm_%d (it has %v)", arch, supported)
	}
	return fmt.Sprintf("compute_%d", best), false, nil
}

// nvidiaKernelVersion is the version of the NVIDIA kernel driver, such as
// "580.159.04", or "" where /proc does not say.
func nvidiaKernelVersion() string {
	b, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return ""
	}
	return parseNVIDIAVersion(string(b))
}

var nvidiaVersionRE = regexp.MustCompile(`^\d+\.\d+(\.\d+)?$`)

// parseNVIDIAVersion finds the version in the first line of
// /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel
// Module  580.159.04  Thu ...").
func parseNVIDIAVersion(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	for _, f := range strings.Fields(line) {
		if nvidiaVersionRE.MatchString(f) {
			return f
		}
	}
	return ""
}

// CUDACompiler returns a device of the CUDA backend that can only build
// programs, for the given compute capability ("9.0"): with NVRTC but no
// driver or GPU, it checks that every kernel program compiles as CUDA C.
// Its buffers, queues and launches return errors.
func CUDACompiler(computeCapability string) (*Device, error) {
	major, minor, err := parseComputeCapability(computeCapability)
	if err != nil {
		return nil, err
	}
	nv, err := cuda.LoadNVRTC()
	if err != nil {
		return nil, fmt.Errorf("device: CUDACompiler: %w", err)
	}
	c, err := newCUDACompiler(nv, major, minor)
	if err != nil {
		return nil, fmt.Errorf("device: CUDACompiler(%q): %w", computeCapability, err)
	}
	return &Device{Info: c.facts, drv: c, programs: map[string]*programBuild{}}, nil
}

func parseComputeCapability(s string) (major, minor int, err error) {
	a, b, ok := strings.Cut(s, ".")
	major, err1 := strconv.Atoi(a)
	minor, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || major < 1 || major > 99 || minor < 0 || minor > 9 {
		return 0, 0, fmt.Errorf("device: compute capability %q: want MAJOR.MINOR, such as 9.0", s)
	}
	return major, minor, nil
}

// optinSharedKB is the shared memory a block may opt in to, by compute
// capability (×10), for compile-only devices.
var optinSharedKB = map[int]uint64{70: 96, 72: 96, 75: 64, 80: 163, 86: 99, 87: 163, 89: 99, 90: 227, 100: 227, 103: 227, 120: 99}

func newCUDACompiler(nv *cuda.NVRTC, major, minor int) (*cudaDevice, error) {
	nmaj, nmin := nv.Version()
	arch := 10*major + minor
	info := cudaInfo(major, minor, nmaj, nmin)
	info.Platform = fmt.Sprintf("NVRTC %d.%d (compile only)", nmaj, nmin)
	info.Name = fmt.Sprintf("NVRTC sm_%d (compile only)", arch)
	info.Runtime = "none (compile only)"
	info.DriverVersion = "none (compile only)"
	info.GlobalMem = 1 << 40
	info.MaxAlloc = 1 << 40
	info.SharedMem = 48 << 10
	info.MaxSharedMem = 48 << 10
	if kb, ok := optinSharedKB[arch]; ok {
		info.MaxSharedMem = kb << 10
	}
	info.MaxGroup = 1024
	info.FastFP64 = fastFP64(info)
	c := &cudaDevice{facts: info, nvrtc: nv}
	var err error
	if c.target, c.cubin, err = cudaTarget(arch, nv.SupportedArchs()); err != nil {
		return nil, err
	}
	c.ident = cudaIdentity(info, c.target)
	return c, nil
}

func (c *cudaDevice) info() Info                 { return c.facts }
func (c *cudaDevice) identity() string           { return c.ident }
func (c *cudaDevice) setSmallCache(_ smallCache) {}

// cudaErr marks the CUDA statuses that mean a lost device.
func cudaErr(err error) error {
	if cuda.IsLost(err) {
		return markLost(err)
	}
	return err
}

// context is the device's primary context, retained on first use.
func (c *cudaDevice) context() (*cuda.Context, error) {
	if c.dev == nil {
		return nil, errCompileOnly
	}
	ctx, err := c.dev.PrimaryContext()
	return ctx, cudaErr(err)
}

func (c *cudaDevice) compile(src string, options []string) (driverProgram, []byte, error) {
	// C++17 for hexadecimal floating literals (the fp64 kernels' 0x1p52);
	// --fmad=false: CUDA contracts a*b+c into fma unless told not to
	// (OpenCL's FP_CONTRACT OFF pragma means nothing to NVRTC), and the
	// fp64 kernels need every rounding as written
	opts := append(append([]string(nil), options...), "--gpu-architecture="+c.target, "--std=c++17", "--fmad=false")
	out, err := c.nvrtc.Compile(src, cudaSourceName, opts)
	if err != nil {
		return nil, nil, err // an *NVRTCError with the compiler's log
	}
	kind, image := byte(cudaBinPTX), out.PTX
	if c.cubin {
		kind, image = cudaBinCUBIN, out.CUBIN
	}
	if len(image) == 0 {
		return nil, nil, fmt.Errorf("cuda: NVRTC returned no %s", map[byte]string{cudaBinCUBIN: "CUBIN", cudaBinPTX: "PTX"}[kind])
	}
	p, err := c.program(kind, image, out.Log)
	if err != nil {
		return nil, nil, err
	}
	return p, append([]byte{kind}, image...), nil
}

func (c *cudaDevice) load(bin []byte, options []string) (driverProgram, error) {
	if len(bin) < 2 {
		return nil, errors.New("cuda: program binary too short")
	}
	kind, image := bin[0], bin[1:]
	switch {
	case kind == cudaBinCUBIN && isELF(image):
	case kind == cudaBinPTX && !isELF(image):
	default:
		return nil, errors.New("cuda: not a program binary of this driver")
	}
	return c.program(kind, image, "")
}

func isELF(b []byte) bool { return bytes.HasPrefix(b, []byte("\x7fELF")) }

// program loads the image (a real device) or keeps it (compile only).
func (c *cudaDevice) program(kind byte, image []byte, log string) (*cudaProgram, error) {
	p := &cudaProgram{dev: c, kind: kind, image: image, buildLog: log}
	if c.dev == nil {
		return p, nil
	}
	ctx, err := c.context()
	if err != nil {
		return nil, err
	}
	img := image
	if kind == cudaBinPTX {
		img = append(image[:len(image):len(image)], 0)
	}
	mod, err := ctx.LoadModule(img)
	if err != nil {
		if c.newerCompiler && (cuda.HasStatus(err, cuda.StatusUnsupportedPTXVersion) ||
			cuda.HasStatus(err, cuda.StatusNoBinaryForGPU) || cuda.HasStatus(err, cuda.StatusInvalidImage)) {
			err = fmt.Errorf("%w (NVRTC, %s, is newer than this driver's %s: update the driver, or set %s to an NVRTC no newer than it)",
				err, c.facts.Compiler, c.facts.Runtime, cuda.EnvNVRTCLibrary)
		}
		return nil, cudaErr(err)
	}
	p.mod = mod
	if jit := mod.Log(); jit != "" {
		if p.buildLog != "" {
			p.buildLog += "\n"
		}
		p.buildLog += jit
	}
	p.image = nil // kept only for compile-only kernel lookups
	return p, nil
}

type cudaProgram struct {
	dev      *cudaDevice
	kind     byte
	image    []byte       // compile only: the CUBIN or PTX, to find kernels in
	mod      *cuda.Module // nil: compile only
	buildLog string
}

func (p *cudaProgram) log() string { return p.buildLog }

func (p *cudaProgram) release() error {
	if p.mod == nil {
		return nil
	}
	return cudaErr(p.mod.Unload())
}

func (p *cudaProgram) kernel(name string) (driverKernel, error) {
	if p.mod == nil {
		if !imageHasKernel(p.kind, p.image, name) {
			return nil, fmt.Errorf("cuda: no kernel %q in the program", name)
		}
		return &cudaKernel{dev: p.dev, name: name}, nil
	}
	fn, err := p.mod.Function(name)
	if err != nil {
		return nil, cudaErr(err)
	}
	return &cudaKernel{dev: p.dev, fn: fn, name: name, dynShared: -1}, nil
}

// imageHasKernel reports whether a CUBIN (a function symbol) or PTX (an
// .entry) defines the kernel.
func imageHasKernel(kind byte, image []byte, name string) bool {
	if name == "" {
		return false
	}
	if kind == cudaBinCUBIN {
		if len(image) < 24 {
			return false
		}
		// A CUBIN's header holds NVIDIA's ABI version where ELF has
		// e_version, which debug/elf insists be 1: read a copy with it so.
		image = bytes.Clone(image)
		binary.LittleEndian.PutUint32(image[20:], uint32(elf.EV_CURRENT))
		f, err := elf.NewFile(bytes.NewReader(image))
		if err != nil {
			return false
		}
		syms, err := f.Symbols()
		if err != nil {
			return false
		}
		for _, s := range syms {
			if s.Name == name && elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF {
				return true
			}
		}
		return false
	}
	re := regexp.MustCompile(`\.entry\s+` + regexp.QuoteMeta(name) + `\s*\(`)
	return re.Match(image)
}

type cudaKernel struct {
	dev  *cudaDevice
	fn   *cuda.Function // nil: compile only
	name string

	mu        sync.Mutex
	dynShared int // the dynamic shared memory the kernel may launch with (-1: not asked yet)
}

func (k *cudaKernel) info() (KernelInfo, error) {
	if k.fn == nil {
		return KernelInfo{MaxGroup: k.dev.facts.MaxGroup}, nil
	}
	var v [4]int
	for i, a := range []cuda.FunctionAttribute{cuda.FuncMaxThreadsPerBlock, cuda.FuncNumRegs,
		cuda.FuncLocalSizeBytes, cuda.FuncSharedSizeBytes} {
		var err error
		if v[i], err = k.fn.Attribute(a); err != nil {
			return KernelInfo{}, cudaErr(err)
		}
	}
	return KernelInfo{MaxGroup: v[0], Registers: v[1], PrivateBytes: uint64(v[2]), SharedBytes: uint64(v[3])}, nil
}

// allowShared lets the kernel launch with n bytes of dynamic shared
// memory: beyond the default (48 KB less its static shared memory) the
// kernel must opt in, once per larger size.
func (k *cudaKernel) allowShared(n int) error {
	if n == 0 {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dynShared < 0 {
		v, err := k.fn.Attribute(cuda.FuncMaxDynamicSharedSizeBytes)
		if err != nil {
			return cudaErr(err)
		}
		k.dynShared = v
	}
	if n <= k.dynShared {
		return nil
	}
	if err := k.fn.SetAttribute(cuda.FuncMaxDynamicSharedSizeBytes, n); err != nil {
		return fmt.Errorf("%d bytes of dynamic shared memory: %w", n, cudaErr(err))
	}
	k.dynShared = n
	return nil
}

// cudaLocalAlign aligns each local-memory argument's offset in the block's
// dynamic shared memory.
const cudaLocalAlign = 16

// cudaArgs turns launch arguments into cuLaunchKernel's: a buffer is its
// device address; a local-memory argument is a u32 byte offset into the
// block's dynamic shared memory (kernels/dialect.h's LOCAL_ARG and
// LOCAL_BIND in CUDA), the offsets a running sum aligned to 16 bytes; a
// scalar its 4 or 8 bytes. It returns the arguments and the dynamic
// shared memory to launch with.
func cudaArgs(args []kernelArg) ([]any, int, error) {
	list := make([]any, len(args))
	shared := 0
	for i := range args {
		a := &args[i]
		switch {
		case a.buffer != nil:
			b, ok := a.buffer.(*cudaBuffer)
			if !ok || b == nil || b.mem == nil {
				return nil, 0, fmt.Errorf("argument %d: not a buffer of the CUDA driver", i)
			}
			list[i] = b.mem
		case a.local > 0:
			shared = (shared + cudaLocalAlign - 1) &^ (cudaLocalAlign - 1)
			if shared > math.MaxUint32-a.local {
				return nil, 0, fmt.Errorf("argument %d: local memory too large", i)
			}
			list[i] = uint32(shared)
			shared += a.local
		case a.width == 4 || a.width == 8:
			list[i] = append([]byte(nil), a.scalar[:a.width]...)
		default:
			return nil, 0, fmt.Errorf("argument %d: scalar of %d bytes", i, a.width)
		}
	}
	return list, shared, nil
}

func (c *cudaDevice) newBuffer(size int) (driverBuffer, error) {
	ctx, err := c.context()
	if err != nil {
		return nil, err
	}
	m, err := ctx.MemAlloc(size)
	if err != nil {
		return nil, cudaErr(err)
	}
	return &cudaBuffer{mem: m}, nil
}

type cudaBuffer struct{ mem *cuda.Memory }

func (b *cudaBuffer) size() int      { return b.mem.Size() }
func (b *cudaBuffer) release() error { return cudaErr(b.mem.Free()) }

func (c *cudaDevice) hostAlloc(size int) ([]byte, func() error, error) {
	ctx, err := c.context()
	if err != nil {
		return nil, nil, err
	}
	h, err := ctx.MemHostAlloc(size, cuda.HostAllocPortable)
	if err != nil {
		return nil, nil, cudaErr(err)
	}
	return h.Bytes(), func() error { return cudaErr(h.Free()) }, nil
}

func (c *cudaDevice) defaultQueue() (driverQueue, error) {
	c.queueOnce.Do(func() {
		q, err := c.newStreamQueue()
		if err != nil {
			c.queueErr = err
			return
		}
		q.isDefault = true
		c.queue = q
	})
	if c.queueErr != nil {
		return nil, c.queueErr
	}
	return c.queue, nil
}

func (c *cudaDevice) newQueue() (driverQueue, error) { return c.newStreamQueue() }

func (c *cudaDevice) newStreamQueue() (*cudaQueue, error) {
	ctx, err := c.context()
	if err != nil {
		return nil, err
	}
	s, err := ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return nil, cudaErr(err)
	}
	return &cudaQueue{dev: c, ctx: ctx, s: s}, nil
}

// cudaQueue is a stream. Every command is bracketed by an event pair
// recorded on the stream, for Wait and Duration.
type cudaQueue struct {
	dev       *cudaDevice
	ctx       *cuda.Context
	s         *cuda.Stream
	isDefault bool
	mu        sync.Mutex // keeps a command alone between its events
}

// command enqueues op between a start and an end event.
func (q *cudaQueue) command(op func(s *cuda.Stream) error) (driverEvent, error) {
	start, err := q.ctx.NewEvent(cuda.EventDefault)
	if err != nil {
		return nil, cudaErr(err)
	}
	// Waits end on the end event: a blocking-sync one sleeps instead of
	// spinning a core, which leaves that core to the host's own work
	// (the Servers' packing and answering); Commands.wait polls it first
	// where batches are short (query).
	end, err := q.ctx.NewEvent(cuda.EventBlockingSync)
	if err != nil {
		start.Destroy()
		return nil, cudaErr(err)
	}
	err = q.ctx.Do(func() error {
		q.mu.Lock()
		defer q.mu.Unlock()
		if err := q.s.Record(start); err != nil {
			return err
		}
		err := op(q.s)
		if err == nil {
			err = q.s.Record(end)
		}
		if err != nil {
			// op may be enqueued (its end event failed, or it failed
			// half-way): no event will pin its host memory, so the
			// stream must be done with it before the caller may free
			// or reuse that memory
			return errors.Join(err, q.s.Synchronize())
		}
		return nil
	})
	if err != nil {
		start.Destroy()
		end.Destroy()
		return nil, cudaErr(err)
	}
	return &cudaEvent{start: start, end: end}, nil
}

func (q *cudaQueue) launch(k driverKernel, global, local int, args []kernelArg) (driverEvent, error) {
	ck, ok := k.(*cudaKernel)
	if !ok || ck == nil {
		return nil, errors.New("cuda: launch of a kernel of another driver")
	}
	if ck.fn == nil {
		return nil, errCompileOnly
	}
	if local == 0 {
		local = 128
	}
	if global <= 0 || local <= 0 || local > q.dev.facts.MaxGroup {
		return nil, fmt.Errorf("cuda: launch of %d threads in blocks of %d (at most %d)", global, local, q.dev.facts.MaxGroup)
	}
	blocks := global/local + min(global%local, 1)
	if blocks > math.MaxInt32 {
		return nil, fmt.Errorf("cuda: launch of %d blocks: at most %d", blocks, math.MaxInt32)
	}
	params, shared, err := cudaArgs(args)
	if err != nil {
		return nil, err
	}
	if uint64(shared) > q.dev.facts.MaxSharedMem {
		return nil, fmt.Errorf("cuda: %d bytes of local memory (aligned to %d each): %s allows %d", shared, cudaLocalAlign, q.dev.facts.Name, q.dev.facts.MaxSharedMem)
	}
	if err := ck.allowShared(shared); err != nil {
		return nil, err
	}
	return q.command(func(s *cuda.Stream) error {
		return s.Launch(ck.fn, cuda.Dim3{X: uint32(blocks)}, cuda.Dim3{X: uint32(local)}, shared, params...)
	})
}

func cudaMem(b driverBuffer) (*cuda.Memory, error) {
	cb, ok := b.(*cudaBuffer)
	if !ok || cb == nil || cb.mem == nil {
		return nil, errors.New("cuda: not a buffer of the CUDA driver")
	}
	return cb.mem, nil
}

func (q *cudaQueue) write(b driverBuffer, off int, host []byte) (driverEvent, error) {
	m, err := cudaMem(b)
	if err != nil {
		return nil, err
	}
	return q.command(func(s *cuda.Stream) error { return s.CopyHtoD(m, off, host) })
}

func (q *cudaQueue) read(b driverBuffer, off int, host []byte) (driverEvent, error) {
	m, err := cudaMem(b)
	if err != nil {
		return nil, err
	}
	return q.command(func(s *cuda.Stream) error { return s.CopyDtoH(host, m, off) })
}

func (q *cudaQueue) fill(b driverBuffer, pattern []byte, off, n int) (driverEvent, error) {
	m, err := cudaMem(b)
	if err != nil {
		return nil, err
	}
	p := len(pattern)
	if (p != 1 && p != 2 && p != 4) || n <= 0 || n%p != 0 || off%p != 0 {
		return nil, fmt.Errorf("cuda: fill of %d bytes at %d with a pattern of %d bytes", n, off, p)
	}
	return q.command(func(s *cuda.Stream) error {
		switch p {
		case 1:
			return s.MemsetD8(m, off, pattern[0], n)
		case 2:
			return s.MemsetD16(m, off, binary.LittleEndian.Uint16(pattern), n/2)
		default:
			return s.MemsetD32(m, off, binary.LittleEndian.Uint32(pattern), n/4)
		}
	})
}

func (q *cudaQueue) waitFor(events []driverEvent) error {
	for _, e := range events {
		ce, ok := e.(*cudaEvent)
		if !ok || ce == nil || ce.end == nil {
			return errors.New("cuda: wait for an event that is not the CUDA driver's, or released")
		}
		if err := q.s.WaitEvent(ce.end); err != nil {
			return cudaErr(err)
		}
	}
	return nil
}

func (q *cudaQueue) finish() error { return cudaErr(q.s.Synchronize()) }

func (q *cudaQueue) release() error {
	if q.isDefault {
		return nil // lives as long as the device
	}
	return cudaErr(q.s.Destroy())
}

// cudaEvent is a command's pair of events: recorded before and after it
// on its stream.
type cudaEvent struct {
	mu         sync.Mutex
	start, end *cuda.Event
}

func (e *cudaEvent) events() (*cuda.Event, *cuda.Event, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.end == nil {
		return nil, nil, errors.New("cuda: event already released")
	}
	return e.start, e.end, nil
}

// wait sleeps until the command's end (its end event is a blocking-sync
// one: no core spins); Commands.wait polls first (query) where a batch is
// short.
func (e *cudaEvent) wait() error {
	_, end, err := e.events()
	if err != nil {
		return err
	}
	return cudaErr(end.Synchronize())
}

var _ pollingEvent = (*cudaEvent)(nil)

// query reports whether the command has completed, without waiting.
func (e *cudaEvent) query() (bool, error) {
	_, end, err := e.events()
	if err != nil {
		return false, err
	}
	done, err := end.Query()
	return done, cudaErr(err)
}

func (e *cudaEvent) duration() (time.Duration, error) {
	start, end, err := e.events()
	if err != nil {
		return 0, err
	}
	d, err := cuda.ElapsedTime(start, end)
	return d, cudaErr(err)
}

func (e *cudaEvent) release() error {
	e.mu.Lock()
	start, end := e.start, e.end
	e.start, e.end = nil, nil
	e.mu.Unlock()
	if end == nil {
		return nil
	}
	return cudaErr(errors.Join(start.Destroy(), end.Destroy()))
}
