// Package cltest gives tests the OpenCL device to run on.
//
// Tests use the device that cl.Default picks (GPUCRYPTO_DEVICE selects
// another). With no device they skip, unless GPUCRYPTO_REQUIRE_DEVICE=1 (set
// by `make test` and the GPU bundle), where they fail: a suite that silently
// ran nothing must not pass.
package cltest

import (
	"os"
	"sync"
	"testing"

	"github.com/gpucrypto/gpucrypto/cl"
)

const EnvRequire = "GPUCRYPTO_REQUIRE_DEVICE"

var (
	once   sync.Once
	dev    *cl.Device
	devErr error
)

// Device returns the test device or ends the test.
func Device(tb testing.TB) *cl.Device {
	tb.Helper()
	once.Do(func() {
		dev, devErr = cl.Default()
		if devErr == nil {
			tb.Logf("test device: %s (ptx=%v)", dev, dev.InlinePTX())
		}
	})
	if devErr != nil {
		if os.Getenv(EnvRequire) == "1" {
			tb.Fatalf("no OpenCL device (and %s=1): %v", EnvRequire, devErr)
		}
		tb.Skipf("no OpenCL device: %v", devErr)
	}
	return dev
}

// Short reports whether to shrink the largest cases: on CPU devices (PoCL
// in CI) the biggest batches take too long for the 2-core CI budget unless
// GPUCRYPTO_FULL=1.
func Short(d *cl.Device) bool {
	return testing.Short() || (d.Type&cl.TypeCPU != 0 && os.Getenv("GPUCRYPTO_FULL") != "1")
}
