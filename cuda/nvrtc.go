// Package cuda binds NVIDIA's CUDA libraries at run time, without cgo.
// NVRTC, the runtime compiler (nvrtc.go), turns CUDA C++ source into PTX
// text and CUBIN images for the CUDA driver to load.
package cuda

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// EnvNVRTCLibrary names the environment variable that overrides the NVRTC
// library path. When it is set, it is the only library tried.
const EnvNVRTCLibrary = "GPUCRYPTO_NVRTC_LIB"

// EnvNVRTCDir names the environment variable that adds a folder to search
// for NVRTC before the system's library path (CI points it at the folder
// that scripts/fetch-nvrtc.sh prints).
const EnvNVRTCDir = "GPUCRYPTO_NVRTC_DIR"

// nvrtcSonames lists the library names tried, newest CUDA release first.
// NVRTC 11.x keeps the soname libnvrtc.so.11.2 for every 11.2+ release.
var nvrtcSonames = []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"}

// ErrNoNVRTC is matched (errors.Is) by every error that LoadNVRTC returns
// when no usable NVRTC library could be opened.
var ErrNoNVRTC = errors.New("cuda: no usable NVRTC library")

// NVRTCError is a failed NVRTC call: the call's name, its status code and
// the status's name, plus the compiler log when the call compiled a program.
type NVRTCError struct {
	// Call is the NVRTC function that failed, such as "nvrtcCompileProgram".
	Call string
	// Status is the nvrtcResult code the call returned.
	Status int
	// Name is the status's name from nvrtcGetErrorString, such as
	// "NVRTC_ERROR_COMPILATION".
	Name string
	// Log is the full compiler log, for failed compilations.
	Log string
}

// Error names the call and the status and carries the compiler log.
func (e *NVRTCError) Error() string {
	name := e.Name
	if name == "" {
		name = "unknown NVRTC status"
	}
	s := fmt.Sprintf("cuda: %s failed: %s (status %d)", e.Call, name, e.Status)
	if log := strings.TrimRight(e.Log, "\n"); log != "" {
		s += "\ncompiler log:\n" + log
	}
	return s
}

// CompileOutput is what NVRTC produced for one program.
type CompileOutput struct {
	// CUBIN is the device binary (an ELF image) when the options named a
	// real architecture (sm_XY); nil otherwise.
	CUBIN []byte
	// PTX is the program's PTX text, without the terminating NUL byte that
	// NVRTC adds: append one before handing it to cuModuleLoadData.
	PTX []byte
	// Log is the compiler log: warnings on success, empty when there were
	// none.
	Log string
}

// NVRTC is a loaded NVRTC library. Its methods are safe for concurrent use.
type NVRTC struct {
	path         string // the library loaded, resolved to a file when possible
	builtinsPath string // the libnvrtc-builtins library loaded beside it, if any
	handle       uintptr
	major, minor int

	// compileMu serializes compilations before NVRTC 13 (concurrentCompiles):
	// NVRTC 11.x does not promise that concurrent compilations of distinct
	// programs are safe, and 12.x was not tried.
	compileMu sync.Mutex

	// Entry points, bound at load time. nvrtcResult is a C enum (int).
	version           func(major, minor *int32) int32
	createProgram     func(prog *uintptr, src, name *byte, numHeaders int32, headers, includeNames unsafe.Pointer) int32
	destroyProgram    func(prog *uintptr) int32
	compileProgram    func(prog uintptr, numOptions int32, options unsafe.Pointer) int32
	getProgramLogSize func(prog uintptr, size *uintptr) int32
	getProgramLog     func(prog uintptr, log *byte) int32
	getPTXSize        func(prog uintptr, size *uintptr) int32
	getPTX            func(prog uintptr, ptx *byte) int32
	getErrorString    func(status int32) string

	// Optional entry points (nil when the library lacks them).
	getNumSupportedArchs func(count *int32) int32                // 11.2+
	getSupportedArchs    func(archs *int32) int32                // 11.2+
	getCUBINSize         func(prog uintptr, size *uintptr) int32 // 11.1+
	getCUBIN             func(prog uintptr, cubin *byte) int32   // 11.1+
}

var (
	nvrtcOnce sync.Once
	nvrtcLib  *NVRTC
	nvrtcErr  error
)

// LoadNVRTC opens NVRTC once per process and returns the same result on
// every call. It tries, in order: the path in GPUCRYPTO_NVRTC_LIB alone when
// that is set; otherwise libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so.11.2
// and libnvrtc.so, first inside the folder named by GPUCRYPTO_NVRTC_DIR (when
// set) and then on the system's library path. For the library it opens, it
// also loads the libnvrtc-builtins library of the same CUDA version from the
// same folder, when that exists, so that NVRTC's own later lookup of it by
// soname finds it even outside the library path. When no candidate is
// usable the error is a *MissingLibraryError, which matches ErrNoNVRTC.
func LoadNVRTC() (*NVRTC, error) {
	nvrtcOnce.Do(func() {
		nvrtcLib, nvrtcErr = openNVRTC(nvrtcCandidates(os.Getenv(EnvNVRTCLibrary), os.Getenv(EnvNVRTCDir)))
	})
	return nvrtcLib, nvrtcErr
}

// nvrtcCandidates lists the library paths to try: library alone when it is
// set, otherwise the known sonames inside dir (when set) and then the bare
// sonames for the system's library path.
func nvrtcCandidates(library, dir string) []string {
	if library != "" {
		return []string{library}
	}
	var c []string
	if dir != "" {
		for _, s := range nvrtcSonames {
			c = append(c, filepath.Join(dir, s))
		}
	}
	return append(c, nvrtcSonames...)
}

// openNVRTC tries the candidates in order and returns the first usable
// library, or a *MissingLibraryError naming every candidate tried.
func openNVRTC(candidates []string) (*NVRTC, error) {
	missing := missingNVRTC()
	for _, c := range candidates {
		n, reason := openNVRTCFile(c)
		if n != nil {
			return n, nil
		}
		missing.Tried = append(missing.Tried, c)
		missing.Reasons = append(missing.Reasons, reason)
	}
	return nil, missing
}

// openNVRTCFile opens one candidate. It returns the library, or nil and why
// the candidate is unusable.
func openNVRTCFile(candidate string) (*NVRTC, string) {
	if strings.ContainsRune(candidate, '/') {
		if _, err := os.Stat(candidate); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, "no such file"
			}
			return nil, err.Error()
		}
	}
	handle, err := purego.Dlopen(candidate, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		if !strings.ContainsRune(candidate, '/') && strings.Contains(err.Error(), "No such file") {
			return nil, "not found on the library path"
		}
		return nil, "cannot be loaded: " + err.Error()
	}
	n := &NVRTC{handle: handle, path: candidate}
	if reason := n.bind(); reason != "" {
		_ = purego.Dlclose(handle)
		return nil, reason
	}
	var major, minor int32
	if st := n.version(&major, &minor); st != 0 {
		_ = purego.Dlclose(handle)
		return nil, fmt.Sprintf("nvrtcVersion failed with status %d", st)
	}
	n.major, n.minor = int(major), int(minor)
	if !strings.ContainsRune(candidate, '/') {
		// Found on the library path: find the file the loader chose, so
		// that Path is exact and the builtins are looked for beside it.
		if p := mappedLibrary(candidate, fmt.Sprintf("libnvrtc.so.%d.%d", n.major, n.minor)); p != "" {
			n.path = p
		}
	}
	if strings.ContainsRune(n.path, '/') {
		// NVRTC opens libnvrtc-builtins.so.MAJOR.MINOR by soname when it
		// compiles; the loader reuses a library of that soname that is
		// already loaded, so loading it now from the same folder makes
		// NVRTC find it even when that folder is not on the library path.
		b := filepath.Join(filepath.Dir(n.path), fmt.Sprintf("libnvrtc-builtins.so.%d.%d", n.major, n.minor))
		if _, err := os.Stat(b); err == nil {
			if _, err := purego.Dlopen(b, purego.RTLD_NOW|purego.RTLD_GLOBAL); err != nil {
				_ = purego.Dlclose(handle)
				return nil, "its builtins library " + b + " cannot be loaded: " + err.Error()
			}
			n.builtinsPath = b
		}
	}
	return n, ""
}

// bind resolves the entry points; it returns why the library is unusable,
// or "" on success.
func (n *NVRTC) bind() string {
	required := []struct {
		name string
		fn   any
	}{
		{"nvrtcVersion", &n.version},
		{"nvrtcCreateProgram", &n.createProgram},
		{"nvrtcDestroyProgram", &n.destroyProgram},
		{"nvrtcCompileProgram", &n.compileProgram},
		{"nvrtcGetProgramLogSize", &n.getProgramLogSize},
		{"nvrtcGetProgramLog", &n.getProgramLog},
		{"nvrtcGetPTXSize", &n.getPTXSize},
		{"nvrtcGetPTX", &n.getPTX},
		{"nvrtcGetErrorString", &n.getErrorString},
	}
	for _, r := range required {
		sym, err := purego.Dlsym(n.handle, r.name)
		if err != nil || sym == 0 {
			return "not an NVRTC library: it lacks " + r.name
		}
		purego.RegisterFunc(r.fn, sym)
	}
	optional := []struct {
		name string
		fn   any
	}{
		{"nvrtcGetNumSupportedArchs", &n.getNumSupportedArchs},
		{"nvrtcGetSupportedArchs", &n.getSupportedArchs},
		{"nvrtcGetCUBINSize", &n.getCUBINSize},
		{"nvrtcGetCUBIN", &n.getCUBIN},
	}
	for _, o := range optional {
		if sym, err := purego.Dlsym(n.handle, o.name); err == nil && sym != 0 {
			purego.RegisterFunc(o.fn, sym)
		}
	}
	return ""
}

// mappedLibrary returns the path of a library file mapped into this process
// (read from /proc/self/maps) whose name is one of names or one of them
// followed by a dot and more version numbers, or "" if there is none.
func mappedLibrary(names ...string) string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 0, 4096), 1<<20)
	for s.Scan() {
		line := s.Text()
		i := strings.IndexByte(line, '/')
		if i < 0 {
			continue
		}
		p := line[i:]
		base := filepath.Base(p)
		for _, name := range names {
			if base == name || strings.HasPrefix(base, name+".") {
				return p
			}
		}
	}
	return ""
}

// Version returns NVRTC's version (nvrtcVersion), such as 12, 4.
func (n *NVRTC) Version() (major, minor int) { return n.major, n.minor }

// Path returns the NVRTC library that was loaded: the file the dynamic
// loader chose when it was found on the library path.
func (n *NVRTC) Path() string { return n.path }

// concurrentCompiles reports whether this NVRTC compiles distinct programs
// at once, each on its own thread: NVRTC 13 does, and a process that makes
// several engines is ready sooner for it (docs/BENCHMARKS.md, "Start-up");
// older versions are serialized by compileMu.
func (n *NVRTC) concurrentCompiles() bool { return n.major >= 13 }

// SupportedArchs returns the GPU architectures that this NVRTC can compile
// for (nvrtcGetSupportedArchs), as compute capabilities times ten in
// ascending order (e.g. 35, 37, ..., 90), or nil when the library does not
// say (NVRTC before 11.2).
func (n *NVRTC) SupportedArchs() []int {
	if n.getNumSupportedArchs == nil || n.getSupportedArchs == nil {
		return nil
	}
	var count int32
	if n.getNumSupportedArchs(&count) != 0 || count <= 0 {
		return nil
	}
	raw := make([]int32, count)
	if n.getSupportedArchs(&raw[0]) != 0 {
		return nil
	}
	archs := make([]int, count)
	for i, a := range raw {
		archs[i] = int(a)
	}
	return archs
}

// Compile compiles CUDA C++ source; name is the file name used in the
// compiler's messages (e.g. "kernel.cu"). The options are NVRTC's, one per
// element, such as "--gpu-architecture=sm_90" (a CUBIN for that GPU),
// "--gpu-architecture=compute_90" (PTX only), "-DNAME=value" or
// "--fmad=false".
//
// It returns the CUBIN when the options name a real architecture (sm_XY),
// the PTX always, and the compiler log, which holds warnings even on
// success. A failed compilation returns a *NVRTCError whose Call is
// "nvrtcCompileProgram" and whose Log is the full compiler log; the
// returned CompileOutput then carries that log too.
func (n *NVRTC) Compile(src, name string, options []string) (CompileOutput, error) {
	var out CompileOutput
	if strings.IndexByte(src, 0) >= 0 || strings.IndexByte(name, 0) >= 0 {
		return out, &NVRTCError{Call: "nvrtcCreateProgram", Status: nvrtcErrorInvalidInput,
			Name: n.statusName(nvrtcErrorInvalidInput), Log: "the source or the name holds a NUL byte"}
	}
	srcC, nameC := cString(src), cString(name)

	// const char *const *options: an array of addresses of NUL-terminated
	// strings. The strings are pinned so that their addresses stay valid
	// (and the strings alive) while NVRTC reads them.
	var pin runtime.Pinner
	defer pin.Unpin()
	optionAddrs := make([]uintptr, len(options))
	for i, o := range options {
		if strings.IndexByte(o, 0) >= 0 {
			return out, &NVRTCError{Call: "nvrtcCompileProgram", Status: nvrtcErrorInvalidOption,
				Name: n.statusName(nvrtcErrorInvalidOption), Log: fmt.Sprintf("option %q holds a NUL byte", o)}
		}
		b := cString(o)
		pin.Pin(&b[0])
		optionAddrs[i] = uintptr(unsafe.Pointer(&b[0]))
	}
	var optionsArg unsafe.Pointer
	if len(optionAddrs) > 0 {
		optionsArg = unsafe.Pointer(&optionAddrs[0])
	}

	if !n.concurrentCompiles() {
		n.compileMu.Lock()
		defer n.compileMu.Unlock()
	}

	var prog uintptr
	if st := n.createProgram(&prog, &srcC[0], &nameC[0], 0, nil, nil); st != 0 {
		return out, n.newError("nvrtcCreateProgram", st, "")
	}
	defer n.destroyProgram(&prog)

	st := n.compileProgram(prog, int32(len(options)), optionsArg)
	runtime.KeepAlive(srcC)
	runtime.KeepAlive(optionAddrs)
	log, err := n.programLog(prog)
	if err != nil && st == 0 {
		return out, err
	}
	out.Log = log
	if st != 0 {
		return out, n.newError("nvrtcCompileProgram", st, log)
	}

	if out.PTX, err = n.fetch(prog, "nvrtcGetPTX", n.getPTXSize, n.getPTX); err != nil {
		return out, err
	}
	realArch := namesRealArch(options)
	if n.getCUBINSize != nil && n.getCUBIN != nil {
		var size uintptr
		// Without a real architecture NVRTC has no CUBIN and says so with
		// an error status or a size of zero: that is not a failure.
		if n.getCUBINSize(prog, &size) == 0 && size > 0 {
			if out.CUBIN, err = n.fetch(prog, "nvrtcGetCUBIN", n.getCUBINSize, n.getCUBIN); err != nil {
				return out, err
			}
		}
	}
	if realArch && len(out.CUBIN) == 0 {
		return out, &NVRTCError{Call: "nvrtcGetCUBIN", Status: nvrtcErrorInvalidProgram,
			Name: n.statusName(nvrtcErrorInvalidProgram),
			Log:  fmt.Sprintf("NVRTC %d.%d returned no CUBIN although the options name a real architecture", n.major, n.minor)}
	}
	return out, nil
}

// nvrtcResult codes used here.
const (
	nvrtcErrorInvalidInput   = 3
	nvrtcErrorInvalidProgram = 4
	nvrtcErrorInvalidOption  = 5
)

// namesRealArch reports whether the options ask for a real architecture
// (sm_XY, with or without a suffix such as sm_90a), in any of the spellings
// NVRTC accepts: --gpu-architecture=ARCH, -arch=ARCH, or the option name and
// ARCH as two elements.
func namesRealArch(options []string) bool {
	realArch := false
	for i, o := range options {
		var arch string
		switch {
		case strings.HasPrefix(o, "--gpu-architecture="):
			arch = strings.TrimPrefix(o, "--gpu-architecture=")
		case strings.HasPrefix(o, "-arch="):
			arch = strings.TrimPrefix(o, "-arch=")
		case (o == "--gpu-architecture" || o == "-arch") && i+1 < len(options):
			arch = options[i+1]
		default:
			continue
		}
		// The last architecture option wins, as on NVRTC's command line.
		realArch = strings.HasPrefix(arch, "sm_")
	}
	return realArch
}

// programLog returns the program's compiler log.
func (n *NVRTC) programLog(prog uintptr) (string, error) {
	b, err := n.fetch(prog, "nvrtcGetProgramLog", n.getProgramLogSize, n.getProgramLog)
	return string(b), err
}

// fetch reads one of the program's outputs with its size and copy calls,
// dropping the NUL byte that NVRTC counts in the size of text outputs.
func (n *NVRTC) fetch(prog uintptr, call string, sizeOf func(uintptr, *uintptr) int32, copyOut func(uintptr, *byte) int32) ([]byte, error) {
	var size uintptr
	if st := sizeOf(prog, &size); st != 0 {
		return nil, n.newError(call+"Size", st, "")
	}
	if size == 0 {
		return nil, nil
	}
	buf := make([]byte, size)
	if st := copyOut(prog, &buf[0]); st != 0 {
		return nil, n.newError(call, st, "")
	}
	if call != "nvrtcGetCUBIN" {
		if i := bytes.IndexByte(buf, 0); i >= 0 {
			buf = buf[:i]
		}
	}
	return buf, nil
}

// newError builds the *NVRTCError for a failed call.
func (n *NVRTC) newError(call string, status int32, log string) *NVRTCError {
	return &NVRTCError{Call: call, Status: int(status), Name: n.statusName(int(status)), Log: log}
}

// statusName returns NVRTC's name for a status code.
func (n *NVRTC) statusName(status int) string {
	if n.getErrorString == nil {
		return "NVRTC status " + strconv.Itoa(status)
	}
	return n.getErrorString(int32(status))
}

// cString returns s as a NUL-terminated byte slice.
func cString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}
