package device_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// Default is the device Auto computes on (Choose's): on a machine whose
// devices are all CPU devices (PoCL in CI) it fails, matching ErrNoDevice,
// with Choose's reason, while Any (the tests' device) still finds the CPU
// device; GPUCRYPTO_DEVICE naming a CPU device makes it Default's, and a
// name that matches nothing is Default's error.
func TestDefaultIsAutosChoice(t *testing.T) {
	test := devicetest.Device(t) // skips, or fails, where there is no device
	named := os.Getenv(device.EnvDevice) != ""
	t.Setenv(device.EnvDevice, "")
	devs, err := device.Devices()
	require.NoError(t, err)
	anyDevice, err := device.Any()
	require.NoError(t, err)
	require.Same(t, device.Best(devs), anyDevice)
	if !named {
		require.Same(t, test, anyDevice, "the tests run on Any's device")
	}

	choice := device.Choose()
	d, err := device.Default()
	if choice.Device != nil {
		require.NoError(t, err)
		require.Same(t, choice.Device, d)
		require.NotEqual(t, device.TypeCPU, d.Type, "no CPU device unless GPUCRYPTO_DEVICE names it")
	} else {
		require.Nil(t, d)
		require.ErrorIs(t, err, device.ErrNoDevice)
		require.ErrorContains(t, err, choice.Reason)
		require.ErrorContains(t, err, "no GPU")
		for _, x := range devs {
			require.Equal(t, device.TypeCPU, x.Type, "Choose passed over %s", x)
		}
	}

	for _, x := range devs {
		if x.Type != device.TypeCPU {
			continue
		}
		t.Setenv(device.EnvDevice, strconv.Itoa(x.Index))
		d, err := device.Default()
		require.NoError(t, err, "GPUCRYPTO_DEVICE names a CPU device: the user asked")
		require.Same(t, x, d)
		require.Same(t, x, device.Choose().Device)
		d, err = device.Any()
		require.NoError(t, err)
		require.Same(t, x, d)
	}

	t.Setenv(device.EnvDevice, "no-such-device-xyz")
	d, err = device.Default()
	require.Nil(t, d)
	require.ErrorContains(t, err, `GPUCRYPTO_DEVICE="no-such-device-xyz"`)
	require.Equal(t, err.Error(), device.Choose().Reason)
	_, err = device.Any()
	require.ErrorContains(t, err, `GPUCRYPTO_DEVICE="no-such-device-xyz"`)
}
