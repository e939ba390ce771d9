package cuda

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestDriverMissing(t *testing.T) {
	_, err := openDriver([]string{"/nonexistent/libcuda.so.1", "libc.so.6", "libgpucrypto-no-such-library.so"})
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("error %v does not match ErrNoDriver", err)
	}
	msg := err.Error()
	for _, want := range []string{"/nonexistent/libcuda.so.1: no such file", "libc.so.6: not a CUDA driver library", "libgpucrypto-no-such-library.so: cannot be loaded", EnvCUDALibrary, "install the NVIDIA driver"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestErrorText(t *testing.T) {
	var d *Driver // no library: names come from the built-in table
	err := error(d.newError("cuLaunchKernel", StatusLaunchFailed))
	if got := err.Error(); got != "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED" {
		t.Errorf("Error() = %q", got)
	}
	if !IsLost(fmt.Errorf("wrapped: %w", err)) || !HasStatus(err, StatusLaunchFailed) {
		t.Error("a launch failure is not lost")
	}
	for _, s := range []int{StatusIllegalAddress, StatusHardwareStackError, StatusIllegalInstruction, StatusMisalignedAddress,
		StatusInvalidAddressSpace, StatusInvalidPC, StatusLaunchTimeout, StatusECCUncorrectable, StatusDeviceUnavailable,
		StatusContextIsDestroyed, StatusNoDevice} {
		if !(&Error{Status: s}).Lost() {
			t.Errorf("status %d (%s) is not lost", s, statusNames[s])
		}
	}
	for _, s := range []int{StatusOutOfMemory, StatusInvalidValue, StatusNotFound, StatusNotReady, StatusInvalidPTX, StatusLaunchOutOfResources} {
		if (&Error{Status: s}).Lost() {
			t.Errorf("status %d (%s) is lost", s, statusNames[s])
		}
	}
	e := &Error{Call: "cuModuleLoadDataEx", Status: 218, Name: "CUDA_ERROR_INVALID_PTX", Description: "a PTX JIT compilation failed", Log: "ptxas fatal\n"}
	if got, want := e.Error(), "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)\nJIT log:\nptxas fatal"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := (&Error{Call: "cuX", Status: 12345}).Error(); got != "cuX: CUDA error 12345" {
		t.Errorf("Error() = %q", got)
	}
}

func TestCStrings(t *testing.T) {
	b := []byte("hello\x00world")
	if got := goString(&b[0]); got != "hello" {
		t.Errorf("goString = %q", got)
	}
	if goString(nil) != "" || cText([]byte("log\n\n\x00junk")) != "log" || cText(make([]byte, 4)) != "" {
		t.Error("cText")
	}
}

// Objects of no context return errors rather than panicking.
func TestNilObjects(t *testing.T) {
	var s *Stream
	var e *Event
	var m *Memory
	var f *Function
	var mod *Module
	var h *HostMemory
	var c *Context
	var dev *Device
	_, e1 := mod.Function("k")
	_, e2 := f.Attribute(FuncNumRegs)
	_, e3 := ElapsedTime(nil, nil)
	_, e4 := e.Query()
	_, e5 := dev.PrimaryContext()
	_, e6 := (*Driver)(nil).Device(0)
	for i, err := range []error{s.Destroy(), e.Destroy(), m.Free(), s.Synchronize(), e.Synchronize(), mod.Unload(),
		e1, e2, e3, e4, e5, e6, h.Free(), c.Do(func() error { return nil }), c.Release(), s.Record(e), s.WaitEvent(e),
		s.CopyHtoD(m, 0, []byte{1}), s.CopyDtoH([]byte{1}, m, 0), s.MemsetD32(m, 0, 0, 1), s.Launch(f, Dim3{}, Dim3{}, 0),
		f.SetAttribute(FuncMaxDynamicSharedSizeBytes, 1)} {
		if err == nil {
			t.Errorf("%d: no error", i)
		}
	}
	_, e7 := dev.Name()
	_, e8 := dev.TotalMem()
	_, _, e9 := dev.ComputeCapability()
	_, e10 := (*Driver)(nil).DeviceCount()
	for i, err := range []error{e7, e8, e9, e10} {
		if err == nil {
			t.Errorf("nil device %d: no error", i)
		}
	}
	if m.Ptr() != 0 || m.Size() != 0 || h.Bytes() != nil || mod.Log() != "" || f.Name() != "" || c.Device() != nil || dev.Ordinal() != -1 {
		t.Error("nil accessors")
	}
}
