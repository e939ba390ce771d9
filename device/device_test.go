package device_test

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// dialect is the part of kernels/dialect.h the test kernels need: they
// compile as OpenCL C and as CUDA C.
const dialect = `
#if defined(__CUDACC__)
typedef unsigned int uint;
#define KERNEL extern "C" __global__
#define GLOBAL
#define GID() (blockIdx.x * blockDim.x + threadIdx.x)
#define LID() threadIdx.x
#define BARRIER() __syncthreads()
extern __shared__ __align__(16) unsigned char test_shared[];
#define LOCAL_ARG(T, name) const uint name##_offset
#define LOCAL_BIND(T, name) T *name = (T *)(test_shared + name##_offset)
#else
#define KERNEL __kernel
#define GLOBAL __global
#define GID() get_global_id(0)
#define LID() get_local_id(0)
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define LOCAL_ARG(T, name) __local T *name
#define LOCAL_BIND(T, name) do { } while (0)
#endif
`

func source(name, body string, defines map[string]string) device.Source {
	return device.Source{Name: name, Defines: defines, Text: func() (string, error) { return dialect + body, nil }}
}

const scaleSrc = `
KERNEL void scale(GLOBAL uint *x, const uint k, const uint n) {
	uint i = GID();
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

func TestEnumerate(t *testing.T) {
	d := devicetest.Device(t)
	devs, err := device.Devices()
	require.NoError(t, err)
	require.NotEmpty(t, devs)
	require.Same(t, devs[d.Index], d)
	for i, x := range devs {
		require.Equal(t, i, x.Index)
		require.NotEmpty(t, x.Name)
		require.Contains(t, device.Backends(), x.Backend)
		require.Positive(t, x.ComputeUnits)
		require.NotZero(t, x.GlobalMem)
		require.NotZero(t, x.MaxAlloc)
		require.Positive(t, x.MaxGroup)
		require.GreaterOrEqual(t, x.MaxSharedMem, x.SharedMem)
		t.Logf("%s vendor=%s driver=%s runtime=%s compiler=%s class=%s fp64=%v carry chains=%v",
			x, x.Vendor, x.DriverVersion, x.Runtime, x.Compiler, x.Class, x.FP64, x.CarryChains)
	}
	s, err := device.Select("0")
	require.NoError(t, err)
	require.Same(t, devs[0], s)
	_, err = device.Select("99")
	require.ErrorContains(t, err, "out of range")
	_, err = device.Select("no-such-device-xyz")
	require.ErrorContains(t, err, "no device matches")
	n, err := device.Select(strings.ToUpper(devs[0].Name[:3]))
	require.NoError(t, err)
	require.NotNil(t, n)
	b, err := device.Select(d.Backend)
	require.NoError(t, err)
	require.Equal(t, d.Backend, b.Backend)
}

func roundTrip(t *testing.T, d *device.Device, size int) {
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
	require.NoError(t, b.Fill([]byte{0x77}, 101, 3))
	require.NoError(t, b.Fill([]byte{0x55, 0x66}, 200, 4))
	dst := make([]byte, 1024)
	ev, err = b.ReadAsync(0, dst)
	require.NoError(t, err)
	require.NoError(t, ev.Release())
	want := append([]byte(nil), src...)
	for i := 16; i < 48; i += 4 {
		copy(want[i:], []byte{0xab, 0xcd, 0xef, 0x01})
	}
	copy(want[101:], []byte{0x77, 0x77, 0x77})
	copy(want[200:], []byte{0x55, 0x66, 0x55, 0x66})
	require.Equal(t, want, dst)
	require.NoError(t, b.Zero())
	require.NoError(t, b.Read(0, dst))
	require.Equal(t, make([]byte, 1024), dst)
	require.ErrorContains(t, b.Fill([]byte{1, 2, 3}, 0, 3), "pattern")
	require.ErrorContains(t, b.Fill([]byte{1, 2}, 1, 2), "multiples")
	require.ErrorContains(t, b.Fill(make([]byte, 8), 0, 8), "pattern")
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

func TestKernelLaunch(t *testing.T) {
	d := devicetest.Device(t)
	p, err := d.Program(source("scale.cl", scaleSrc, nil))
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
	info, err := k.Info()
	require.NoError(t, err)
	require.Positive(t, info.MaxGroup)
	_, err = k.Launch(n, 64, b, "bad", uint32(n))
	require.ErrorContains(t, err, "unsupported type")
	_, err = k.Launch(0, 64, b, uint32(1), uint32(n))
	require.ErrorContains(t, err, "global size")
	_, err = k.Launch(n, d.MaxGroup+1, b, uint32(1), uint32(n))
	require.ErrorContains(t, err, "work-group size")
	_, err = p.Kernel("nope")
	require.ErrorContains(t, err, "nope")
}

// Local memory: each work-group reverses its slice of x through a local
// buffer given as a kernel argument (LOCAL_ARG / LOCAL_BIND).
func TestLocalMemory(t *testing.T) {
	d := devicetest.Device(t)
	p, err := d.Program(source("reverse.cl", `
KERNEL void reverse(GLOBAL uint *x, LOCAL_ARG(uint, tmp), const uint group) {
	LOCAL_BIND(uint, tmp);
	uint l = LID();
	tmp[l] = x[GID()];
	BARRIER();
	x[GID()] = tmp[group - 1 - l];
}
`, nil))
	require.NoError(t, err)
	k, err := p.Kernel("reverse")
	require.NoError(t, err)
	const group, n = 64, 1024
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i * 7)
	}
	b, err := d.Upload(device.Uint32Bytes(in))
	require.NoError(t, err)
	defer b.Release()
	ev, err := k.Launch(n, group, b, device.Local(4*group), uint32(group))
	require.NoError(t, err)
	require.NoError(t, ev.Release())
	out := make([]uint32, n)
	require.NoError(t, b.Read(0, device.Uint32Bytes(out)))
	for i := range out {
		g, l := i/group, i%group
		require.Equal(t, in[g*group+group-1-l], out[i], "element %d", i)
	}
	_, err = k.Launch(n, group, b, device.Local(int(d.MaxSharedMem)+1), uint32(group))
	require.ErrorContains(t, err, "local memory")
}

func TestBuildErrorHasLog(t *testing.T) {
	d := devicetest.Device(t)
	t.Setenv(device.EnvNoCache, "1")
	_, err := d.Build(source("broken.cl", "KERNEL void broken(GLOBAL uint *x) { x[0] = undefined_symbol_q; }", nil))
	require.Error(t, err)
	require.ErrorContains(t, err, "broken.cl")
	require.ErrorContains(t, err, "undefined_symbol_q", "the build log names the offending identifier")
	require.False(t, errors.Is(err, device.ErrDeviceLost))
}

func TestBuildDefines(t *testing.T) {
	d := devicetest.Device(t)
	src := source("defines.cl", `KERNEL void k(GLOBAL uint *x) { x[0] = VALUE + (FLAG ? 1 : 0); }`,
		map[string]string{"VALUE": "41", "FLAG": "1"})
	p, err := d.Program(src)
	require.NoError(t, err)
	require.Contains(t, p.Options, "-DVALUE=41")
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

// Program keeps built programs by name, definitions and flags: the text is
// generated once, and other definitions give another program.
func TestProgramReuse(t *testing.T) {
	d := devicetest.Device(t)
	calls := 0
	src := device.Source{Name: "reuse.cl", Defines: map[string]string{"A": "1"}, Text: func() (string, error) {
		calls++
		return dialect + scaleSrc, nil
	}}
	p1, err := d.Program(src)
	require.NoError(t, err)
	p2, err := d.Program(src)
	require.NoError(t, err)
	require.Same(t, p1, p2)
	require.Equal(t, 1, calls)
	src.Defines = map[string]string{"A": "2"}
	p3, err := d.Program(src)
	require.NoError(t, err)
	require.NotSame(t, p1, p3)
	require.Equal(t, 2, calls)
	_, err = d.Program(device.Source{Name: "textless.cl"})
	require.ErrorContains(t, err, "no source")
	_, err = d.Program(device.Source{Name: "failing.cl", Text: func() (string, error) { return "", errors.New("generator failed") }})
	require.ErrorContains(t, err, "generator failed")
}

// Distinct programs build at once from concurrent calls: each Text
// below waits until every build has begun, which a device building one
// program at a time would never reach. Concurrent calls for one program
// build it once; a failed build is not kept.
func TestProgramsBuildInParallel(t *testing.T) {
	d := devicetest.Device(t)
	const builds = 3
	var begun sync.WaitGroup
	begun.Add(builds)
	allBegun := make(chan struct{})
	go func() { begun.Wait(); close(allBegun) }()
	var texts atomic.Int32
	sources := make([]device.Source, builds)
	for i := range sources {
		sources[i] = device.Source{Name: "parallel.cl", Defines: map[string]string{"BUILD": fmt.Sprint(i)}, Text: func() (string, error) {
			texts.Add(1)
			begun.Done()
			select {
			case <-allBegun:
				return dialect + scaleSrc, nil
			case <-time.After(20 * time.Second):
				return "", errors.New("the other builds never began: builds are serialized")
			}
		}}
	}
	programs := make([]*device.Program, 2*builds)
	errs := make([]error, 2*builds)
	var done sync.WaitGroup
	for i := range programs {
		done.Add(1)
		go func() {
			defer done.Done()
			programs[i], errs[i] = d.Program(sources[i%builds])
		}()
	}
	done.Wait()
	for i := range programs {
		require.NoError(t, errs[i], "call %d", i)
		require.Same(t, programs[i%builds], programs[i], "call %d", i)
	}
	require.EqualValues(t, builds, texts.Load(), "one build a program")

	failures := 0
	failing := device.Source{Name: "flaky.cl", Text: func() (string, error) {
		if failures++; failures == 1 {
			return "", errors.New("generator failed once")
		}
		return dialect + scaleSrc, nil
	}}
	_, err := d.Program(failing)
	require.ErrorContains(t, err, "generator failed once")
	_, err = d.Program(failing)
	require.NoError(t, err, "a failed build is tried again")
}

func checkAdds5(t *testing.T, d *device.Device, p *device.Program) {
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
	_, err = k.Launch(16, 16, b)
	require.NoError(t, err)
	require.NoError(t, b.Read(0, in))
	for i, v := range u32s(in) {
		require.Equal(t, uint32(i*100+5), v)
	}
}

func TestProgramCache(t *testing.T) {
	d := devicetest.Device(t)
	dir := t.TempDir()
	t.Setenv(device.EnvCacheDir, dir)
	// A source unique to this run, so no earlier entry can exist.
	uniq := make([]byte, 8)
	rand.Read(uniq)
	body := fmt.Sprintf("/* %x */\nKERNEL void k(GLOBAL uint *x) { x[GID()] += 5; }", uniq)
	src := source("cached.cl", body, nil)
	entries := func() []string {
		var names []string
		list, _ := os.ReadDir(dir)
		for _, e := range list {
			if strings.HasSuffix(e.Name(), ".bin") {
				names = append(names, e.Name())
			}
		}
		return names
	}

	p1, err := d.Build(src)
	require.NoError(t, err)
	require.Equal(t, device.CacheMiss, p1.Cache)
	stored := entries()
	require.Len(t, stored, 1, "a successful build is stored")
	entry := filepath.Join(dir, stored[0])
	checkAdds5(t, d, p1)

	p2, err := d.Build(src)
	require.NoError(t, err)
	require.Equal(t, device.CacheHit, p2.Cache)
	checkAdds5(t, d, p2)

	// Other options, other entry.
	p3, err := d.Build(source("cached.cl", body, map[string]string{"X": "1"}))
	require.NoError(t, err)
	require.Equal(t, device.CacheMiss, p3.Cache)
	require.Len(t, entries(), 2)

	// Corrupt the entry: one flipped byte in the payload.
	data, err := os.ReadFile(entry)
	require.NoError(t, err)
	data[len(data)-1] ^= 0xff
	require.NoError(t, os.WriteFile(entry, data, 0o600))
	p4, err := d.Build(src)
	require.NoError(t, err)
	require.Equal(t, device.CacheCorrupt, p4.Cache)
	checkAdds5(t, d, p4)
	p5, err := d.Build(src)
	require.NoError(t, err)
	require.Equal(t, device.CacheHit, p5.Cache, "the rebuilt entry was written back")

	// Truncated entry.
	require.NoError(t, os.WriteFile(entry, data[:10], 0o600))
	p6, err := d.Build(src)
	require.NoError(t, err)
	require.Equal(t, device.CacheCorrupt, p6.Cache)

	// A failed build stores nothing.
	before := entries()
	_, err = d.Build(source("broken.cl", "KERNEL void k( { }", nil))
	require.Error(t, err)
	require.Equal(t, before, entries())
	list, _ := os.ReadDir(dir)
	for _, e := range list {
		require.False(t, strings.HasPrefix(e.Name(), ".tmp-"), "no temporary file left behind")
	}

	// Disabled.
	t.Setenv(device.EnvNoCache, "1")
	require.Equal(t, "", device.CacheDir())
	p7, err := d.Build(src)
	require.NoError(t, err)
	require.Equal(t, device.CacheDisabled, p7.Cache)
	checkAdds5(t, d, p7)
}

func TestConcurrentUse(t *testing.T) {
	d := devicetest.Device(t)
	p, err := d.Program(source("inc.cl", `KERNEL void inc(GLOBAL uint *x, uint k, uint n) {
		uint i = GID(); if (i < n) x[i] = x[i] * 3u + k; }`, nil))
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
				if _, err := k.Launch(n, 64, b, uint32(g), uint32(n)); err != nil {
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

// Two queues: commands of each run in order; WaitFor orders one queue
// behind another's event.
func TestQueues(t *testing.T) {
	d := devicetest.Device(t)
	p, err := d.Program(source("scale.cl", scaleSrc, nil))
	require.NoError(t, err)
	k, err := p.Kernel("scale")
	require.NoError(t, err)
	q1, err := d.NewQueue()
	require.NoError(t, err)
	defer q1.Release()
	q2, err := d.NewQueue()
	require.NoError(t, err)
	defer q2.Release()
	const n = 4096
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i)
	}
	b, err := d.NewBuffer(4 * n)
	require.NoError(t, err)
	defer b.Release()
	w, err := q1.Write(b, 0, device.Uint32Bytes(in))
	require.NoError(t, err)
	k1, err := q1.Launch(k, n, 64, b, uint32(3), uint32(n)) // x·3 + i
	require.NoError(t, err)
	require.NoError(t, q2.WaitFor(k1))
	k2, err := q2.Launch(k, n, 64, b, uint32(5), uint32(n)) // (x·3 + i)·5 + i
	require.NoError(t, err)
	out := make([]uint32, n)
	r, err := q2.Read(b, 0, device.Uint32Bytes(out))
	require.NoError(t, err)
	require.NoError(t, r.Wait())
	for i, v := range out {
		require.Equal(t, uint32((3*i+i)*5+i), v, "element %d", i)
	}
	for _, ev := range []*device.Event{w, k1, k2, r} {
		require.NoError(t, ev.Release())
	}
	require.NoError(t, q1.Finish())
}

func TestPool(t *testing.T) {
	d := devicetest.Device(t)
	pool := d.NewPool(0)
	defer pool.Drain()
	l := pool.Lease(nil)
	secret, err := l.Upload([]uint32{1, 2, 3, 4, 5}, true)
	require.NoError(t, err)
	public, err := l.Upload([]uint32{6, 7, 8}, false)
	require.NoError(t, err)
	require.GreaterOrEqual(t, secret.Size(), 20)
	_, err = l.Buffer(0, false)
	require.Error(t, err)
	require.NoError(t, l.Release())
	require.NoError(t, l.Release()) // idempotent
	_, err = l.Buffer(4, false)
	require.ErrorContains(t, err, "after Release")
	count, bytes := pool.Idle()
	require.Equal(t, 2, count)
	require.Positive(t, bytes)
	// the secret buffer came back zeroed; the public one as it was
	idle, err := pool.IdleContents()
	require.NoError(t, err)
	zeros, kept := 0, 0
	for _, b := range idle {
		if bytes := b[:12]; binary.LittleEndian.Uint32(bytes) == 6 {
			kept++
		} else if !slices0(b) {
			t.Fatalf("an idle buffer holds %x", b[:20])
		} else {
			zeros++
		}
	}
	require.Equal(t, 1, zeros)
	require.Equal(t, 1, kept)
	// the next lease reuses them: no new allocation
	l2 := pool.Lease(nil)
	b1, err := l2.Buffer(20, true)
	require.NoError(t, err)
	b2, err := l2.Buffer(12, true)
	require.NoError(t, err)
	require.True(t, (b1 == secret || b1 == public) && (b2 == secret || b2 == public) && b1 != b2)
	require.NoError(t, l2.Release())
	pool.Drain()
	count, _ = pool.Idle()
	require.Zero(t, count)
	require.ErrorContains(t, b1.Write(0, []byte{1}), "released")
}

func slices0(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// A pool with an idle time frees what no batch used for that long.
func TestPoolIdleRelease(t *testing.T) {
	d := devicetest.Device(t)
	pool := d.NewPool(500 * time.Millisecond) // no stall between Release and Idle frees it first
	l := pool.Lease(nil)
	_, err := l.Buffer(100, true)
	require.NoError(t, err)
	require.NoError(t, l.Release())
	count, _ := pool.Idle()
	require.Equal(t, 1, count)
	require.Eventually(t, func() bool { c, _ := pool.Idle(); return c == 0 }, 5*time.Second, 10*time.Millisecond)
}

func TestHostAlloc(t *testing.T) {
	d := devicetest.Device(t)
	h, err := d.HostAlloc(1 << 16)
	require.NoError(t, err)
	rand.Read(h.Bytes)
	want := append([]byte(nil), h.Bytes...)
	b, err := d.Upload(h.Bytes)
	require.NoError(t, err)
	defer b.Release()
	clear(h.Bytes)
	require.NoError(t, b.Read(0, h.Bytes))
	require.Equal(t, want, h.Bytes)
	require.NoError(t, h.Free())
	require.NoError(t, h.Free())
	_, err = d.HostAlloc(0)
	require.Error(t, err)
}

// A kernel keeps its program alive: dropping every reference to the
// Program and collecting garbage must not release the kernel under a
// caller that still holds it.
func TestKernelOutlivesProgramReference(t *testing.T) {
	d := devicetest.Device(t)
	t.Setenv(device.EnvNoCache, "1")
	k := func() *device.Kernel {
		p, err := d.Build(source("outlive.cl", `KERNEL void k(GLOBAL uint *x) { x[GID()] += 5u; }`, nil))
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
	ev, err := k.Launch(16, 16, b)
	require.NoError(t, err)
	require.NoError(t, ev.Wait())
	require.NoError(t, b.Read(0, in))
	for _, v := range u32s(in) {
		require.Equal(t, uint32(5), v)
	}
}
