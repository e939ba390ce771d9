package devicetest

import (
	"os"
	"testing"

	"github.com/gpucrypto/gpucrypto/device"
)

// EnvRequireNVRTC, when "1" (make test sets it), makes CUDACompiler fail
// instead of skip where NVRTC is missing.
const EnvRequireNVRTC = "GPUCRYPTO_REQUIRE_NVRTC"

// CUDACompiler returns a compile-only device of the CUDA backend for an
// H100 (sm_90), or ends the test: it skips where NVRTC (or the build tag
// cuda) is missing, unless GPUCRYPTO_REQUIRE_NVRTC=1. It skips too in a
// run whose tests go through OpenCL (GPUCRYPTO_BACKEND=opencl) unless
// GPUCRYPTO_REQUIRE_NVRTC=1: the NVRTC builds are CI's check of the CUDA C
// without a GPU, and on a GPU the run through CUDA builds the same
// programs for real, so a run through OpenCL need not spend its time on
// them again.
func CUDACompiler(tb testing.TB) *device.Device {
	tb.Helper()
	if os.Getenv(device.EnvBackend) == "opencl" && os.Getenv(EnvRequireNVRTC) != "1" {
		tb.Skipf("%s=opencl: the NVRTC builds are left to the CUDA run and to CI", device.EnvBackend)
	}
	d, err := device.CUDACompiler("9.0")
	if err != nil {
		if os.Getenv(EnvRequireNVRTC) == "1" {
			tb.Fatalf("no NVRTC (and %s=1): %v", EnvRequireNVRTC, err)
		}
		tb.Skipf("no NVRTC: %v", err)
	}
	return d
}
