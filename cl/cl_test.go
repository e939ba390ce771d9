package cl_test

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/cl"
)

// clDevice returns the first OpenCL device, or skips (the device package's
// tests, which run on every backend, fail instead where a device is
// required).
func clDevice(t *testing.T) *cl.Device {
	devs, err := cl.Devices()
	if err != nil {
		if os.Getenv("GPUCRYPTO_REQUIRE_DEVICE") == "1" && os.Getenv("GPUCRYPTO_BACKEND") != "cuda" {
			t.Fatalf("no OpenCL device: %v", err)
		}
		t.Skipf("no OpenCL device: %v", err)
	}
	return devs[0]
}

func TestMissingLibrary(t *testing.T) {
	// The library is loaded once per process, so check the loader in a
	// child process with a bogus path.
	if os.Getenv("GPUCRYPTO_CHILD") == "1" {
		devs, err := cl.Devices()
		if len(devs) != 0 || !errors.Is(err, cl.ErrNoRuntime) {
			t.Fatalf("devices=%d err=%v; want none and ErrNoRuntime", len(devs), err)
		}
		var re *cl.RuntimeError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("error %q is not a RuntimeError saying why", err)
		}
		return
	}
	out, err := runChild(t, "TestMissingLibrary", cl.EnvLibrary+"=/nonexistent/libOpenCL.so.1")
	require.NoError(t, err, out)
}

// With OCL_ICD_VENDORS naming an empty directory, the loader finds no
// platform, and the error names that directory, not /etc/OpenCL/vendors.
func TestNoPlatformNamesVendorsDir(t *testing.T) {
	if os.Getenv("GPUCRYPTO_CHILD") == "1" {
		dir := os.Getenv(cl.EnvVendors)
		devs, err := cl.Devices()
		switch {
		case errors.Is(err, cl.ErrNoRuntime) && strings.Contains(err.Error(), "not found"):
			t.Skipf("no OpenCL library: %v", err)
		case err == nil:
			t.Skipf("the ICD loader found %d devices with %s=%s: it does not read the variable", len(devs), cl.EnvVendors, dir)
		}
		if !strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), "/etc/OpenCL/vendors") {
			t.Fatalf("error %q does not name the directory searched, %s", err, dir)
		}
		return
	}
	out, err := runChild(t, "TestNoPlatformNamesVendorsDir", cl.EnvVendors+"="+t.TempDir())
	require.NoError(t, err, out)
	t.Log(out)
}

// The binding end to end: build from source and from the binary, launch on
// a second queue, copy both ways, fill, and the build log of a failure.
func TestBinding(t *testing.T) {
	d := clDevice(t)
	src := `__kernel void k(__global uint *x, const uint a) { x[get_global_id(0)] += a; }`
	p, err := d.BuildSource(src, "")
	require.NoError(t, err)
	bin, err := p.Binary()
	require.NoError(t, err)
	require.NotEmpty(t, bin)
	p2, err := d.BuildBinary(bin, "")
	require.NoError(t, err)
	k, err := p2.Kernel("k")
	require.NoError(t, err)
	q, err := d.NewQueue()
	require.NoError(t, err)
	defer q.Release()
	b, err := d.NewBuffer(64)
	require.NoError(t, err)
	defer b.Release()
	_, err = q.Fill(b, []byte{1, 0, 0, 0}, 0, 64)
	require.NoError(t, err)
	ev, err := q.Launch(k, 16, 16, b, uint32(41))
	require.NoError(t, err)
	require.NoError(t, ev.Release())
	out := make([]byte, 64)
	_, err = q.Read(b, 0, out, true)
	require.NoError(t, err)
	for i := range 16 {
		require.Equal(t, uint32(42), binary.LittleEndian.Uint32(out[4*i:]))
	}
	_, err = q.Launch(k, 16, 16, b, "bad")
	require.ErrorContains(t, err, "unsupported type")
	_, err = p.Kernel("nope")
	require.ErrorContains(t, err, "clCreateKernel: CL_INVALID_KERNEL_NAME")

	_, err = d.BuildSource("__kernel void broken(__global uint *x) { x[0] = undefined_symbol_q; }", "")
	var ce *cl.Error
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "clBuildProgram", ce.Call)
	require.Contains(t, err.Error(), "clBuildProgram: CL_BUILD_PROGRAM_FAILURE")
	require.Contains(t, ce.Log, "undefined_symbol_q")
}
