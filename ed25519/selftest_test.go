package ed25519_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/ed25519"
)

// SelfTest passes on the device's kernels and on the CPU path, counted
// apart from the engine's Stats.
func TestSelfTest(t *testing.T) {
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			before, user := ed25519.SelfTestStats(e), e.Stats()
			require.NoError(t, ed25519.SelfTest(e))
			after := ed25519.SelfTestStats(e)
			require.Equal(t, user.DeviceOps+user.CPUOps, e.Stats().DeviceOps+e.Stats().CPUOps, "the self-test counted among the user's operations")
			if e.Device() != nil {
				require.Greater(t, after.DeviceOps, before.DeviceOps, "the self-test did not run on the device")
				require.Equal(t, before.CPUOps, after.CPUOps, "the self-test ran on the CPU")
			}
		})
	}
}
