package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// envRequireNVRTC makes the tests fail, instead of skip, when NVRTC is
// missing (CI sets it after running scripts/fetch-nvrtc.sh).
const envRequireNVRTC = "GPUCRYPTO_REQUIRE_NVRTC"

// needNVRTC returns the process's NVRTC, skipping the test when there is
// none unless GPUCRYPTO_REQUIRE_NVRTC=1.
func needNVRTC(t *testing.T) *NVRTC {
	t.Helper()
	n, err := LoadNVRTC()
	if err != nil {
		if os.Getenv(envRequireNVRTC) == "1" {
			t.Fatalf("%s=1 but NVRTC is missing: %v", envRequireNVRTC, err)
		}
		t.Skipf("NVRTC is missing (run scripts/fetch-nvrtc.sh and set %s): %v", EnvNVRTCDir, err)
	}
	return n
}

// addCarrySource adds 64-bit numbers held as two 32-bit limbs with the
// carry chain instructions that the big-number kernels rely on.
const addCarrySource = `
#ifndef LIMB_STRIDE
#error LIMB_STRIDE must be defined
#endif
extern "C" __global__ void add64_carry(const unsigned *a, const unsigned *b, unsigned *sum, int count) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= count) return;
	unsigned lo, hi;
	asm("add.cc.u32 %0, %2, %4;\n\t"
	    "addc.u32 %1, %3, %5;"
	    : "=r"(lo), "=r"(hi)
	    : "r"(a[LIMB_STRIDE * i]), "r"(a[LIMB_STRIDE * i + 1]),
	      "r"(b[LIMB_STRIDE * i]), "r"(b[LIMB_STRIDE * i + 1]));
	sum[LIMB_STRIDE * i] = lo;
	sum[LIMB_STRIDE * i + 1] = hi;
}
`

var elfMagic = []byte{0x7f, 'E', 'L', 'F'}

func TestNVRTCVersion(t *testing.T) {
	n := needNVRTC(t)
	major, minor := n.Version()
	t.Logf("NVRTC %d.%d at %s", major, minor, n.Path())
	if major < 11 || major > 99 || minor < 0 || minor > 99 {
		t.Fatalf("implausible NVRTC version %d.%d", major, minor)
	}
	if n.Path() == "" {
		t.Fatal("Path is empty")
	}
	archs := n.SupportedArchs()
	t.Logf("supported architectures: %v", archs)
	if archs == nil {
		t.Skip("this NVRTC does not list its architectures")
	}
	for i := 1; i < len(archs); i++ {
		if archs[i] <= archs[i-1] {
			t.Fatalf("architectures not ascending: %v", archs)
		}
	}
	if archs[0] < 10 || archs[len(archs)-1] > 200 {
		t.Fatalf("implausible architectures: %v", archs)
	}
}

// supports skips the test when NVRTC cannot compile for the architecture.
func supports(t *testing.T, n *NVRTC, arch int) {
	t.Helper()
	archs := n.SupportedArchs()
	if archs == nil {
		return
	}
	for _, a := range archs {
		if a == arch {
			return
		}
	}
	t.Skipf("NVRTC %v does not support sm_%d (supports %v)", n.path, arch, archs)
}

func TestNVRTCCompileCUBIN(t *testing.T) {
	n := needNVRTC(t)
	supports(t, n, 90)
	out, err := n.Compile(addCarrySource, "add64_carry.cu",
		[]string{"--gpu-architecture=sm_90", "-DLIMB_STRIDE=2", "--fmad=false"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.CUBIN) < 64 || !bytes.HasPrefix(out.CUBIN, elfMagic) {
		t.Fatalf("CUBIN is not an ELF image (%d bytes, starts % x)", len(out.CUBIN), out.CUBIN[:min(len(out.CUBIN), 8)])
	}
	// ELF e_machine 190 is EM_CUDA.
	if machine := int(out.CUBIN[18]) | int(out.CUBIN[19])<<8; machine != 190 {
		t.Errorf("CUBIN e_machine = %d, want 190 (EM_CUDA)", machine)
	}
	ptx := string(out.PTX)
	for _, want := range []string{".entry add64_carry", ".target sm_90", "add.cc.u32", "addc.u32"} {
		if !strings.Contains(ptx, want) {
			t.Errorf("PTX lacks %q:\n%s", want, ptx)
		}
	}
	if bytes.IndexByte(out.PTX, 0) >= 0 {
		t.Error("PTX holds a NUL byte")
	}
}

func TestNVRTCCompilePTXOnly(t *testing.T) {
	n := needNVRTC(t)
	supports(t, n, 90)
	out, err := n.Compile(addCarrySource, "add64_carry.cu",
		[]string{"--gpu-architecture=compute_90", "-DLIMB_STRIDE=2"})
	if err != nil {
		t.Fatal(err)
	}
	if out.CUBIN != nil {
		t.Errorf("a compute_90 build returned a %d-byte CUBIN, want nil", len(out.CUBIN))
	}
	if !strings.Contains(string(out.PTX), ".entry add64_carry") {
		t.Errorf("PTX lacks the kernel:\n%s", out.PTX)
	}
}

func TestNVRTCCompileWarningLog(t *testing.T) {
	n := needNVRTC(t)
	src := `extern "C" __global__ void warns(int *x) { int unused_variable; x[0] = 1; }`
	out, err := n.Compile(src, "warns.cu", []string{"--gpu-architecture=compute_90"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Log, "unused_variable") {
		t.Errorf("the log of a successful compilation lacks the warning: %q", out.Log)
	}
}

func TestNVRTCCompileError(t *testing.T) {
	n := needNVRTC(t)
	src := "extern \"C\" __global__ void broken(unsigned *x) {\n" +
		"\tx[0] = 1;\n" +
		"\tx[1] = undefined_identifier_here;\n" +
		"}\n"
	out, err := n.Compile(src, "broken.cu", []string{"--gpu-architecture=sm_90", "-DLIMB_STRIDE=2"})
	if err == nil {
		t.Fatal("a broken source compiled")
	}
	var e *NVRTCError
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not an *NVRTCError: %v", err, err)
	}
	if e.Call != "nvrtcCompileProgram" || e.Status != 6 || e.Name != "NVRTC_ERROR_COMPILATION" {
		t.Errorf("error = {Call %q, Status %d, Name %q}, want nvrtcCompileProgram, 6, NVRTC_ERROR_COMPILATION", e.Call, e.Status, e.Name)
	}
	// The log names the file and line of the error, and the identifier.
	for _, want := range []string{"broken.cu(3)", "undefined_identifier_here"} {
		if !strings.Contains(e.Log, want) {
			t.Errorf("log lacks %q:\n%s", want, e.Log)
		}
	}
	msg := err.Error()
	for _, want := range []string{"nvrtcCompileProgram", "NVRTC_ERROR_COMPILATION", "status 6", "broken.cu(3)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Error() lacks %q:\n%s", want, msg)
		}
	}
	if out.Log != e.Log || out.CUBIN != nil || out.PTX != nil {
		t.Errorf("failed compilation returned output %+v", out)
	}
}

func TestNVRTCBadOption(t *testing.T) {
	n := needNVRTC(t)
	_, err := n.Compile(`extern "C" __global__ void k() {}`, "k.cu", []string{"--no-such-option-exists"})
	var e *NVRTCError
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want an *NVRTCError", err)
	}
	t.Log(err)
	_, err = n.Compile(`extern "C" __global__ void k() {}`, "k.cu", []string{"-DX=\x00"})
	if !errors.As(err, &e) {
		t.Fatalf("an option with a NUL byte gave %v, want an *NVRTCError", err)
	}
}

func TestNVRTCCompileConcurrent(t *testing.T) {
	n := needNVRTC(t)
	const workers = 4
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("kernel_%d", w)
			src := fmt.Sprintf(`extern "C" __global__ void %s(int *x) { x[threadIdx.x] = VALUE; }`, name)
			out, err := n.Compile(src, name+".cu", []string{"--gpu-architecture=compute_80", fmt.Sprintf("-DVALUE=%d", 1000+w)})
			if err == nil && !strings.Contains(string(out.PTX), ".entry "+name) {
				err = fmt.Errorf("PTX of %s lacks its kernel", name)
			}
			if err == nil && !strings.Contains(string(out.PTX), fmt.Sprint(1000+w)) {
				err = fmt.Errorf("PTX of %s lacks its -D value", name)
			}
			errs[w] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestNVRTCCandidates(t *testing.T) {
	got := nvrtcCandidates("/opt/x/libnvrtc.so", "/ignored")
	if len(got) != 1 || got[0] != "/opt/x/libnvrtc.so" {
		t.Errorf("with a library override: %v", got)
	}
	got = nvrtcCandidates("", "/fetched/lib")
	want := []string{
		"/fetched/lib/libnvrtc.so.13", "/fetched/lib/libnvrtc.so.12", "/fetched/lib/libnvrtc.so.11.2", "/fetched/lib/libnvrtc.so",
		"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("with a folder: %v, want %v", got, want)
	}
	got = nvrtcCandidates("", "")
	if strings.Join(got, " ") != strings.Join(want[4:], " ") {
		t.Errorf("with no settings: %v, want %v", got, want[4:])
	}
}

// TestNVRTCMissing checks that unusable libraries give an error matching
// ErrNoNVRTC, naming what was tried, and never a panic.
func TestNVRTCMissing(t *testing.T) {
	dir := t.TempDir()
	notELF := filepath.Join(dir, "libnvrtc.so.12")
	if err := os.WriteFile(notELF, []byte("not a shared library"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, reason string
	}{
		{"absent file", filepath.Join(dir, "no", "libnvrtc.so.99"), "no such file"},
		{"not a library", notELF, "cannot be loaded"},
		{"a library without NVRTC", "libc.so.6", "lacks nvrtcVersion"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(EnvNVRTCLibrary, c.path)
			n, err := openNVRTC(nvrtcCandidates(os.Getenv(EnvNVRTCLibrary), os.Getenv(EnvNVRTCDir)))
			if err == nil {
				t.Fatalf("loaded %v", n.Path())
			}
			if !errors.Is(err, ErrNoNVRTC) {
				t.Fatalf("error %v does not match ErrNoNVRTC", err)
			}
			var m *MissingLibraryError
			if !errors.As(err, &m) || len(m.Tried) != 1 || m.Tried[0] != c.path {
				t.Fatalf("error %#v does not name exactly %s", err, c.path)
			}
			msg := err.Error()
			for _, want := range []string{c.path, c.reason, "scripts/fetch-nvrtc.sh", EnvNVRTCDir, "CUDA toolkit"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q:\n%s", want, msg)
				}
			}
		})
	}
	// A folder without NVRTC: every candidate in it, then the bare names.
	err := func() error {
		_, err := openNVRTC(nvrtcCandidates("", t.TempDir())[:4])
		return err
	}()
	var m *MissingLibraryError
	if !errors.As(err, &m) || len(m.Tried) != 4 || !errors.Is(err, ErrNoNVRTC) {
		t.Fatalf("empty folder: %v", err)
	}
}

func TestNamesRealArch(t *testing.T) {
	cases := []struct {
		options []string
		want    bool
	}{
		{nil, false},
		{[]string{"--gpu-architecture=sm_90"}, true},
		{[]string{"--gpu-architecture=sm_90a"}, true},
		{[]string{"-arch=sm_80", "-DX=1"}, true},
		{[]string{"-arch", "sm_75"}, true},
		{[]string{"--gpu-architecture=compute_90"}, false},
		{[]string{"-arch=sm_90", "-arch=compute_90"}, false},
		{[]string{"-DARCH=sm_90"}, false},
	}
	for _, c := range cases {
		if got := namesRealArch(c.options); got != c.want {
			t.Errorf("namesRealArch(%q) = %v, want %v", c.options, got, c.want)
		}
	}
}
