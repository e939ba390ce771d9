package ed25519_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/ed25519"
)

// SelfTest passes on the device's kernels and on the CPU path.
func TestSelfTest(t *testing.T) {
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			before := e.Stats()
			require.NoError(t, ed25519.SelfTest(e))
			after := e.Stats()
			if e.Device() != nil {
				require.Greater(t, after.DeviceOps, before.DeviceOps, "the self-test did not run on the device")
				require.Equal(t, before.CPUOps, after.CPUOps, "the self-test ran on the CPU")
			}
		})
	}
}
