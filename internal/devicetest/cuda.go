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
// cuda) is missing, unless GPUCRYPTO_REQUIRE_NVRTC=1.
func CUDACompiler(tb testing.TB) *device.Device {
	tb.Helper()
	d, err := device.CUDACompiler("9.0")
	if err != nil {
		if os.Getenv(EnvRequireNVRTC) == "1" {
			tb.Fatalf("no NVRTC (and %s=1): %v", EnvRequireNVRTC, err)
		}
		tb.Skipf("no NVRTC: %v", err)
	}
	return d
}
