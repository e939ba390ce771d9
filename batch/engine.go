package batch

import (
	"log/slog"

	"github.com/gpucrypto/gpucrypto/device"
)

// Engine is what every package's Engine is (rsa, ecdh, ed25519, ecdsa,
// aes, mlkem, arith): an algorithm's batches on one device, or on all CPU
// cores (a package's CPUEngine), with the same controls. The controls are
// documented here once; a package's Engine doc says what its own
// operations and their checks are.
type Engine interface {
	// Device is the engine's device (nil for a CPU engine).
	Device() *device.Device
	// String names where the engine computes: "device <name>" or "CPU".
	String() string
	// SetRoute sets where calls run: RouteAuto (the default) picks device
	// or CPU per call by their measured times, RouteDevice and RouteCPU
	// force one (benchmarks of the kernels, say). A CPU engine computes
	// on the CPU whatever the route.
	SetRoute(Route)
	// Stats returns the engine's counts: operations on the device and on
	// the CPU, fallbacks, batches, latency and device time; its
	// self-tests' calls are not among them.
	Stats() Stats
	// OnFallback sets the function told about each device batch
	// recomputed on the CPU after a device failure or a failed result
	// check (nil, the default: none).
	OnFallback(func(error))
	// SetLogger makes the engine log each fallback on l at level Warn
	// (nil, the default: nothing is logged).
	SetLogger(*slog.Logger)
	// SetResultCheck makes the engine recompute about one device result in
	// every on the CPU and compare, and the first of each device batch (0:
	// no check; the package's doc gives its default, and the checks it
	// makes of every result regardless). A mismatch means a broken device:
	// the batch is recomputed on the CPU and reported through OnFallback.
	SetResultCheck(every int)
	// ReleaseBuffers frees the host and device memory that the engine
	// keeps from finished batches for later ones (zeroed where it held
	// secrets). Batches that run meanwhile are not affected; later ones
	// allocate again.
	ReleaseBuffers()
	// Close makes later calls fail with an error wrapping ErrClosed, waits
	// for the running ones, and frees the engine's device memory. Calling
	// it again does nothing and returns nil.
	Close() error
}
