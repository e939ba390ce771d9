//go:build cuda

package device

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/cuda"
)

// envRequireNVRTC makes the compile-only tests fail, instead of skip,
// when NVRTC is missing (CI sets it after scripts/fetch-nvrtc.sh).
const envRequireNVRTC = "GPUCRYPTO_REQUIRE_NVRTC"

func needCUDACompiler(t *testing.T, cc string) *Device {
	t.Helper()
	if _, err := cuda.LoadNVRTC(); err != nil {
		if os.Getenv(envRequireNVRTC) == "1" {
			t.Fatalf("%s=1 but NVRTC is missing: %v", envRequireNVRTC, err)
		}
		t.Skipf("NVRTC is missing (run scripts/fetch-nvrtc.sh and set %s): %v", cuda.EnvNVRTCDir, err)
	}
	d, err := CUDACompiler(cc)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// cudaTestSource needs the device's definitions and the program's own.
const cudaTestSource = `
#ifndef GPUCRYPTO_VENDOR_NVIDIA
#error the device definitions are missing
#endif
#ifndef DELTA
#error DELTA must be defined
#endif
extern "C" __global__ void add_delta(unsigned *x, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] += DELTA;
}
extern "C" __global__ void fma_free(const double *a, const double *b, const double *c, double *out, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = a[i] * b[i] + c[i];
}
`

func textOf(s string) func() (string, error) { return func() (string, error) { return s, nil } }

// Compute capabilities for the compile-only tests: with NVRTC 11.8, 9.0 is
// built as a CUBIN, 12.0 (unknown to it) as PTX for compute_90.
var cudaTestCapabilities = []string{"9.0", "12.0"}

func TestCUDACompilerBuild(t *testing.T) {
	for _, cc := range cudaTestCapabilities {
		t.Run(cc, func(t *testing.T) {
			t.Setenv(EnvNoCache, "1")
			d := needCUDACompiler(t, cc)
			c := d.drv.(*cudaDevice)
			t.Logf("%s: %s, target %s, %s", d.Name, d.Compiler, c.target, d.Platform)
			if d.Backend != "cuda" || d.Class != VendorNVIDIA || d.Type != TypeGPU || !d.FP64 ||
				d.ComputeCapability != cc || d.MaxGroup != 1024 || d.SharedMem != 48<<10 || d.MaxAlloc != 1<<40 {
				t.Errorf("Info %+v", d.Info)
			}
			if cc == "9.0" && d.MaxSharedMem != 227<<10 {
				t.Errorf("MaxSharedMem %d, want 227 KB", d.MaxSharedMem)
			}
			p, err := d.Build(Source{Name: "test.cu", Defines: map[string]string{"DELTA": "3"}, Text: textOf(cudaTestSource)})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(p.Options, " "), "-DDELTA=3") {
				t.Errorf("options %q lack -DDELTA=3", p.Options)
			}
			for _, name := range []string{"add_delta", "fma_free"} {
				k, err := p.Kernel(name)
				if err != nil {
					t.Fatal(err)
				}
				info, err := k.Info()
				if err != nil || info.MaxGroup != 1024 {
					t.Errorf("Info() = %+v, %v", info, err)
				}
			}
			if _, err := p.Kernel("add"); err == nil {
				t.Error("Kernel of a name the program lacks succeeded")
			}
			if _, err := d.NewBuffer(64); err == nil {
				t.Error("NewBuffer on a compile-only device succeeded")
			}
			if _, err := d.Queue(); err == nil {
				t.Error("Queue on a compile-only device succeeded")
			}
			if _, err := d.HostAlloc(64); err == nil {
				t.Error("HostAlloc on a compile-only device succeeded")
			}
		})
	}
}

func TestCUDACompilerSyntaxError(t *testing.T) {
	t.Setenv(EnvNoCache, "1")
	d := needCUDACompiler(t, "9.0")
	src := "extern \"C\" __global__ void broken(unsigned *x) { x[0] = 1 }\n"
	_, err := d.Build(Source{Name: "broken.cu", Text: textOf(src)})
	if err == nil {
		t.Fatal("a source with a syntax error built")
	}
	var nerr *cuda.NVRTCError
	if !errors.As(err, &nerr) || nerr.Log == "" {
		t.Fatalf("error %v: want an NVRTC error with its log", err)
	}
	if !strings.Contains(err.Error(), nerr.Log[:min(len(nerr.Log), 40)]) || !strings.Contains(nerr.Log, "error") {
		t.Errorf("error %q does not carry the log %q", err, nerr.Log)
	}
	t.Logf("%v", err)
}

func TestCUDACompilerCache(t *testing.T) {
	for _, cc := range cudaTestCapabilities {
		t.Run(cc, func(t *testing.T) {
			t.Setenv(EnvNoCache, "")
			t.Setenv(EnvCacheDir, t.TempDir())
			d := needCUDACompiler(t, cc)
			src := Source{Name: "test.cu", Defines: map[string]string{"DELTA": "5"}, Text: textOf(cudaTestSource)}
			for i, want := range []string{CacheMiss, CacheHit} {
				p, err := d.Build(src)
				if err != nil {
					t.Fatal(err)
				}
				if p.Cache != want {
					t.Errorf("build %d: cache %s, want %s", i, p.Cache, want)
				}
				if _, err := p.Kernel("add_delta"); err != nil {
					t.Errorf("build %d: %v", i, err)
				}
				if _, err := p.Kernel("nope"); err == nil {
					t.Errorf("build %d: Kernel of a missing name succeeded", i)
				}
			}
		})
	}
}

func TestCUDALoadRejectsForeignBinaries(t *testing.T) {
	c := &cudaDevice{}
	for _, bin := range [][]byte{nil, {cudaBinCUBIN}, []byte("Cnot an elf"), []byte("P\x7fELF..."), []byte("Xwhatever")} {
		if _, err := c.load(bin, nil); err == nil {
			t.Errorf("load(%q) succeeded", bin)
		}
	}
}

func TestCUDATarget(t *testing.T) {
	archs := []int{50, 52, 60, 70, 75, 80, 86, 89, 90}
	for _, tc := range []struct {
		arch   int
		target string
		cubin  bool
	}{{90, "sm_90", true}, {86, "sm_86", true}, {87, "compute_86", false}, {120, "compute_90", false}, {100, "compute_90", false}} {
		target, cubin, err := cudaTarget(tc.arch, archs)
		if err != nil || target != tc.target || cubin != tc.cubin {
			t.Errorf("cudaTarget(%d) = %s, %v, %v; want %s, %v", tc.arch, target, cubin, err, tc.target, tc.cubin)
		}
	}
	if _, _, err := cudaTarget(35, archs); err == nil {
		t.Error("cudaTarget below every supported architecture succeeded")
	}
	if target, cubin, err := cudaTarget(90, nil); err != nil || target != "compute_90" || cubin {
		t.Errorf("cudaTarget(90, unknown) = %s, %v, %v", target, cubin, err)
	}
}

func TestCUDAArgs(t *testing.T) {
	var s4, s8 kernelArg
	s4.width = 4
	binary.LittleEndian.PutUint32(s4.scalar[:], 0xdeadbeef)
	s8.width = 8
	binary.LittleEndian.PutUint64(s8.scalar[:], 0x0123456789abcdef)
	args := []kernelArg{s4, {local: 100}, s8, {local: 1}, {local: 4096}}
	list, shared, err := cudaArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	// offsets: 0, 112 (100 aligned up to 16), 128; total 128 + 4096
	want := []any{[]byte{0xef, 0xbe, 0xad, 0xde}, uint32(0), []byte{0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01}, uint32(112), uint32(128)}
	if shared != 128+4096 {
		t.Errorf("shared %d, want %d", shared, 128+4096)
	}
	for i := range want {
		if fmt.Sprint(list[i]) != fmt.Sprint(want[i]) {
			t.Errorf("argument %d: %v, want %v", i, list[i], want[i])
		}
	}
	if _, _, err := cudaArgs([]kernelArg{{width: 3}}); err == nil {
		t.Error("a 3-byte scalar was accepted")
	}
	if _, _, err := cudaArgs([]kernelArg{{buffer: &openclBuffer{}}}); err == nil {
		t.Error("a buffer of another driver was accepted")
	}
}

func TestCUDAParseVersions(t *testing.T) {
	for in, want := range map[string]string{
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Jul 10 2025\nGCC version: gcc 12.2\n":        "580.159.04",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  (dvs-builder@U16)  Thu\n": "570.86.15",
		"garbage": "",
	} {
		if got := parseNVIDIAVersion(in); got != want {
			t.Errorf("parseNVIDIAVersion(%q) = %q, want %q", in, got, want)
		}
	}
	for _, bad := range []string{"", "9", "9.", "x.0", "9.0.1", "0.5", "9.10"} {
		if _, _, err := parseComputeCapability(bad); err == nil {
			t.Errorf("parseComputeCapability(%q) succeeded", bad)
		}
	}
	if maj, mn, err := parseComputeCapability("12.0"); err != nil || maj != 12 || mn != 0 {
		t.Errorf("parseComputeCapability(12.0) = %d, %d, %v", maj, mn, err)
	}
}

func TestCUDAImageHasKernelPTX(t *testing.T) {
	ptx := []byte(".visible .entry add_delta(\n\t.param .u64 x\n)\n.entry other (\n")
	for name, want := range map[string]bool{"add_delta": true, "other": true, "add": false, "delta": false, "": false} {
		if got := imageHasKernel(cudaBinPTX, ptx, name); got != want {
			t.Errorf("imageHasKernel(%q) = %v", name, got)
		}
	}
}

// The tests below need an NVIDIA GPU with its driver (and NVRTC); they
// skip without one.

// cudaGPU returns the first CUDA device, with the kernel target forced to
// PTX when ptx is set (to test the driver's JIT path on any NVRTC).
func cudaGPU(t *testing.T, ptx bool) *Device {
	t.Helper()
	drv, err := cuda.LoadDriver()
	if err != nil {
		t.Skipf("no CUDA driver: %v", err)
	}
	nv, err := cuda.LoadNVRTC()
	if err != nil {
		t.Skipf("no NVRTC: %v", err)
	}
	if n, err := drv.DeviceCount(); err != nil || n == 0 {
		t.Skipf("no CUDA device: %v", err)
	}
	c, err := newCUDADevice(drv, nv, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ptx && c.cubin {
		major, minor, err := parseComputeCapability(c.facts.ComputeCapability)
		if err != nil {
			t.Fatal(err)
		}
		c.target, c.cubin = fmt.Sprintf("compute_%d", 10*major+minor), false
		c.ident += "\x00ptx"
	}
	return &Device{Info: c.facts, drv: c, programs: map[string]*programBuild{}}
}

// cudaGPUSource exercises local memory (two LOCAL arguments, the second
// large enough that the launch needs more than 48 KB of dynamic shared
// memory) and 64-bit scalars.
const cudaGPUSource = `
extern "C" __global__ void scale(unsigned *x, unsigned n, unsigned long long k, const unsigned s_offset, const unsigned big_offset) {
	extern __shared__ __align__(16) unsigned char smem[];
	unsigned *s = (unsigned *)(smem + s_offset);
	unsigned *big = (unsigned *)(smem + big_offset);
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0;
	big[threadIdx.x * 16] = 7 + threadIdx.x;
	__syncthreads();
	unsigned j = (threadIdx.x + 1) % blockDim.x;
	if (i < n) x[i] = s[threadIdx.x] * (unsigned)k + (unsigned)(k >> 32) + big[j * 16] - 7 - j;
}
extern "C" __global__ void fma_free(const double *a, const double *b, const double *c, double *out, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = a[i] * b[i] + c[i];
}
extern "C" __global__ void poke(unsigned *x, unsigned long long bad) {
	*(volatile unsigned *)(bad) = 1;
	x[0] = 2;
}
`

func TestCUDAGPU(t *testing.T) {
	for _, ptx := range []bool{false, true} {
		t.Run(map[bool]string{false: "native", true: "ptx"}[ptx], func(t *testing.T) {
			t.Setenv(EnvNoCache, "1")
			d := cudaGPU(t, ptx)
			c := d.drv.(*cudaDevice)
			t.Logf("%s: cc %s, %d SMs, %d MHz, %d MB, shared %d/%d, driver %s, %s, %s, target %s",
				d.Name, d.ComputeCapability, d.ComputeUnits, d.ClockMHz, d.GlobalMem>>20, d.SharedMem, d.MaxSharedMem,
				d.DriverVersion, d.Runtime, d.Compiler, c.target)
			p, err := d.Build(Source{Name: "gpu.cu", Text: textOf(cudaGPUSource)})
			if err != nil {
				t.Fatal(err)
			}
			if log := p.BuildLog(); log != "" {
				t.Logf("build log: %s", log)
			}
			k, err := p.Kernel("scale")
			if err != nil {
				t.Fatal(err)
			}
			info, err := k.Info()
			if err != nil || info.MaxGroup <= 0 || info.Registers <= 0 {
				t.Errorf("kernel info %+v, %v", info, err)
			}

			const n = 1000
			host := make([]uint32, n)
			for i := range host {
				host[i] = uint32(i)
			}
			buf, err := d.Upload(Uint32Bytes(host))
			if err != nil {
				t.Fatal(err)
			}
			defer buf.Release()
			const kk = uint64(5)<<32 | 3
			big := Local(60 << 10)
			if uint64(big) > d.MaxSharedMem-4096 {
				big = Local(16 << 10)
			}
			ev, err := k.Launch(n, 128, buf, uint32(n), kk, Local(128*4), big)
			if err != nil {
				t.Fatal(err)
			}
			dur, err := ev.Duration()
			if err != nil {
				t.Fatal(err)
			}
			if dur <= 0 || dur > time.Second {
				t.Errorf("duration %v", dur)
			}
			ev.Release()
			got := make([]uint32, n)
			if err := buf.Read(0, Uint32Bytes(got)); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if want := uint32(i)*3 + 5; got[i] != want {
					t.Fatalf("x[%d] = %d, want %d", i, got[i], want)
				}
			}

			// local == 0: blocks of 128, global rounded up
			ev, err = k.Launch(n, 0, buf, uint32(n), uint64(1), Local(128*4), big)
			if err != nil {
				t.Fatal(err)
			}
			if err := ev.Release(); err != nil {
				t.Fatal(err)
			}

			// fills of every pattern width, at offsets
			for _, pat := range [][]byte{{0xab}, {0x34, 0x12}, {0x78, 0x56, 0x34, 0x12}} {
				if err := buf.Fill(pat, 8, 64); err != nil {
					t.Fatal(err)
				}
				out := make([]byte, 80)
				if err := buf.Read(0, out); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out[8:72], bytes.Repeat(pat, 64/len(pat))) {
					t.Errorf("fill %x: % x", pat, out)
				}
			}

			// pinned host memory, a second queue ordered after the first
			hm, err := d.HostAlloc(4096)
			if err != nil {
				t.Fatal(err)
			}
			for i := range hm.Bytes {
				hm.Bytes[i] = byte(i * 7)
			}
			q2, err := d.NewQueue()
			if err != nil {
				t.Fatal(err)
			}
			big2, err := d.NewBuffer(4096)
			if err != nil {
				t.Fatal(err)
			}
			w, err := big2.WriteAsync(0, hm.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			if err := q2.WaitFor(w); err != nil {
				t.Fatal(err)
			}
			back := make([]byte, 4096)
			r, err := q2.Read(big2, 0, back)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Wait(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, hm.Bytes) {
				t.Error("pinned round trip differs")
			}
			w.Release()
			r.Release()
			if err := q2.Finish(); err != nil {
				t.Fatal(err)
			}
			if err := q2.Release(); err != nil {
				t.Fatal(err)
			}
			if err := big2.Release(); err != nil {
				t.Fatal(err)
			}
			if err := hm.Free(); err != nil {
				t.Fatal(err)
			}

			// --fmad=false: a*b+c rounds the product first
			fk, err := p.Kernel("fma_free")
			if err != nil {
				t.Fatal(err)
			}
			a, b, cc := 1+math.Ldexp(1, -30), 1-math.Ldexp(1, -30), -1.0
			f64 := func(v float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)) }
			var bufs []*Buffer
			for _, v := range []float64{a, b, cc, 42} {
				fb, err := d.Upload(f64(v))
				if err != nil {
					t.Fatal(err)
				}
				defer fb.Release()
				bufs = append(bufs, fb)
			}
			ev, err = fk.Launch(1, 1, bufs[0], bufs[1], bufs[2], bufs[3], uint32(1))
			if err != nil {
				t.Fatal(err)
			}
			ev.Release()
			out := make([]byte, 8)
			if err := bufs[3].Read(0, out); err != nil {
				t.Fatal(err)
			}
			if got, want := math.Float64frombits(binary.LittleEndian.Uint64(out)), float64(a*b)+cc; got != want {
				t.Errorf("a*b+c = %g, want %g (fused: %g)", got, want, math.FMA(a, b, cc))
			}
			if err := d.Finish(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCUDAGPULost faults a kernel in a child process (the fault poisons
// the context for the rest of the process) and checks that the error
// matches ErrDeviceLost.
func TestCUDAGPULost(t *testing.T) {
	if os.Getenv("GPUCRYPTO_TEST_CUDA_FAULT") == "1" {
		d := cudaGPU(t, false)
		p, err := d.Build(Source{Name: "gpu.cu", Text: textOf(cudaGPUSource)})
		if err != nil {
			t.Fatal(err)
		}
		k, err := p.Kernel("poke")
		if err != nil {
			t.Fatal(err)
		}
		buf, err := d.NewBuffer(4)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := k.Launch(1, 1, buf, uint64(0x10))
		if err == nil {
			err = ev.Wait()
		}
		if !errors.Is(err, ErrDeviceLost) {
			t.Fatalf("faulting kernel: %v; want an error matching ErrDeviceLost", err)
		}
		fmt.Println("FAULT-OK:", err)
		return
	}
	cudaGPU(t, false) // skips without a GPU
	cmd := exec.Command(os.Args[0], "-test.run=^TestCUDAGPULost$", "-test.v")
	cmd.Env = append(os.Environ(), "GPUCRYPTO_TEST_CUDA_FAULT=1", EnvNoCache+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("FAULT-OK")) {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

// A compile-only device names in the disk cache's keys what a GPU of its
// compute capability names with the same NVRTC (the compiler and its
// target, not the GPU's name or driver), so that a cache filled ahead
// without a GPU serves the GPU; another compiler or target is another key.
func TestCUDACacheIdentity(t *testing.T) {
	d := needCUDACompiler(t, "9.0")
	c := d.drv.(*cudaDevice)
	gpu := c.facts
	gpu.Name, gpu.DriverVersion, gpu.Platform, gpu.Runtime = "NVIDIA H200", "580.159.04", "CUDA 13.0", "CUDA 13.0"
	if got, want := cudaIdentity(gpu, c.target), c.identity(); got != want {
		t.Errorf("a GPU of compute capability 9.0 is named %q in the keys, the compile-only device %q", got, want)
	}
	other := c.facts
	other.Compiler = "NVRTC 99.9"
	for _, id := range []string{cudaIdentity(other, c.target), cudaIdentity(c.facts, "sm_89")} {
		if id == c.identity() {
			t.Errorf("another compiler or target has the same identity %q", id)
		}
	}
}

// A program built into the disk cache by a compile-only device of the
// GPU's compute capability (a cache filled ahead, at an image's build)
// is loaded from it by the GPU: a hit, and its kernel runs.
func TestCUDAGPUCacheFilledAhead(t *testing.T) {
	d := cudaGPU(t, false)
	t.Setenv(EnvNoCache, "")
	t.Setenv(EnvCacheDir, t.TempDir())
	ahead, err := CUDACompiler(d.ComputeCapability)
	if err != nil {
		t.Fatal(err)
	}
	src := Source{Name: "gpu.cu", Text: textOf(cudaGPUSource)}
	if p, err := ahead.Build(src); err != nil || p.Cache != CacheMiss {
		t.Fatalf("the build ahead: %v, cache %v", err, p)
	}
	p, err := d.Build(src)
	if err != nil {
		t.Fatal(err)
	}
	if p.Cache != CacheHit {
		t.Fatalf("the GPU's build: cache %s, want %s (ahead: %q, the GPU: %q)", p.Cache, CacheHit, ahead.drv.identity(), d.drv.identity())
	}
	if _, err := p.Kernel("scale"); err != nil {
		t.Fatal(err)
	}
}
