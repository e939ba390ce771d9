package device

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Source is a program to build: a name, the -D definitions and extra
// compiler flags, and a function that returns the full source text. The
// text is asked for only when the program is not built yet in this
// process: a Device keeps built programs by name, definitions and flags,
// so callers need no cache of their own.
type Source struct {
	Name    string            // the kernel file ("modexp.cl"): errors and the in-process cache
	Defines map[string]string // NAME → value ("" gives -DNAME)
	Flags   []string          // extra compiler options, as the driver takes them
	Text    func() (string, error)
}

// key identifies s among the programs of one device.
func (s Source) key() string {
	var b strings.Builder
	b.WriteString(s.Name)
	for _, k := range slices.Sorted(maps.Keys(s.Defines)) {
		fmt.Fprintf(&b, "\x00%s=%s", k, s.Defines[k])
	}
	for _, f := range s.Flags {
		b.WriteString("\x00" + f)
	}
	return b.String()
}

// options are the compiler options of s on d: the device's facts, then
// the program's definitions (which win), then the flags.
func (d *Device) options(s Source) []string {
	defs := d.Defines()
	maps.Copy(defs, s.Defines)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(defs)) {
		if v := defs[k]; v != "" {
			out = append(out, "-D"+k+"="+v)
		} else {
			out = append(out, "-D"+k)
		}
	}
	return append(out, s.Flags...)
}

// Cache states of a built program.
const (
	CacheDisabled = "disabled"
	CacheMiss     = "miss"
	CacheHit      = "hit"
	CacheCorrupt  = "corrupt" // an entry existed but was unusable; rebuilt and rewritten
)

// Program is a program built for one device. Its kernels are shared and
// safe for concurrent launches.
type Program struct {
	dev     *Device
	prog    driverProgram
	Name    string
	Text    string   // the full source as compiled
	Options []string // the compiler options
	Cache   string   // one of the Cache* states

	mu      sync.Mutex
	kernels map[string]*Kernel
}

// Program returns the program of s, built on first use (or loaded from
// the disk cache) and reused afterwards. Distinct programs build at once
// from concurrent calls (engines of several packages made side by side
// compile in parallel); calls for a program being built wait for that
// build. A failed build is not kept: a later call tries again.
func (d *Device) Program(s Source) (*Program, error) {
	key := s.key()
	d.progMu.Lock()
	b, ok := d.programs[key]
	if !ok {
		b = &programBuild{done: make(chan struct{})}
		d.programs[key] = b
	}
	d.progMu.Unlock()
	if ok {
		<-b.done
		return b.program, b.err
	}
	// the waiters are released however the build ends; a failed one (a
	// panic included) is forgotten so that a later call tries again
	b.err = errors.New("device: the build of " + s.Name + " did not finish")
	defer func() {
		if b.err != nil {
			d.progMu.Lock()
			delete(d.programs, key)
			d.progMu.Unlock()
		}
		close(b.done)
	}()
	b.program, b.err = d.Build(s)
	return b.program, b.err
}

// programBuild is a program of Device.Program: built once done is closed
// (program, or the build's error).
type programBuild struct {
	done    chan struct{}
	program *Program
	err     error
}

// Build builds s afresh (no in-process reuse; the disk cache still
// serves it), for tools that want their own copy.
func (d *Device) Build(s Source) (*Program, error) {
	if s.Text == nil {
		return nil, fmt.Errorf("device: program %q has no source", s.Name)
	}
	text, err := s.Text()
	if err != nil {
		return nil, err
	}
	opts := d.options(s)
	p := &Program{dev: d, Name: s.Name, Text: text, Options: opts, Cache: CacheDisabled, kernels: map[string]*Kernel{}}
	key := d.cacheKey(text, opts)
	cache := openCache()
	if cache != nil {
		p.Cache = CacheMiss
		bin, state := cache.load(key)
		if state == CacheHit {
			if p.prog, err = d.drv.load(bin, opts); err == nil {
				p.Cache = CacheHit
				return p, nil
			}
			state = CacheCorrupt
		}
		if state == CacheCorrupt {
			p.Cache = CacheCorrupt
			cache.remove(key)
		}
	}
	prog, bin, err := d.drv.compile(text, opts)
	if err != nil {
		return nil, fmt.Errorf("device: building %s for %s (%s): %w", s.Name, d.Name, d.Backend, err)
	}
	p.prog = prog
	if cache != nil && len(bin) > 0 {
		_ = cache.store(key, bin) // a cache that cannot be written is not an error
	}
	return p, nil
}

func (d *Device) cacheKey(text string, opts []string) string {
	h := sha256.New()
	for _, s := range append([]string{cacheFormat, d.Backend, d.drv.identity(), text}, opts...) {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// BuildLog is the compiler's log of the program (empty when it was loaded
// from the cache).
func (p *Program) BuildLog() string { return p.prog.log() }

// Kernel returns the named kernel of the program.
func (p *Program) Kernel(name string) (*Kernel, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k, ok := p.kernels[name]; ok {
		return k, nil
	}
	dk, err := p.prog.kernel(name)
	if err != nil {
		return nil, fmt.Errorf("device: kernel %q of %s: %w", name, p.Name, err)
	}
	k := &Kernel{dev: p.dev, prog: p, k: dk, Name: name}
	p.kernels[name] = k
	return k, nil
}

// Kernels returns the named kernels of p, in order.
func (p *Program) Kernels(names ...string) ([]*Kernel, error) {
	ks := make([]*Kernel, len(names))
	for i, name := range names {
		var err error
		if ks[i], err = p.Kernel(name); err != nil {
			return nil, err
		}
	}
	return ks, nil
}

// Kernel is a kernel of a built program.
type Kernel struct {
	dev  *Device
	prog *Program // keeps the program alive while the kernel is in use
	k    driverKernel
	Name string
}

// KernelInfo is what the driver reports of a compiled kernel.
type KernelInfo struct {
	MaxGroup     int    // the largest work-group it can run with
	PrivateBytes uint64 // private (local, spill) memory per work-item
	Registers    int    // registers per work-item (0: the driver does not say)
	SharedBytes  uint64 // static shared memory per work-group
}

// Info reports the compiler's facts about the kernel.
func (k *Kernel) Info() (KernelInfo, error) { return k.k.info() }

// Local asks for n bytes of local (shared) memory as a kernel argument.
// In the kernel source such an argument is declared with LOCAL_ARG and
// bound with LOCAL_BIND (kernels/dialect.h): OpenCL passes a __local
// pointer, CUDA carves the bytes out of the block's dynamic shared memory.
type Local int

// Launch runs the kernel on the device's default queue (see Queue.Launch).
func (k *Kernel) Launch(global, local int, args ...any) (*Event, error) {
	q, err := k.dev.Queue()
	if err != nil {
		return nil, err
	}
	return q.Launch(k, global, local, args...)
}

// Programs is the number of programs the device has built or loaded in
// this process (Device.Program keeps them), those still building not
// counted.
func (d *Device) Programs() int {
	d.progMu.Lock()
	defer d.progMu.Unlock()
	n := 0
	for _, b := range d.programs {
		select {
		case <-b.done:
			if b.err == nil {
				n++
			}
		default:
		}
	}
	return n
}
