package rsa

import (
	"errors"

	"github.com/gpucrypto/gpucrypto/cl"
)

// newDeviceBackend returns the OpenCL backend for dev.
//
// Placeholder until the device kernels land: it always fails, so an Engine
// built on a device falls back to the CPU backend.
func newDeviceBackend(dev *cl.Device) (backend, error) {
	_ = dev
	return nil, errors.New("rsa: the device backend is not built yet")
}
