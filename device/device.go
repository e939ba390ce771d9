// Package device is gpucrypto's device layer: it finds GPUs (and CPUs
// through OpenCL), builds programs from kernel source, runs kernels on
// buffers, copies memory and keeps pools of device buffers, through one
// API whatever the driver underneath. The crypto packages talk to devices
// only through it.
//
// Two drivers: OpenCL (package cl: any vendor, PoCL on CPUs) always, and
// CUDA (package cuda: the driver API and NVRTC) when built with the tag
// cuda. Both load their runtime libraries at run time, so the module
// builds anywhere with CGO_ENABLED=0 and finds no device where there is
// none, saying why. With the tag, NVIDIA GPUs are driven through CUDA by
// default; GPUCRYPTO_BACKEND=opencl or =cuda chooses.
//
// The package knows no cryptography: kernel source comes from its callers
// (package kernels), with device facts passed to the compiler as -D
// definitions (GPUCRYPTO_VENDOR_<CLASS>, GPUCRYPTO_HAS_FP64,
// GPUCRYPTO_HAS_PTX).
package device

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Environment variables that choose devices.
const (
	EnvDevice  = "GPUCRYPTO_DEVICE"  // an index into Devices() or a name substring
	EnvBackend = "GPUCRYPTO_BACKEND" // "opencl" or "cuda": use that driver only
	EnvNoPTX   = "GPUCRYPTO_NO_PTX"  // "1": portable limb code even where inline PTX works
)

// Device is one device of one driver. It is safe for concurrent use by
// many goroutines.
type Device struct {
	Info
	drv driverDevice

	queueOnce sync.Once
	queue     *Queue
	queueErr  error

	progMu   sync.Mutex
	programs map[string]*programBuild // programs built or being built, by Source.key
}

var (
	devOnce    sync.Once
	devList    []*Device
	devErr     error
	driverErrs []error // of drivers that failed while others found devices
)

// drivers are the compiled-in drivers, in order of preference for the
// same hardware (cuda.go puts CUDA first).
var drivers = []driver{openclDriver{}}

// Backends lists the names of the compiled-in drivers.
func Backends() []string {
	var names []string
	for _, d := range drivers {
		names = append(names, d.name())
	}
	return names
}

// Devices returns every usable device, enumerated once per process: those
// of the driver named by GPUCRYPTO_BACKEND, or of every compiled-in driver,
// except that NVIDIA GPUs found through CUDA are not listed again through
// OpenCL. With no device it returns an error matching ErrNoDevice that
// says why for each driver.
func Devices() ([]*Device, error) {
	devOnce.Do(func() { devList, driverErrs, devErr = enumerate(os.Getenv(EnvBackend)) })
	return devList, devErr
}

// DriverErrors says why drivers found no device when others did (a
// binary built with -tags cuda on a machine without NVRTC, say): their
// devices are missing from Devices, which does not fail for them.
func DriverErrors() []error {
	Devices()
	return driverErrs
}

func enumerate(backend string) ([]*Device, []error, error) {
	if backend != "" && !slices.Contains(Backends(), backend) {
		why := ""
		if backend == "cuda" {
			why = " (this binary was built without the build tag cuda)"
		}
		return nil, nil, &noDevice{fmt.Errorf("device: %s=%q: no such backend%s; have %s", EnvBackend, backend, why, strings.Join(Backends(), ", "))}
	}
	cache := openCache()
	var out []*Device
	var errs []error
	cudaGPUs := false
	for _, drv := range drivers {
		if backend != "" && drv.name() != backend {
			continue
		}
		found, err := drv.devices()
		if err != nil {
			errs = append(errs, err)
		}
		for _, dd := range found {
			if cache != nil {
				dd.setSmallCache(cache)
			}
			info := dd.info()
			info.FastFP64 = fastFP64(info)
			if info.Backend == "opencl" && info.Class == VendorNVIDIA && cudaGPUs {
				continue // the same GPU, driven through CUDA
			}
			if info.Backend == "cuda" {
				cudaGPUs = true
			}
			info.Index = len(out)
			out = append(out, &Device{Info: info, drv: dd, programs: map[string]*programBuild{}})
		}
	}
	if len(out) == 0 {
		if len(errs) == 0 {
			errs = append(errs, errors.New("device: no device found"))
		}
		return nil, nil, &noDevice{errors.Join(errs...)}
	}
	return out, errs, nil
}

// Default returns the device to compute on: the one the packages' Auto
// functions choose (Choose), which is the device GPUCRYPTO_DEVICE names,
// of any type, else the best GPU or accelerator. It is the device of
// every package's NewEngine(nil). Where Choose takes the CPU engine
// instead (no GPU, only CPU devices such as PoCL, no driver), Default
// returns an error matching ErrNoDevice that says why: callers then use
// the package's CPUEngine or Auto, or name a device. Any is the device
// of tests and tools that run kernels on a CPU device too.
func Default() (*Device, error) {
	c, err := choose()
	if err != nil {
		return nil, err
	}
	return c.Device, nil
}

// Any returns the device GPUCRYPTO_DEVICE names, else the best device of
// any type, CPU devices included (Best): the device of tests and tools
// that run kernels wherever kernels run, PoCL on a machine without a GPU
// among them (the packages' tests, gpucrypto selftest). It is not the
// device to compute on: the packages' CPU engines outrun a CPU device on
// the same cores, which is why Default and Auto pass it over.
func Any() (*Device, error) {
	if spec := os.Getenv(EnvDevice); spec != "" {
		return selectEnv(spec)
	}
	devs, err := Devices()
	if err != nil {
		return nil, err
	}
	return Best(devs), nil
}

// selectEnv is Select of GPUCRYPTO_DEVICE's value, its error naming the
// variable.
func selectEnv(spec string) (*Device, error) {
	d, err := Select(spec)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %w", EnvDevice, spec, err)
	}
	return d, nil
}

// Best picks the strongest device of a list: GPUs before others, then by
// compute units × clock, then the earlier (CUDA before OpenCL). It
// returns nil for an empty list.
func Best(devs []*Device) *Device {
	if len(devs) == 0 {
		return nil
	}
	ranked := append([]*Device(nil), devs...)
	sort.SliceStable(ranked, func(i, j int) bool {
		gi, gj := ranked[i].Type == TypeGPU, ranked[j].Type == TypeGPU
		if gi != gj {
			return gi
		}
		return ranked[i].ComputeUnits*ranked[i].ClockMHz > ranked[j].ComputeUnits*ranked[j].ClockMHz
	})
	return ranked[0]
}

// Select finds a device by index ("1") or by a case-insensitive substring
// of its backend, platform, name, vendor, class or type ("h100", "nvidia",
// "cuda", "pocl", "gpu"); of several matches, the Best.
func Select(spec string) (*Device, error) {
	devs, err := Devices()
	if err != nil {
		return nil, err
	}
	if i, e := strconv.Atoi(spec); e == nil {
		if i < 0 || i >= len(devs) {
			return nil, fmt.Errorf("device: index %d out of range (have %d devices)", i, len(devs))
		}
		return devs[i], nil
	}
	want := strings.ToLower(spec)
	var match []*Device
	for _, d := range devs {
		if strings.Contains(d.selectName(), want) {
			match = append(match, d)
		}
	}
	if len(match) == 0 {
		var names []string
		for _, d := range devs {
			names = append(names, d.String())
		}
		return nil, fmt.Errorf("device: no device matches %q; have: %s", spec, strings.Join(names, "; "))
	}
	return Best(match), nil
}

// selectName is what Select matches against.
func (d *Device) selectName() string {
	s := strings.ToLower(strings.Join([]string{d.Backend, d.Platform, d.Name, d.Vendor, d.Class.String(), d.TypeName()}, " / "))
	if strings.Contains(s, "portable computing language") {
		s += " / pocl"
	}
	return s
}

// Queue returns the device's default queue: the one Kernel.Launch and the
// Buffer methods use.
func (d *Device) Queue() (*Queue, error) {
	d.queueOnce.Do(func() {
		q, err := d.drv.defaultQueue()
		if err != nil {
			d.queueErr = fmt.Errorf("%s: %w", d.Name, err)
			return
		}
		d.queue = &Queue{dev: d, q: q}
	})
	return d.queue, d.queueErr
}

// NewQueue makes another queue (an OpenCL command queue, a CUDA stream):
// commands of different queues may overlap, those of one queue run in
// order.
func (d *Device) NewQueue() (*Queue, error) {
	q, err := d.drv.newQueue()
	if err != nil {
		return nil, err
	}
	return &Queue{dev: d, q: q}, nil
}

// Finish waits until every command of the default queue has completed.
func (d *Device) Finish() error {
	q, err := d.Queue()
	if err != nil {
		return err
	}
	return q.Finish()
}

// HostMemory is host memory that copies to and from the device reach
// fastest: pinned (page-locked) where the driver has it (CUDA), ordinary
// memory elsewhere. Free releases it; the bytes must not be used after.
type HostMemory struct {
	Bytes []byte
	free  func() error
	once  sync.Once
}

// Free releases the memory (zeroed first: it may have held secrets).
// Memory that a failed copy may still use (stranded: see Event.Wait) is
// left allocated, and Free says so.
func (h *HostMemory) Free() error {
	if stranded.holds(h.Bytes) {
		return errStrandedHost
	}
	var err error
	h.once.Do(func() {
		if h.free != nil {
			pinned.remove(h.Bytes)
		}
		clear(h.Bytes)
		h.Bytes = nil
		if h.free != nil {
			err = h.free()
		}
	})
	return err
}

// HostAlloc returns size bytes of host memory for fast copies.
func (d *Device) HostAlloc(size int) (*HostMemory, error) {
	if size <= 0 {
		return nil, fmt.Errorf("device: HostAlloc: size %d: want at least one byte", size)
	}
	b, free, err := d.drv.hostAlloc(size)
	if err != nil {
		return nil, err
	}
	if free != nil { // driver memory: pinned
		pinned.add(b)
	}
	return &HostMemory{Bytes: b, free: free}, nil
}

// Pinned reports whether b lies within pinned memory from HostAlloc (of
// any device), which copies reach without staging: callers may copy
// from and to it directly instead of through buffers of their own.
func Pinned(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	return pinned.contains(b)
}

// pinned is the registry of the pinned allocations alive.
var pinned pinnedRanges

type pinnedRanges struct {
	mu     sync.Mutex
	ranges map[uintptr]uintptr // start → end
}

func span(b []byte) (uintptr, uintptr) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return start, start + uintptr(len(b))
}

func (p *pinnedRanges) add(b []byte) {
	start, end := span(b)
	p.mu.Lock()
	if p.ranges == nil {
		p.ranges = map[uintptr]uintptr{}
	}
	p.ranges[start] = end
	p.mu.Unlock()
}

func (p *pinnedRanges) remove(b []byte) {
	start, _ := span(b)
	p.mu.Lock()
	delete(p.ranges, start)
	p.mu.Unlock()
}

func (p *pinnedRanges) contains(b []byte) bool {
	start, end := span(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	for s, e := range p.ranges {
		if start >= s && end <= e {
			return true
		}
	}
	return false
}

// Defines are the device facts given to every program as -D definitions.
func (d *Device) Defines() map[string]string {
	m := map[string]string{"GPUCRYPTO_VENDOR_" + strings.ToUpper(d.Class.String()): "1"}
	if d.FP64 {
		m["GPUCRYPTO_HAS_FP64"] = "1"
	}
	if d.CarryChains {
		m["GPUCRYPTO_HAS_PTX"] = "1"
	}
	if d.Backend == "opencl" {
		m["GPUCRYPTO_OPENCL"] = "1"
	}
	return m
}
