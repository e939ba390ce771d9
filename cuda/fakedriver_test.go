package cuda

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebitengine/purego"
)

// The indices of testdata/fakecuda.c's record.
const (
	recCtx = iota
	recLaunchF
	recGridX
	recGridY
	recGridZ
	recBlockX
	recBlockY
	recBlockZ
	recShared
	recLaunchStream
	recExtra
	recWaitStream
	recWaitEvent
	recWaitFlags
	recRecordEvent
	recRecordStream
	recQueries
	recNParams
	recEventFlags
	recMemsetStream
)

// fakeDriver builds testdata/fakecuda.c, a stand-in for libcuda with its C
// signatures, with the system's C compiler (the test skips without one)
// and opens it as the driver.
func fakeDriver(t testing.TB) (d *Driver, record func() [32]uint64, params func() [256]byte, expect func(sizes ...int32)) {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler to build the fake driver: %v", err)
	}
	if _, err := os.Stat("testdata/fakecuda.c"); err != nil {
		t.Skipf("no fake driver source (a test binary run outside its package): %v", err)
	}
	lib := filepath.Join(t.TempDir(), "libfakecuda.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-o", lib, "testdata/fakecuda.c").CombinedOutput(); err != nil {
		t.Fatalf("building the fake driver: %v\n%s", err, out)
	}
	d, reason, err := openDriverFile(lib)
	if d == nil {
		t.Fatalf("opening the fake driver: %s %v", reason, err)
	}
	var rec func(out *uint64)
	var par func(out *byte)
	var exp func(n int32, sizes *int32)
	purego.RegisterLibFunc(&rec, d.handle, "fake_record")
	purego.RegisterLibFunc(&par, d.handle, "fake_params")
	purego.RegisterLibFunc(&exp, d.handle, "fake_expect")
	record = func() (r [32]uint64) { rec(&r[0]); return }
	params = func() (p [256]byte) { par(&p[0]); return }
	expect = func(sizes ...int32) {
		sizes = append(sizes, 0) // no parameters: a valid pointer still
		exp(int32(len(sizes)-1), &sizes[0])
	}
	return d, record, params, expect
}

// TestFakeDriver runs the calls of commands and batches against the fake
// driver: each reaches the driver with its arguments in place and at
// their width (cuLaunchKernel's eleven, the copies' directions, the
// memsets' values), with the context current, and allocates nothing.
func TestFakeDriver(t *testing.T) {
	d, record, params, expect := fakeDriver(t)
	dev, err := d.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	s, err := ctx.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	stream := uint64(s.h.Load())

	// copies and memsets: device memory is the fake's host memory
	m, err := ctx.MemAlloc(64)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, 64)
	for i := range src {
		src[i] = byte(i + 1)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.CopyHtoD(m, 0, src))
	must(s.MemsetD8(m, 1, 0xAB, 3))
	must(s.MemsetD16(m, 8, 0xBEEF, 2))
	must(s.MemsetD32(m, 16, 0xDEADBEEF, 2))
	if r := record(); r[recMemsetStream] != stream || r[recCtx] != uint64(ctx.handle) {
		t.Errorf("memset on stream %#x with context %#x current; want %#x and %#x", r[recMemsetStream], r[recCtx], stream, ctx.handle)
	}
	dst := make([]byte, 60)
	must(s.CopyDtoH(dst, m, 4))
	want := append([]byte(nil), src...)
	copy(want[1:], []byte{0xAB, 0xAB, 0xAB})
	binary.LittleEndian.PutUint16(want[8:], 0xBEEF)
	binary.LittleEndian.PutUint16(want[10:], 0xBEEF)
	binary.LittleEndian.PutUint32(want[16:], 0xDEADBEEF)
	binary.LittleEndian.PutUint32(want[20:], 0xDEADBEEF)
	if !bytes.Equal(dst, want[4:]) {
		t.Errorf("copied back % x\nwant          % x", dst, want[4:])
	}

	// a launch: every argument of cuLaunchKernel, and the parameter values
	mod, err := ctx.LoadModule([]byte("fake ptx"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := mod.Function("k")
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	args := []any{m, uint32(0xFFFFFFFE), int32(-2), uint64(1<<40 + 3), int64(-3), float32(1.5), 2.25, raw}
	expect(8, 4, 4, 8, 8, 4, 8, 12)
	must(s.Launch(f, Dim3{X: 70000, Y: 2, Z: 3}, Dim3{X: 128}, 49152, args...))
	r := record()
	got := [...]uint64{r[recLaunchF], r[recGridX], r[recGridY], r[recGridZ], r[recBlockX], r[recBlockY], r[recBlockZ], r[recShared], r[recLaunchStream], r[recExtra]}
	if wantArgs := [...]uint64{uint64(f.h), 70000, 2, 3, 128, 1, 1, 49152, stream, 0}; got != wantArgs {
		t.Errorf("cuLaunchKernel(f, grid, block, shared, stream, extra) got %v, want %v", got, wantArgs)
	}
	var wantParams []byte
	wantParams = binary.LittleEndian.AppendUint64(wantParams, m.Ptr())
	wantParams = binary.LittleEndian.AppendUint32(wantParams, 0xFFFFFFFE)
	wantParams = binary.LittleEndian.AppendUint32(wantParams, uint32(0xFFFFFFFE))
	wantParams = binary.LittleEndian.AppendUint64(wantParams, 1<<40+3)
	wantParams = binary.LittleEndian.AppendUint64(wantParams, uint64(math.MaxUint64-2))
	wantParams = binary.LittleEndian.AppendUint32(wantParams, math.Float32bits(1.5))
	wantParams = binary.LittleEndian.AppendUint64(wantParams, math.Float64bits(2.25))
	wantParams = append(wantParams, raw...)
	if p := params(); !bytes.Equal(p[:len(wantParams)], wantParams) {
		t.Errorf("kernel parameters % x\nwant              % x", p[:len(wantParams)], wantParams)
	}
	expect()
	must(s.Launch(f, Dim3{}, Dim3{}, 0))
	if r := record(); r[recGridX] != 1 || r[recBlockX] != 1 || r[recShared] != 0 {
		t.Errorf("a launch without arguments: grid.X %d, block.X %d, shared %d", r[recGridX], r[recBlockX], r[recShared])
	}

	// events: record, wait, query (not ready, then ready), time, destroy
	start, err := ctx.NewEvent(EventDefault)
	if err != nil {
		t.Fatal(err)
	}
	end, err := ctx.NewEvent(EventBlockingSync | EventDisableTiming)
	if err != nil {
		t.Fatal(err)
	}
	if r := record(); r[recEventFlags] != EventBlockingSync|EventDisableTiming {
		t.Errorf("event flags %d", r[recEventFlags])
	}
	must(s.Record(end))
	if r := record(); r[recRecordEvent] != uint64(end.h.Load()) || r[recRecordStream] != stream {
		t.Errorf("cuEventRecord(%#x, %#x); want (%#x, %#x)", r[recRecordEvent], r[recRecordStream], end.h.Load(), stream)
	}
	must(s.WaitEvent(start))
	if r := record(); r[recWaitStream] != stream || r[recWaitEvent] != uint64(start.h.Load()) || r[recWaitFlags] != 0 {
		t.Errorf("cuStreamWaitEvent(%#x, %#x, %d); want (%#x, %#x, 0)", r[recWaitStream], r[recWaitEvent], r[recWaitFlags], stream, start.h.Load())
	}
	if done, err := end.Query(); done || err != nil {
		t.Errorf("first query: %v, %v; want not done", done, err)
	}
	if done, err := end.Query(); !done || err != nil {
		t.Errorf("second query: %v, %v; want done", done, err)
	}
	must(end.Synchronize())
	if el, err := ElapsedTime(start, end); el != 1500*time.Microsecond || err != nil {
		t.Errorf("ElapsedTime = %v, %v; want 1.5ms", el, err)
	}
	must(s.Synchronize())

	// no allocation on the hot paths (Launch's ...any boxed beforehand)
	allocs := map[string]func() error{
		"Record":      func() error { return s.Record(end) },
		"WaitEvent":   func() error { return s.WaitEvent(start) },
		"Query":       func() error { _, err := end.Query(); return err },
		"Synchronize": end.Synchronize,
		"ElapsedTime": func() error { _, err := ElapsedTime(start, end); return err },
		"CopyHtoD":    func() error { return s.CopyHtoD(m, 0, src) },
		"CopyDtoH":    func() error { return s.CopyDtoH(dst, m, 0) },
		"MemsetD32":   func() error { return s.MemsetD32(m, 0, 0, 16) },
		"Launch":      func() error { return s.Launch(f, Dim3{X: 1}, Dim3{X: 1}, 0, args...) },
	}
	if raceDetector {
		allocs = nil
	}
	for name, call := range allocs {
		expect(8, 4, 4, 8, 8, 4, 8, 12)
		if n := testing.AllocsPerRun(100, func() { must(call()) }); n != 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
	}

	must(start.Destroy())
	must(end.Destroy())
	must(mod.Unload())
	must(m.Free())
	must(s.Destroy())
	must(ctx.Release())
}

// BenchmarkFakeDriver is the host cost of the package's calls on hot paths
// against the fake driver, whose functions do next to nothing: the
// binding, Context.Do (a locked thread, cuCtxSetCurrent) and the checks.
func BenchmarkFakeDriver(b *testing.B) {
	d, _, _, expect := fakeDriver(b)
	dev, err := d.Device(0)
	if err != nil {
		b.Fatal(err)
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		b.Fatal(err)
	}
	s, err := ctx.NewStream(StreamNonBlocking)
	if err != nil {
		b.Fatal(err)
	}
	ev, err := ctx.NewEvent(EventDefault)
	if err != nil {
		b.Fatal(err)
	}
	m, err := ctx.MemAlloc(64)
	if err != nil {
		b.Fatal(err)
	}
	mod, err := ctx.LoadModule([]byte("fake ptx"))
	if err != nil {
		b.Fatal(err)
	}
	f, err := mod.Function("k")
	if err != nil {
		b.Fatal(err)
	}
	expect()
	args := []any{m, uint32(1), uint32(2), m, []byte{1, 2, 3, 4}}
	host := make([]byte, 64)
	for name, call := range map[string]func() error{
		"Record":   func() error { return s.Record(ev) },
		"Query":    func() error { _, err := ev.Query(); return err },
		"CopyHtoD": func() error { return s.CopyHtoD(m, 0, host) },
		"Launch":   func() error { return s.Launch(f, Dim3{X: 1024}, Dim3{X: 128}, 0, args...) },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := call(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
