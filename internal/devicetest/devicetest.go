// Package devicetest gives tests the device to run on.
//
// Tests run their kernels on device.Any's device: the one GPUCRYPTO_DEVICE
// names, else the best device of any type, a CPU device (PoCL in CI)
// where there is no GPU (GPUCRYPTO_BACKEND selects the driver). Not
// device.Default's: that one passes over CPU devices, which the CPU
// engines outrun, and the kernels under test must run all the same. With
// no device they skip, unless GPUCRYPTO_REQUIRE_DEVICE=1 (set by `make
// test` and the GPU bundle), where they fail: a suite that silently ran
// nothing must not pass.
package devicetest

import (
	"os"
	"sync"
	"testing"

	"github.com/gpucrypto/gpucrypto/device"
)

const EnvRequire = "GPUCRYPTO_REQUIRE_DEVICE"

var (
	once   sync.Once
	dev    *device.Device
	devErr error
)

// Device returns the test device or ends the test.
func Device(tb testing.TB) *device.Device {
	tb.Helper()
	once.Do(func() {
		dev, devErr = device.Any()
		if devErr == nil {
			tb.Logf("test device: %s (carry chains=%v)", dev, dev.CarryChains)
		}
	})
	if devErr != nil {
		if os.Getenv(EnvRequire) == "1" {
			tb.Fatalf("no device (and %s=1): %v", EnvRequire, devErr)
		}
		tb.Skipf("no device: %v", devErr)
	}
	return dev
}

// Short reports whether to shrink the largest cases: on CPU devices (PoCL
// in CI) the biggest batches take too long for the 2-core CI budget unless
// GPUCRYPTO_FULL=1.
func Short(d *device.Device) bool {
	return testing.Short() || (d.Type == device.TypeCPU && os.Getenv("GPUCRYPTO_FULL") != "1")
}
