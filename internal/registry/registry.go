// Package registry lists gpucrypto's algorithms in one place, for the
// tools that go over all of them: gpucrypto selftest and kernelinfo (the
// CLI) and the Makefile's lists of packages and fuzz targets
// (internal/registry/lists). Adding an algorithm is its package, its
// kernels and one entry in All (algorithms.go), and in the CLI one file,
// cmd/gpucrypto/NAME.go.
package registry

import (
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// Algorithm is one algorithm (a package) as the tools see it.
type Algorithm struct {
	// Name is the algorithm's package, its directory in the repository.
	Name string
	// SelfTests are its known-answer suites on a device (gpucrypto
	// selftest's rows).
	SelfTests []SelfTest
	// Programs are the kernel programs its engines build on a device, for
	// gpucrypto kernelinfo; an error says why none is built there.
	Programs func(d *device.Device) ([]Program, error)
	// Fuzz are the fuzz targets of its tests (the Makefile's lists).
	Fuzz []string
}

// SelfTest is one known-answer suite.
type SelfTest struct {
	Name string
	Run  func(d *device.Device) error
}

// Program is one kernel program build: its title, source (file and
// defines) and the kernels kernelinfo reports.
type Program struct {
	Title   string
	Source  device.Source
	Kernels []string
}

// Named is the algorithm of that name, if any.
func Named(name string) (Algorithm, bool) {
	for _, a := range All {
		if a.Name == name {
			return a, true
		}
	}
	return Algorithm{}, false
}

// onDevice is a self-test that makes an engine on the device with
// newEngine, keeps its calls on the device, runs test and fails where
// the CPU answered for the device (a fallback), then closes the engine.
func onDevice[E batch.Engine](newEngine func(*device.Device) (E, error), test func(E) error) func(*device.Device) error {
	return func(d *device.Device) error {
		e, err := newEngine(d)
		if err != nil {
			return err
		}
		defer e.Close()
		e.SetRoute(batch.RouteDevice) // a self-test tests the device
		var fellBack error
		e.OnFallback(func(err error) { fellBack = err })
		if err := test(e); err != nil {
			return err
		}
		return fellBack
	}
}
