package cl

import (
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// BenchmarkDriverCall is the host cost of one driver call on a hot path:
// clGetEventInfo of a completed event's status and clSetKernelArg of a
// uint32, through the package's binding ("binding") and, for comparison,
// through a purego.RegisterFunc binding of the same symbol ("registerfunc",
// reflection on every call: how the package bound every call before).
func BenchmarkDriverCall(b *testing.B) {
	devs, err := Devices()
	if err != nil {
		b.Skipf("no OpenCL device: %v", err)
	}
	d := devs[0]
	p, err := d.BuildSource(`__kernel void k(__global uint *x, const uint a) { x[0] = a; }`, "")
	if err != nil {
		b.Fatal(err)
	}
	defer p.Release()
	k, err := p.Kernel("k")
	if err != nil {
		b.Fatal(err)
	}
	q, err := d.Queue()
	if err != nil {
		b.Fatal(err)
	}
	buf, err := d.NewBuffer(64)
	if err != nil {
		b.Fatal(err)
	}
	defer buf.Release()
	ev, err := q.Launch(k, 1, 1, buf, uint32(1))
	if err != nil {
		b.Fatal(err)
	}
	defer ev.Release()
	if err := ev.Wait(); err != nil {
		b.Fatal(err)
	}

	handle, err := purego.Dlopen(lib.path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		b.Fatal(err)
	}
	var old struct {
		GetEventInfo func(e uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
		SetKernelArg func(k uintptr, index uint32, size uintptr, value unsafe.Pointer) int32
	}
	for name, fn := range map[string]any{"clGetEventInfo": &old.GetEventInfo, "clSetKernelArg": &old.SetKernelArg} {
		sym, err := purego.Dlsym(handle, name)
		if err != nil {
			b.Fatal(err)
		}
		purego.RegisterFunc(fn, sym)
	}

	// the values live on the heap, as on the package's hot paths (a
	// pointer into the stack would move its variable there)
	status, arg := new(int32), new(uint32)
	const execStatus = 0x11D3
	for _, c := range []struct {
		name string
		call func() int32
	}{
		{"GetEventInfo/registerfunc", func() int32 { return old.GetEventInfo(ev.ev, execStatus, 4, unsafe.Pointer(status), nil) }},
		{"GetEventInfo/binding", func() int32 { return lib.GetEventInfo(ev.ev, execStatus, 4, unsafe.Pointer(status), nil) }},
		{"SetKernelArg/registerfunc", func() int32 { return old.SetKernelArg(k.k, 1, 4, unsafe.Pointer(arg)) }},
		{"SetKernelArg/binding", func() int32 { return lib.SetKernelArg(k.k, 1, 4, unsafe.Pointer(arg)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if st := c.call(); st != Success {
					b.Fatalf("status %s", StatusName(st))
				}
			}
		})
	}
}
