package aes

import "errors"

var (
	// ErrNilKey is returned for an element without a key.
	ErrNilKey = errors.New("aes: nil key")
	// ErrKeyDestroyed is returned for a key used after Key.Close (or
	// its deprecated alias Destroy).
	ErrKeyDestroyed = errors.New("aes: key used after Close")
	// ErrCPUDevice is what the error of NewEngine and NewEngineConfig
	// for a CPU device (device.TypeCPU: an OpenCL CPU runtime such as
	// PoCL) is (errors.Is); its message names the device and says why.
	ErrCPUDevice = errors.New("aes: no engine on a CPU device")
	// ErrOpen is returned by Open for a message whose tag does not match
	// (a wrong key, nonce, AAD, ciphertext or tag): no plaintext is
	// released, its output is zeroed.
	ErrOpen = errors.New("aes: message authentication failed")
	// ErrOverlap is returned when dst and src overlap other than exactly
	// (crypto/cipher's rule).
	ErrOverlap = errors.New("aes: invalid buffer overlap of output and input")
)

// cpuDeviceError is the error of NewEngineConfig for the CPU device name.
type cpuDeviceError struct{ name string }

func (e cpuDeviceError) Error() string {
	return "aes: no engine on " + e.name + ", a CPU device: the kernels read their round tables at indices made from key and data bytes, " +
		"which there select cache lines that another process on the same cores can observe; use aes.CPUEngine(), which computes with the CPU's AES instructions"
}

func (e cpuDeviceError) Is(target error) bool { return target == ErrCPUDevice }
