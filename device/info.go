package device

import (
	"fmt"
	"slices"
	"strings"
)

// Type is the kind of a device.
type Type int

const (
	TypeOther Type = iota
	TypeGPU
	TypeCPU
	TypeAccelerator
)

func (t Type) String() string {
	return [...]string{"OTHER", "GPU", "CPU", "ACCEL"}[t]
}

// Vendor is the vendor class of a device, which picks code paths.
type Vendor int

const (
	VendorOther Vendor = iota
	VendorNVIDIA
	VendorAMD
	VendorIntel
	VendorCPU // any CPU device (PoCL, Intel's CPU runtime, ...)
)

func (v Vendor) String() string {
	return [...]string{"other", "nvidia", "amd", "intel", "cpu"}[v]
}

// Info is what a driver reports about a device, as facts and capabilities
// that kernels and the code choosing them may rely on.
type Info struct {
	Index    int    // position in Devices()
	Backend  string // the driver: "opencl" or "cuda"
	Platform string // the OpenCL platform, or "CUDA" and the driver's CUDA version
	Name     string
	Vendor   string // as the driver spells it
	Class    Vendor
	Type     Type
	// DriverVersion is the driver's version; Runtime the API's ("OpenCL
	// 3.0 CUDA", "CUDA 13.0") and Compiler the kernel compiler's
	// ("OpenCL C 1.2", "NVRTC 13.0").
	DriverVersion, Runtime, Compiler string
	// ComputeCapability is NVIDIA's "9.0" (empty elsewhere).
	ComputeCapability string
	ComputeUnits      int // streaming multiprocessors, compute units or cores
	ClockMHz          int
	GlobalMem         uint64 // bytes
	MaxAlloc          uint64 // the largest single buffer
	// SharedMem is the local (shared) memory a work-group gets by default;
	// MaxSharedMem what one may ask for (larger on CUDA, which lets a
	// kernel opt in beyond 48 KB; equal elsewhere).
	SharedMem, MaxSharedMem uint64
	MaxGroup                int  // the largest work-group (thread block)
	FP64                    bool // double precision
	// FastFP64: double precision at half the single-precision rate or
	// better (NVIDIA's data-centre GPUs, AMD's CDNA), where the
	// floating-point Montgomery kernels beat the integer ones. Consumer GPUs
	// run fp64 at 1/32 or 1/64 of that and keep the integer forms.
	FastFP64 bool
	// CarryChains: the compiler accepts NVIDIA's inline PTX, so the limb
	// layer uses add.cc/addc/madc carry chains (kernels/limb_ptx.h).
	// GPUCRYPTO_NO_PTX=1 turns it off, for testing the portable path.
	CarryChains bool
	// Shuffles: lanes of a warp exchange registers (shfl.sync), which the
	// multi-thread kernels use instead of local memory. On this tree's
	// kernels it comes with CarryChains (both are inline PTX).
	Shuffles bool
	// FragileCompiler: the compiler is known to crash the process on the
	// longest fully unrolled portable-C limb code (NVIDIA's OpenCL
	// compiler, driver 580, without inline PTX: the product-scanning
	// Montgomery forms other than the 512-bit default). Programs that need
	// such code are refused on this device rather than risked.
	FragileCompiler bool
	// UnrollLimit: the widest fully unrolled loop of multi-precision rows,
	// in 32-bit words, that the compiler is known to build without
	// crashing the process; 0 for no known limit. NVIDIA's compilers
	// (NVRTC 11.8 and 13.0) overflowed their 8 MB stack on Montgomery rows
	// unrolled at 1024 bits; the OpenCL driver, on the same compiler
	// underneath, is given the same limit.
	UnrollLimit int
}

// TypeName is "GPU", "CPU", "ACCEL" or "OTHER".
func (i *Info) TypeName() string { return i.Type.String() }

func (i *Info) String() string {
	return fmt.Sprintf("#%d %s (%s, %s, %s)", i.Index, i.Name, i.Backend, i.Platform, i.TypeName())
}

// fastFP64Arch are the GPUs whose double precision runs at half the
// single-precision rate: NVIDIA compute capabilities (P100, V100, A100,
// H100/H200, B200) and AMD gfx targets (MI50/60, MI100, MI200, MI300).
var (
	fastFP64NVIDIA = []string{"6.0", "7.0", "8.0", "9.0", "10.0"}
	fastFP64AMD    = []string{"gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"}
)

// fastFP64 is Info.FastFP64 for a device described by i.
func fastFP64(i Info) bool {
	if !i.FP64 || i.Type != TypeGPU {
		return false
	}
	switch i.Class {
	case VendorNVIDIA:
		return slices.Contains(fastFP64NVIDIA, i.ComputeCapability)
	case VendorAMD:
		for _, g := range fastFP64AMD {
			if strings.HasPrefix(i.Name, g) {
				return true
			}
		}
	}
	return false
}
