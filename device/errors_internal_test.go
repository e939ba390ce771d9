package device

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLostAndNoDevice(t *testing.T) {
	base := errors.New("cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED")
	err := fmt.Errorf("batch: %w", markLost(base))
	require.ErrorIs(t, err, ErrDeviceLost)
	require.ErrorIs(t, err, base)
	require.Contains(t, err.Error(), "CUDA_ERROR_LAUNCH_FAILED")
	require.Nil(t, markLost(nil))
	require.Equal(t, err, markLost(err), "an error already marked is not wrapped again")

	_, _, err = enumerate("bogus")
	require.ErrorIs(t, err, ErrNoDevice)
	require.ErrorContains(t, err, `GPUCRYPTO_BACKEND="bogus"`)
}
