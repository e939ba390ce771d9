package cuda

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoDriver is matched (errors.Is) by the error of LoadDriver when no
// usable CUDA driver library (libcuda) could be opened.
var ErrNoDriver = errors.New("cuda: no usable CUDA driver library")

// MissingLibraryError says that no usable library of one kind (the CUDA
// driver, NVRTC) was found: it names every library tried, why each one
// failed, and what to install. It matches ErrNoDriver or ErrNoNVRTC, by
// kind, with errors.Is.
type MissingLibraryError struct {
	// Library names the kind of library, such as "CUDA driver library (libcuda)".
	Library string
	// Tried lists every library tried, in the order tried.
	Tried []string
	// Reasons says, for the entry of Tried with the same index, why that
	// library could not be used.
	Reasons []string
	// Advice says what to install or set.
	Advice string
	kind   error // ErrNoDriver or ErrNoNVRTC
}

// Error lists the libraries tried and says what to install.
func (e *MissingLibraryError) Error() string {
	var b strings.Builder
	b.WriteString("cuda: no usable " + e.Library + " was found")
	if len(e.Tried) > 0 {
		b.WriteString("; tried:")
		for i, p := range e.Tried {
			b.WriteString("\n\t")
			b.WriteString(p)
			if i < len(e.Reasons) && e.Reasons[i] != "" {
				b.WriteString(": ")
				b.WriteString(e.Reasons[i])
			}
		}
		b.WriteString("\n")
	} else {
		b.WriteString("; ")
	}
	b.WriteString(e.Advice)
	return b.String()
}

// Is reports whether target is the sentinel of the library's kind.
func (e *MissingLibraryError) Is(target error) bool { return target == e.kind }

// missingDriver and missingNVRTC start the errors of the two kinds.
func missingDriver() *MissingLibraryError {
	return &MissingLibraryError{Library: "CUDA driver library (libcuda)", kind: ErrNoDriver,
		Advice: "install the NVIDIA driver (it ships libcuda.so.1; on Debian and Ubuntu the package " +
			"libcuda1 or libnvidia-compute-<version>), or set " + EnvCUDALibrary + " to the library's path"}
}

func missingNVRTC() *MissingLibraryError {
	return &MissingLibraryError{Library: "NVRTC library (the CUDA runtime compiler)", kind: ErrNoNVRTC,
		Advice: "install the CUDA toolkit (it ships libnvrtc), or run scripts/fetch-nvrtc.sh and set " +
			EnvNVRTCDir + " to the folder it prints, or set " + EnvNVRTCLibrary + " to the library's path"}
}

// Error is a failed CUDA driver call: the call, its CUresult status and the
// status's name (cuGetErrorName), such as
// "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED".
type Error struct {
	Call   string // the driver function, such as "cuLaunchKernel"
	Status int    // the CUresult
	Name   string // the status's name, such as "CUDA_ERROR_LAUNCH_FAILED"
	// Description is the driver's words for the status (cuGetErrorString).
	Description string
	// Log is the JIT compiler's error log, for module loads of PTX.
	Log string
}

func (e *Error) Error() string {
	name := e.Name
	if name == "" {
		name = fmt.Sprintf("CUDA error %d", e.Status)
	}
	s := e.Call + ": " + name
	if e.Description != "" {
		s += " (" + e.Description + ")"
	}
	if log := strings.TrimRight(e.Log, "\n"); log != "" {
		s += "\nJIT log:\n" + log
	}
	return s
}

// CUresult values this package names.
const (
	StatusSuccess                    = 0
	StatusInvalidValue               = 1
	StatusOutOfMemory                = 2
	StatusNotInitialized             = 3
	StatusDeinitialized              = 4
	StatusStubLibrary                = 34
	StatusDeviceUnavailable          = 46
	StatusNoDevice                   = 100
	StatusInvalidDevice              = 101
	StatusInvalidImage               = 200
	StatusInvalidContext             = 201
	StatusNoBinaryForGPU             = 209
	StatusECCUncorrectable           = 214
	StatusInvalidPTX                 = 218
	StatusNVLinkUncorrectable        = 220
	StatusUnsupportedPTXVersion      = 222
	StatusInvalidHandle              = 400
	StatusNotFound                   = 500
	StatusNotReady                   = 600
	StatusIllegalAddress             = 700
	StatusLaunchOutOfResources       = 701
	StatusLaunchTimeout              = 702
	StatusContextIsDestroyed         = 709
	StatusAssert                     = 710
	StatusHardwareStackError         = 714
	StatusIllegalInstruction         = 715
	StatusMisalignedAddress          = 716
	StatusInvalidAddressSpace        = 717
	StatusInvalidPC                  = 718
	StatusLaunchFailed               = 719
	StatusSystemDriverMismatch       = 803
	StatusCompatNotSupportedOnDevice = 804
	StatusUnknown                    = 999
)

// statusNames names the statuses above, for errors made when the
// library cannot name them (cuGetErrorName missing or failing).
var statusNames = map[int]string{
	StatusSuccess:                    "CUDA_SUCCESS",
	StatusInvalidValue:               "CUDA_ERROR_INVALID_VALUE",
	StatusOutOfMemory:                "CUDA_ERROR_OUT_OF_MEMORY",
	StatusNotInitialized:             "CUDA_ERROR_NOT_INITIALIZED",
	StatusDeinitialized:              "CUDA_ERROR_DEINITIALIZED",
	StatusStubLibrary:                "CUDA_ERROR_STUB_LIBRARY",
	StatusDeviceUnavailable:          "CUDA_ERROR_DEVICE_UNAVAILABLE",
	StatusNoDevice:                   "CUDA_ERROR_NO_DEVICE",
	StatusInvalidDevice:              "CUDA_ERROR_INVALID_DEVICE",
	StatusInvalidImage:               "CUDA_ERROR_INVALID_IMAGE",
	StatusInvalidContext:             "CUDA_ERROR_INVALID_CONTEXT",
	StatusNoBinaryForGPU:             "CUDA_ERROR_NO_BINARY_FOR_GPU",
	StatusECCUncorrectable:           "CUDA_ERROR_ECC_UNCORRECTABLE",
	StatusInvalidPTX:                 "CUDA_ERROR_INVALID_PTX",
	StatusNVLinkUncorrectable:        "CUDA_ERROR_NVLINK_UNCORRECTABLE",
	StatusUnsupportedPTXVersion:      "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	StatusInvalidHandle:              "CUDA_ERROR_INVALID_HANDLE",
	StatusNotFound:                   "CUDA_ERROR_NOT_FOUND",
	StatusNotReady:                   "CUDA_ERROR_NOT_READY",
	StatusIllegalAddress:             "CUDA_ERROR_ILLEGAL_ADDRESS",
	StatusLaunchOutOfResources:       "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	StatusLaunchTimeout:              "CUDA_ERROR_LAUNCH_TIMEOUT",
	StatusContextIsDestroyed:         "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	StatusAssert:                     "CUDA_ERROR_ASSERT",
	StatusHardwareStackError:         "CUDA_ERROR_HARDWARE_STACK_ERROR",
	StatusIllegalInstruction:         "CUDA_ERROR_ILLEGAL_INSTRUCTION",
	StatusMisalignedAddress:          "CUDA_ERROR_MISALIGNED_ADDRESS",
	StatusInvalidAddressSpace:        "CUDA_ERROR_INVALID_ADDRESS_SPACE",
	StatusInvalidPC:                  "CUDA_ERROR_INVALID_PC",
	StatusLaunchFailed:               "CUDA_ERROR_LAUNCH_FAILED",
	StatusSystemDriverMismatch:       "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	StatusCompatNotSupportedOnDevice: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
	StatusUnknown:                    "CUDA_ERROR_UNKNOWN",
}

// Lost reports whether the status means that the device failed or that
// the context can no longer be used: the errors of a kernel that faulted
// are sticky, so every later call of the process fails too, and the work
// must go elsewhere (the CPU).
func (e *Error) Lost() bool { return lostStatus(e.Status) }

func lostStatus(status int) bool {
	switch status {
	case StatusDeinitialized, StatusDeviceUnavailable, StatusNoDevice,
		StatusECCUncorrectable, StatusNVLinkUncorrectable,
		StatusIllegalAddress, StatusLaunchTimeout, StatusContextIsDestroyed, StatusAssert,
		StatusHardwareStackError, StatusIllegalInstruction, StatusMisalignedAddress,
		StatusInvalidAddressSpace, StatusInvalidPC, StatusLaunchFailed:
		return true
	}
	return false
}

// IsLost reports whether err holds an *Error whose Lost is true.
func IsLost(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Lost()
}

// HasStatus reports whether err holds an *Error of the status.
func HasStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}
