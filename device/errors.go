package device

import (
	"errors"
	"fmt"
)

// ErrDeviceLost is matched (errors.Is) by every error that means the device
// failed or vanished, whichever driver reported it: callers then recompute
// on the CPU.
var ErrDeviceLost = errors.New("device lost")

// ErrNoDevice is matched by the error of Devices when no device can be
// used (no driver library, no platform, no device), and by that of
// Default when it has none to compute on (those reasons, or only CPU
// devices, which the CPU engines outrun).
var ErrNoDevice = errors.New("device: no device")

// lost marks a driver error as a lost device.
type lost struct{ err error }

func (l *lost) Error() string        { return fmt.Sprintf("%s (%v)", l.err, ErrDeviceLost) }
func (l *lost) Unwrap() error        { return l.err }
func (l *lost) Is(target error) bool { return target == ErrDeviceLost }

// markLost wraps err so that it matches ErrDeviceLost (nil stays nil).
func markLost(err error) error {
	if err == nil || errors.Is(err, ErrDeviceLost) {
		return err
	}
	return &lost{err}
}

// noDevice explains why no device was found.
type noDevice struct{ err error }

func (n *noDevice) Error() string        { return n.err.Error() }
func (n *noDevice) Unwrap() error        { return n.err }
func (n *noDevice) Is(target error) bool { return target == ErrNoDevice }
