package devicetest_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/ecdsa"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// The test device is found where the default device is not: on a machine
// with only CPU devices (PoCL in CI) it is a CPU device, the best of all.
func TestDeviceTakesCPUDevices(t *testing.T) {
	d := devicetest.Device(t)
	devs, err := device.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := device.Default(); err != nil && d.Type != device.TypeCPU {
		t.Errorf("no default device (%v), yet the test device %s is no CPU device", err, d)
	}
	if want, err := device.Any(); err != nil || want != d {
		t.Errorf("test device %s, device.Any %v (%v)", d, want, err)
	}
	t.Logf("test device %s of %d", d, len(devs))
}

// Every package's NewEngine(nil) computes on device.Default's device, or
// returns Default's error (without a GPU, a machine with only PoCL):
// never a nil Engine with a nil error, never an Engine on a CPU device
// that GPUCRYPTO_DEVICE did not name.
func TestNewEngineNil(t *testing.T) {
	devicetest.Device(t) // skips, or fails, where there is no device at all
	t.Setenv(device.EnvDevice, "")
	want, defaultErr := device.Default()
	type engine interface {
		Device() *device.Device
		Close() error
	}
	for _, c := range []struct {
		name      string
		newEngine func() (engine, error)
	}{
		{"arith", func() (engine, error) { return arith.NewEngine(nil) }},
		{"rsa", func() (engine, error) { return rsa.NewEngine(nil) }},
		{"ecdh", func() (engine, error) { return ecdh.NewEngine(nil) }},
		{"ed25519", func() (engine, error) { return ed25519.NewEngine(nil) }},
		{"ecdsa", func() (engine, error) { return ecdsa.NewEngine(nil) }},
		{"aes", func() (engine, error) { return aes.NewEngine(nil) }},
		{"aes config", func() (engine, error) { return aes.NewEngineConfig(nil, aes.Config{}) }},
	} {
		e, err := c.newEngine()
		isNil := e == nil || reflect.ValueOf(e).IsNil()
		switch {
		case isNil && err == nil:
			t.Errorf("%s.NewEngine(nil): a nil Engine and a nil error", c.name)
		case !isNil && err != nil:
			t.Errorf("%s.NewEngine(nil): an Engine and the error %v", c.name, err)
		case defaultErr != nil && !errors.Is(err, device.ErrNoDevice):
			t.Errorf("%s.NewEngine(nil) without a default device (%v): %v, %v; want Default's error", c.name, defaultErr, e, err)
		case defaultErr != nil && err.Error() != defaultErr.Error():
			t.Errorf("%s.NewEngine(nil): %v; want Default's error %v", c.name, err, defaultErr)
		case err == nil && e.Device().Type == device.TypeCPU:
			t.Errorf("%s.NewEngine(nil) on the CPU device %s, which GPUCRYPTO_DEVICE did not name", c.name, e.Device())
		case defaultErr == nil && err == nil && e.Device() != want:
			t.Errorf("%s.NewEngine(nil) on %s; want Default's %s", c.name, e.Device(), want)
		}
		if !isNil {
			e.Close()
		}
	}
}
