package cl_test

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/cl"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

func TestEnumerate(t *testing.T) {
	d := devicetest.Device(t)
	devs, err := cl.Devices()
	require.NoError(t, err)
	require.NotEmpty(t, devs)
	require.Same(t, devs[d.Index], d)
	for _, x := range devs {
		require.NotEmpty(t, x.Name)
		require.NotZero(t, x.ComputeUnits)
		require.NotZero(t, x.GlobalMem)
		require.NotZero(t, x.MaxAlloc)
		require.Positive(t, x.MaxWorkGroup)
		t.Logf("%s vendor=%s driver=%s %s class=%s fp64=%v subgroups=%v ptx=%v",
			x, x.Vendor, x.DriverVersion, x.CVersion, x.Class, x.FP64, x.Subgroups, x.InlinePTX())
	}
	s, err := cl.Select("0")
	require.NoError(t, err)
	require.Same(t, devs[0], s)
	_, err = cl.Select("99")
	require.ErrorContains(t, err, "out of range")
	_, err = cl.Select("no-such-device-xyz")
	require.ErrorContains(t, err, "no device matches")
	n, err := cl.Select(strings.ToUpper(devs[0].Name[:3]))
	require.NoError(t, err)
	require.NotNil(t, n)
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
		if _, err := cl.Default(); err == nil {
			t.Fatal("Default succeeded without a library")
		}
		return
	}
	out, err := runChild(t, "TestMissingLibrary", cl.EnvLibrary+"=/nonexistent/libOpenCL.so.1")
	require.NoError(t, err, out)
}

func roundTrip(t *testing.T, d *cl.Device, size int) {
	b, err := d.NewBuffer(size)
	require.NoError(t, err)
	defer b.Release()
	src := make([]byte, size)
	rand.Read(src)
	require.NoError(t, b.Write(0, src))
	dst := make([]byte, size)
	require.NoError(t, b.Read(0, dst))
	require.True(t, bytes.Equal(src, dst), "size %d", size)
	if size > 3 {
		// A partial write at an odd offset lands exactly there.
		patch := []byte{0xde, 0xad, 0xbe}
		require.NoError(t, b.Write(1, patch))
		got := make([]byte, 3)
		require.NoError(t, b.Read(1, got))
		require.Equal(t, patch, got)
		require.NoError(t, b.Read(0, dst[:1]))
		require.Equal(t, src[0], dst[0])
	}
}

func TestBufferRoundTrip(t *testing.T) {
	d := devicetest.Device(t)
	for _, size := range []int{1, 3, 7, 31, 1000, 4097, 65537, 1<<20 + 13} {
		roundTrip(t, d, size)
	}
}

func TestBufferAsyncAndFill(t *testing.T) {
	d := devicetest.Device(t)
	b, err := d.NewBuffer(1024)
	require.NoError(t, err)
	defer b.Release()
	src := bytes.Repeat([]byte{1, 2, 3, 4}, 256)
	ev, err := b.WriteAsync(0, src)
	require.NoError(t, err)
	require.NoError(t, ev.Wait())
	require.NoError(t, ev.Release())
	require.NoError(t, b.Fill([]byte{0xab, 0xcd, 0xef, 0x01}, 16, 32))
	dst := make([]byte, 1024)
	ev, err = b.ReadAsync(0, dst)
	require.NoError(t, err)
	require.NoError(t, ev.Release())
	want := append([]byte(nil), src...)
	for i := 16; i < 48; i += 4 {
		copy(want[i:], []byte{0xab, 0xcd, 0xef, 0x01})
	}
	require.Equal(t, want, dst)
	require.NoError(t, b.Zero())
	require.NoError(t, b.Read(0, dst))
	require.Equal(t, make([]byte, 1024), dst)
	require.ErrorContains(t, b.Fill([]byte{1, 2, 3}, 0, 3), "pattern")
	require.ErrorContains(t, b.Fill([]byte{1, 2}, 1, 2), "multiples")
}

func TestBufferBadSizes(t *testing.T) {
	d := devicetest.Device(t)
	_, err := d.NewBuffer(0)
	require.ErrorContains(t, err, "at least one byte")
	_, err = d.NewBuffer(-5)
	require.Error(t, err)
	_, err = d.NewBuffer(int(d.MaxAlloc) + 1)
	require.ErrorContains(t, err, "largest allocation")
	b, err := d.NewBuffer(16)
	require.NoError(t, err)
	require.ErrorContains(t, b.Write(10, make([]byte, 7)), "outside a buffer of 16 bytes")
	require.ErrorContains(t, b.Read(-1, make([]byte, 1)), "outside")
	require.ErrorContains(t, b.Read(16, make([]byte, 1)), "outside")
	require.NoError(t, b.Release())
	require.NoError(t, b.Release())
	require.ErrorContains(t, b.Write(0, []byte{1}), "released")
}

const scaleSrc = `
__kernel void scale(__global uint *x, const uint k, const uint n) {
	uint i = get_global_id(0);
	if (i < n) x[i] = x[i] * k + i;
}
`

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func TestKernelLaunch(t *testing.T) {
	d := devicetest.Device(t)
	p, err := d.Program(scaleSrc, cl.BuildOptions{})
	require.NoError(t, err)
	k, err := p.Kernel("scale")
	require.NoError(t, err)
	const n = 1000
	b, err := d.NewBuffer(4 * n)
	require.NoError(t, err)
	defer b.Release()
	host := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(host[4*i:], uint32(3*i))
	}
	require.NoError(t, b.Write(0, host))
	ev, err := k.Launch(n, 64, b, uint32(7), uint32(n))
	require.NoError(t, err)
	dur, err := ev.Duration()
	require.NoError(t, err)
	require.Positive(t, int64(dur))
	require.NoError(t, b.Read(0, host))
	for i, v := range u32s(host) {
		require.Equal(t, uint32(3*i*7+i), v, "element %d", i)
	}
	_, err = k.Launch(n, 64, b, "bad", uint32(n))
	require.ErrorContains(t, err, "unsupported type")
	_, err = k.Launch(0, 64, b, uint32(1), uint32(n))
	require.ErrorContains(t, err, "global size")
	_, err = p.Kernel("nope")
	require.ErrorContains(t, err, "clCreateKernel: CL_INVALID_KERNEL_NAME")
}

func TestBuildErrorHasLog(t *testing.T) {
	d := devicetest.Device(t)
	t.Setenv(cl.EnvNoCache, "1")
	_, err := d.Build("__kernel void broken(__global uint *x) { x[0] = undefined_symbol_q; }", cl.BuildOptions{})
	require.Error(t, err)
	var ce *cl.Error
	require.True(t, errors.As(err, &ce))
	require.Equal(t, "clBuildProgram", ce.Call)
	require.Contains(t, err.Error(), "clBuildProgram: CL_BUILD_PROGRAM_FAILURE")
	require.Contains(t, ce.Log, "undefined_symbol_q", "the build log names the offending identifier")
	require.Contains(t, err.Error(), "build log")
}

func TestBuildDefines(t *testing.T) {
	d := devicetest.Device(t)
	src := `__kernel void k(__global uint *x) { x[0] = VALUE + (FLAG ? 1 : 0); }`
	p, err := d.Program(src, cl.BuildOptions{Defines: map[string]string{"VALUE": "41", "FLAG": "1"}})
	require.NoError(t, err)
	k, err := p.Kernel("k")
	require.NoError(t, err)
	b, err := d.NewBuffer(4)
	require.NoError(t, err)
	defer b.Release()
	_, err = k.Launch(1, 1, b)
	require.NoError(t, err)
	out := make([]byte, 4)
	require.NoError(t, b.Read(0, out))
	require.Equal(t, uint32(42), binary.LittleEndian.Uint32(out))
}

func TestProgramCache(t *testing.T) {
	d := devicetest.Device(t)
	dir := t.TempDir()
	t.Setenv(cl.EnvCacheDir, dir)
	// A source unique to this run, so no earlier entry can exist.
	uniq := make([]byte, 8)
	rand.Read(uniq)
	src := "/* " + string(bytes.ToUpper([]byte(strings.TrimSpace(string(hexs(uniq)))))) + " */\n" +
		`__kernel void k(__global uint *x) { x[get_global_id(0)] += 5; }`

	p1, err := d.Build(src, cl.BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, cl.CacheMiss, p1.Cache)
	entry := filepath.Join(dir, p1.Key+".bin")
	info, err := os.Stat(entry)
	require.NoError(t, err, "a successful build is stored")
	require.Positive(t, info.Size())
	checkAdds5(t, d, p1)

	p2, err := d.Build(src, cl.BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, cl.CacheHit, p2.Cache)
	require.Equal(t, p1.Key, p2.Key)
	checkAdds5(t, d, p2)

	// Other options, other key.
	p3, err := d.Build(src, cl.BuildOptions{Defines: map[string]string{"X": "1"}})
	require.NoError(t, err)
	require.Equal(t, cl.CacheMiss, p3.Cache)
	require.NotEqual(t, p1.Key, p3.Key)

	// Corrupt the entry: one flipped byte in the payload.
	data, err := os.ReadFile(entry)
	require.NoError(t, err)
	data[len(data)-1] ^= 0xff
	require.NoError(t, os.WriteFile(entry, data, 0o600))
	p4, err := d.Build(src, cl.BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, cl.CacheCorrupt, p4.Cache)
	checkAdds5(t, d, p4)
	p5, err := d.Build(src, cl.BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, cl.CacheHit, p5.Cache, "the rebuilt entry was written back")

	// Truncated entry.
	require.NoError(t, os.WriteFile(entry, data[:10], 0o600))
	p6, err := d.Build(src, cl.BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, cl.CacheCorrupt, p6.Cache)

	// A failed build stores nothing.
	before, _ := os.ReadDir(dir)
	_, err = d.Build("__kernel void k( { }", cl.BuildOptions{})
	require.Error(t, err)
	after, _ := os.ReadDir(dir)
	require.Equal(t, len(before), len(after))
	for _, e := range after {
		require.False(t, strings.HasPrefix(e.Name(), ".tmp-"), "no temporary file left behind")
	}

	// Disabled.
	t.Setenv(cl.EnvNoCache, "1")
	require.Equal(t, "", cl.CacheDir())
	p7, err := d.Build(src, cl.BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, cl.CacheDisabled, p7.Cache)
	checkAdds5(t, d, p7)
}

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func checkAdds5(t *testing.T, d *cl.Device, p *cl.Program) {
	t.Helper()
	k, err := p.Kernel("k")
	require.NoError(t, err)
	b, err := d.NewBuffer(64)
	require.NoError(t, err)
	defer b.Release()
	in := make([]byte, 64)
	for i := range 16 {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(i*100))
	}
	require.NoError(t, b.Write(0, in))
	_, err = k.Launch(16, 0, b)
	require.NoError(t, err)
	require.NoError(t, b.Read(0, in))
	for i, v := range u32s(in) {
		require.Equal(t, uint32(i*100+5), v)
	}
}

func TestConcurrentUse(t *testing.T) {
	d := devicetest.Device(t)
	p, err := d.Program(`__kernel void inc(__global uint *x, uint k, uint n) {
		uint i = get_global_id(0); if (i < n) x[i] = x[i] * 3u + k; }`, cl.BuildOptions{})
	require.NoError(t, err)
	k, err := p.Kernel("inc")
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 257 + 31*g
			b, err := d.NewBuffer(4 * n)
			if err != nil {
				errs <- err
				return
			}
			defer b.Release()
			host := make([]byte, 4*n)
			for iter := range 20 {
				for i := range n {
					binary.LittleEndian.PutUint32(host[4*i:], uint32(i+g*1000+iter))
				}
				if err := b.Write(0, host); err != nil {
					errs <- err
					return
				}
				if _, err := k.Launch(n, 0, b, uint32(g), uint32(n)); err != nil {
					errs <- err
					return
				}
				if err := b.Read(0, host); err != nil {
					errs <- err
					return
				}
				for i, v := range u32s(host) {
					if want := uint32(i+g*1000+iter)*3 + uint32(g); v != want {
						errs <- errors.New("wrong result under concurrency")
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// A kernel keeps its program alive: dropping every reference to the Program
// and collecting garbage must not release the kernel under a caller that
// still holds it (the bug behind a CI failure of TestProgramCache).
func TestKernelOutlivesProgramReference(t *testing.T) {
	d := devicetest.Device(t)
	t.Setenv(cl.EnvNoCache, "1")
	k := func() *cl.Kernel {
		p, err := d.Build(`__kernel void k(__global uint *x) { x[get_global_id(0)] += 5u; }`, cl.BuildOptions{})
		require.NoError(t, err)
		k, err := p.Kernel("k")
		require.NoError(t, err)
		return k
	}()
	for range 3 {
		runtime.GC()
	}
	b, err := d.NewBuffer(64)
	require.NoError(t, err)
	defer b.Release()
	in := make([]byte, 64)
	require.NoError(t, b.Write(0, in))
	ev, err := k.Launch(16, 0, b)
	require.NoError(t, err)
	require.NoError(t, ev.Wait())
	require.NoError(t, b.Read(0, in))
	for _, v := range u32s(in) {
		require.Equal(t, uint32(5), v)
	}
}

func TestBuffersReleaseTogether(t *testing.T) {
	d := devicetest.Device(t)
	bufs := d.Buffers()
	a, err := bufs.New(16)
	require.NoError(t, err)
	b, err := bufs.Upload([]byte{1, 2, 3, 4})
	require.NoError(t, err)
	require.Same(t, b, bufs.Secret(b))
	require.Nil(t, bufs.Secret(nil))
	_, err = bufs.New(0)
	require.Error(t, err, "a failed allocation is not kept")
	bufs.Release()
	require.ErrorContains(t, a.Write(0, []byte{1}), "released")
	require.ErrorContains(t, b.Write(0, []byte{1}), "released")
	bufs.Release() // idempotent
}
