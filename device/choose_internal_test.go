package device

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The choice among the devices found, GPUCRYPTO_DEVICE unset: the best GPU
// or accelerator over any CPU device; with only CPU devices the CPU engine,
// and Default's error (matching ErrNoDevice) gives Choose's reason and what
// to use instead.
func TestChooseAmong(t *testing.T) {
	pocl := &Device{Info: Info{Index: 0, Name: "pthread-test-cpu", Type: TypeCPU, ComputeUnits: 64, ClockMHz: 3000}}
	small := &Device{Info: Info{Index: 1, Name: "small-gpu", Type: TypeGPU, ComputeUnits: 8, ClockMHz: 1000}}
	large := &Device{Info: Info{Index: 2, Name: "large-gpu", Type: TypeGPU, ComputeUnits: 132, ClockMHz: 1800}}
	accelerator := &Device{Info: Info{Index: 3, Name: "an-accelerator", Type: TypeAccelerator, ComputeUnits: 4, ClockMHz: 500}}

	c, err := chooseAmong([]*Device{pocl, small, large})
	require.NoError(t, err)
	require.Same(t, large, c.Device)
	require.Contains(t, c.Reason, "the strongest of 2 GPUs")

	c, err = chooseAmong([]*Device{pocl, accelerator})
	require.NoError(t, err)
	require.Same(t, accelerator, c.Device, "an accelerator is no CPU device")

	c, err = chooseAmong([]*Device{pocl})
	require.Nil(t, c.Device)
	require.Equal(t, "no GPU; the CPU devices found (pthread-test-cpu) are slower than the CPU engine on the same cores", c.Reason)
	require.ErrorIs(t, err, ErrNoDevice)
	require.ErrorContains(t, err, c.Reason)
	require.ErrorContains(t, err, "use the package's CPUEngine or Auto, or name a device with GPUCRYPTO_DEVICE")
}
