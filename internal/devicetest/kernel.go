package devicetest

import (
	"bytes"
	"testing"

	"github.com/gpucrypto/gpucrypto/device"
)

// RunKernel builds src on d and runs its kernel name over global
// work-items (in work-groups of the driver's choice), waits for it and
// returns its output: the kernel's first argument, a buffer of outBytes
// bytes set to all ones beforehand, so that a result the kernel never
// wrote cannot pass for zeros. Each []byte among args is uploaded into a
// buffer of its own; the other arguments (scalars, buffers) pass as they
// are. It ends the test on any error.
func RunKernel(tb testing.TB, d *device.Device, src device.Source, name string, global, outBytes int, args ...any) []byte {
	tb.Helper()
	prog, err := d.Program(src)
	if err != nil {
		tb.Fatalf("building %s: %v", src.Name, err)
	}
	kern, err := prog.Kernel(name)
	if err != nil {
		tb.Fatal(err)
	}
	output, err := d.Upload(bytes.Repeat([]byte{0xff}, max(outBytes, 1)))
	if err != nil {
		tb.Fatal(err)
	}
	defer output.Release()
	launch := []any{output}
	for _, a := range args {
		if b, ok := a.([]byte); ok {
			buf, err := d.Upload(b)
			if err != nil {
				tb.Fatal(err)
			}
			defer buf.Release()
			a = buf
		}
		launch = append(launch, a)
	}
	ev, err := kern.Launch(global, 0, launch...)
	if err != nil {
		tb.Fatalf("launching %s: %v", name, err)
	}
	if err := ev.Release(); err != nil { // waits
		tb.Fatal(err)
	}
	out := make([]byte, outBytes)
	if err := output.Read(0, out); err != nil {
		tb.Fatal(err)
	}
	return out
}
