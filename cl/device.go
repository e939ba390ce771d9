package cl

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// Vendor classes, used to pick code paths.
type Vendor int

const (
	VendorOther Vendor = iota
	VendorNVIDIA
	VendorAMD
	VendorIntel
	VendorCPU // any CPU device (PoCL, Intel CPU runtime, ...)
)

func (v Vendor) String() string {
	return [...]string{"other", "nvidia", "amd", "intel", "cpu"}[v]
}

// Device types (CL_DEVICE_TYPE_*).
const (
	TypeCPU         = 1 << 1
	TypeGPU         = 1 << 2
	TypeAccelerator = 1 << 3
)

// Info describes one device as the driver reports it, plus derived features.
type Info struct {
	Index           int    // position in Devices()
	Platform        string // platform name
	PlatformVersion string
	Name            string
	Vendor          string
	DriverVersion   string
	Version         string // "OpenCL 3.0 CUDA"
	CVersion        string // OpenCL C version
	Type            uint64
	ComputeUnits    uint32
	ClockMHz        uint32
	GlobalMem       uint64
	MaxAlloc        uint64
	LocalMem        uint64
	MaxWorkGroup    int
	Extensions      []string
	Class           Vendor
	FP64            bool
	Subgroups       bool // cl_khr_subgroups / cl_intel_subgroups / shuffle
	ComputeCap      string
}

// TypeName is "GPU", "CPU", "ACCEL" or "OTHER".
func (i *Info) TypeName() string {
	switch {
	case i.Type&TypeGPU != 0:
		return "GPU"
	case i.Type&TypeCPU != 0:
		return "CPU"
	case i.Type&TypeAccelerator != 0:
		return "ACCEL"
	}
	return "OTHER"
}

// HasExtension reports whether the device lists ext.
func (i *Info) HasExtension(ext string) bool {
	for _, e := range i.Extensions {
		if e == ext {
			return true
		}
	}
	return false
}

// Device is one OpenCL device. Its context and queue are created on first
// use. A Device is safe for concurrent use by many goroutines.
type Device struct {
	Info
	api      *api
	id       uintptr
	platform uintptr

	openOnce sync.Once
	openErr  error
	ctx      uintptr

	queue0 *Queue // the default queue, made with the context
}

// String names the device for messages.
func (d *Device) String() string {
	return fmt.Sprintf("#%d %s (%s, %s)", d.Index, d.Name, d.Platform, d.TypeName())
}

var (
	devOnce sync.Once
	devList []*Device
	devErr  error
)

// Devices returns every device of every OpenCL platform, enumerated once per
// process. With no OpenCL library it returns no devices and an error that
// matches ErrNoRuntime.
func Devices() ([]*Device, error) {
	devOnce.Do(func() { devList, devErr = enumerate() })
	return devList, devErr
}

func enumerate() ([]*Device, error) {
	a, err := load()
	if err != nil {
		return nil, err
	}
	var n uint32
	st := a.GetPlatformIDs(0, nil, &n)
	if st == -1001 || (st == Success && n == 0) {
		return nil, &RuntimeError{Library: a.path, Reason: noPlatformReason()}
	}
	if err := check("clGetPlatformIDs", st); err != nil {
		return nil, err
	}
	plats := make([]uintptr, n)
	if err := check("clGetPlatformIDs", a.GetPlatformIDs(n, &plats[0], nil)); err != nil {
		return nil, err
	}
	var out []*Device
	var errs []error
	for _, p := range plats {
		pname, _ := platformString(a, p, 0x0902)
		pver, _ := platformString(a, p, 0x0901)
		var nd uint32
		st := a.GetDeviceIDs(p, 0xFFFFFFFF, 0, nil, &nd)
		if st == DeviceNotFound || nd == 0 {
			continue
		}
		if err := check("clGetDeviceIDs", st); err != nil {
			errs = append(errs, fmt.Errorf("platform %q: %w", pname, err))
			continue
		}
		ids := make([]uintptr, nd)
		if err := check("clGetDeviceIDs", a.GetDeviceIDs(p, 0xFFFFFFFF, nd, &ids[0], nil)); err != nil {
			errs = append(errs, fmt.Errorf("platform %q: %w", pname, err))
			continue
		}
		for _, id := range ids {
			d := &Device{api: a, id: id, platform: p}
			d.Platform, d.PlatformVersion = pname, pver
			if err := d.query(); err != nil {
				errs = append(errs, fmt.Errorf("platform %q: %w", pname, err))
				continue
			}
			d.Index = len(out)
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		return nil, &RuntimeError{Library: a.path, Reason: "OpenCL platforms found but no devices"}
	}
	return out, nil
}

func platformString(a *api, p uintptr, param uint32) (string, error) {
	var size uintptr
	if err := check("clGetPlatformInfo", a.GetPlatformInfo(p, param, 0, nil, &size)); err != nil {
		return "", err
	}
	if size == 0 {
		return "", nil
	}
	buf := make([]byte, size)
	if err := check("clGetPlatformInfo", a.GetPlatformInfo(p, param, size, unsafe.Pointer(&buf[0]), nil)); err != nil {
		return "", err
	}
	return cString(buf), nil
}

func cString(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

func (d *Device) infoString(param uint32) (string, error) {
	var size uintptr
	if err := check("clGetDeviceInfo", d.api.GetDeviceInfo(d.id, param, 0, nil, &size)); err != nil {
		return "", err
	}
	if size == 0 {
		return "", nil
	}
	buf := make([]byte, size)
	if err := check("clGetDeviceInfo", d.api.GetDeviceInfo(d.id, param, size, unsafe.Pointer(&buf[0]), nil)); err != nil {
		return "", err
	}
	return cString(buf), nil
}

func (d *Device) infoUint(param uint32, size uintptr) (uint64, error) {
	var v uint64
	err := check("clGetDeviceInfo", d.api.GetDeviceInfo(d.id, param, size, unsafe.Pointer(&v), nil))
	return v, err
}

func (d *Device) query() error {
	var err error
	str := func(p uint32) string {
		s, e := d.infoString(p)
		if e != nil && err == nil {
			err = e
		}
		return s
	}
	num := func(p uint32, size uintptr) uint64 {
		v, e := d.infoUint(p, size)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	d.Name = str(0x102B)
	d.Vendor = str(0x102C)
	d.DriverVersion = str(0x102D)
	d.Version = str(0x102F)
	d.CVersion = str(0x103D)
	d.Extensions = strings.Fields(str(0x1030))
	d.Type = num(0x1000, 8)
	d.ComputeUnits = uint32(num(0x1002, 4))
	d.ClockMHz = uint32(num(0x100C, 4))
	d.GlobalMem = num(0x101F, 8)
	d.MaxAlloc = num(0x1010, 8)
	d.LocalMem = num(0x1023, 8)
	d.MaxWorkGroup = int(num(0x1004, unsafe.Sizeof(uintptr(0))))
	if err != nil {
		return err
	}
	vendor := strings.ToLower(d.Vendor + " " + d.Platform)
	switch {
	case d.Type&TypeCPU != 0:
		d.Class = VendorCPU
	case strings.Contains(vendor, "nvidia"):
		d.Class = VendorNVIDIA
	case strings.Contains(vendor, "advanced micro devices") || strings.Contains(vendor, "amd"):
		d.Class = VendorAMD
	case strings.Contains(vendor, "intel"):
		d.Class = VendorIntel
	}
	d.FP64 = d.HasExtension("cl_khr_fp64")
	if !d.FP64 {
		cfg, e := d.infoUint(0x1032, 8) // CL_DEVICE_DOUBLE_FP_CONFIG (1.2+)
		d.FP64 = e == nil && cfg != 0
	}
	d.Subgroups = d.HasExtension("cl_khr_subgroups") || d.HasExtension("cl_intel_subgroups") ||
		d.HasExtension("cl_khr_subgroup_shuffle") || d.Class == VendorNVIDIA
	if d.Class == VendorNVIDIA && d.HasExtension("cl_nv_device_attribute_query") {
		maj, e1 := d.infoUint(0x4000, 4)
		min, e2 := d.infoUint(0x4001, 4)
		if e1 == nil && e2 == nil {
			d.ComputeCap = fmt.Sprintf("%d.%d", maj, min)
		}
	}
	return nil
}

// open creates the device's context and profiling in-order queue once.
func (d *Device) open() error {
	d.openOnce.Do(func() {
		var st int32
		id := d.id
		d.ctx = d.api.CreateContext(nil, 1, &id, 0, 0, &st)
		if err := check("clCreateContext", st); err != nil {
			d.openErr = fmt.Errorf("%s: %w", d.Name, err)
			return
		}
		if d.queue0, d.openErr = d.newQueue(); d.openErr != nil {
			d.api.ReleaseContext(d.ctx)
			d.ctx = 0
			d.openErr = fmt.Errorf("%s: %w", d.Name, d.openErr)
		}
	})
	return d.openErr
}
