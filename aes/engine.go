package aes

import (
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// Layout is how the kernels hold the AES round tables in local memory
// (kernels/aes_tables.h). Both are constant-time; they differ in speed
// and in the local memory they need.
type Layout int

const (
	// LayoutAuto picks LayoutWide where the device's work-groups may
	// have enough local memory, LayoutCompact elsewhere.
	LayoutAuto Layout = iota
	// LayoutCompact stores one round table, replicated 32 times (32 KB;
	// 40 KB for decryption), and rotates it for the other three.
	LayoutCompact
	// LayoutWide stores all four round tables, replicated (128 KB; 136 KB
	// for decryption): fewer instructions per round.
	LayoutWide
)

func (l Layout) String() string {
	switch l {
	case LayoutCompact:
		return "compact"
	case LayoutWide:
		return "wide"
	}
	return "auto"
}

// Local memory of the layouts (kernels/aes_tables.h).
const (
	compactTableBytes = 32 << 10
	wideTableBytes    = 128 << 10
	invSboxBytes      = 8 << 10
)

// Config tunes an Engine; zero values pick the defaults.
type Config struct {
	Layout    Layout
	WorkGroup int // work-items per work-group (default 512 wide, 256 compact)
	// Segment is the number of blocks of a GCM message one work-item
	// hashes (default 16); a power of two from 1 to 256.
	Segment int
	// StageBytes and Stages size the pipeline of the host-memory calls:
	// staging bytes per stage (a multiple of 16, at least 4096; default
	// 32 MB) and stages (1 to 64; default 4).
	StageBytes, Stages int
	// Defines are extra -D definitions for the kernels: tuning knobs for
	// experiments (kernels/aes.cl: GHASH_GROUPS, GHASH_WAYS).
	Defines map[string]string
}

// Engine runs AES on one device. It is safe for concurrent use. When the
// device fails during a call, what it did not finish is redone on the CPU
// (crypto/aes) and the failure is reported through OnFallback: results
// are never wrong because of a device fault. A result is written only once
// the device has completed it, so what is redone still has its input, in
// place too.
type Engine struct {
	dev        *device.Device
	prog       *device.Program
	layout     Layout
	group      int
	segLog     uint // log2 of the GCM segment
	tables     *device.Buffer
	pool       *device.Pool
	stages     stageSets // of the host-memory calls
	stageSize  int       // bytes of host staging per pipeline stage (a multiple of 16)
	stageCount int       // stages per host-memory call
	defines    map[string]string

	kernelNs   atomic.Int64
	checkEvery atomic.Int64 // SetResultCheck

	// modes is the program of CBC and XTS (kernels/aes_modes.cl), built
	// on first use.
	modesOnce sync.Once
	modes     *device.Program
	modesErr  error

	mu        sync.Mutex
	fallbacks batch.Fallbacks
	failHook  func() error   // tests: simulate a device failure
	launchErr func() error   // tests: simulate a kernel launch that fails
	alter     func([][]byte) // tests: simulate a device that returns wrong results
}

// bufferIdle is how long an Engine keeps device buffers for the next call.
const bufferIdle = 10 * time.Second

// NewEngine builds the AES kernels for dev (nil: device.Default()) with
// the default Config.
func NewEngine(dev *device.Device) (*Engine, error) { return NewEngineConfig(dev, Config{}) }

// NewEngineConfig builds the AES kernels for dev (nil: device.Default()).
func NewEngineConfig(dev *device.Device, cfg Config) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	layout := cfg.Layout
	if layout == LayoutAuto {
		layout = LayoutCompact
		if dev.MaxSharedMem >= wideTableBytes+invSboxBytes && dev.Class != device.VendorCPU {
			layout = LayoutWide
		}
	}
	need := compactTableBytes + invSboxBytes
	if layout == LayoutWide {
		need = wideTableBytes + invSboxBytes
	}
	if dev.MaxSharedMem < uint64(need) {
		return nil, fmt.Errorf("aes: the %s table layout needs %d bytes of local memory; %s allows %d", layout, need, dev.Name, dev.MaxSharedMem)
	}
	group := cfg.WorkGroup
	if group == 0 {
		group = 256
		if layout == LayoutWide {
			group = 512
		}
	}
	group = min(group, dev.MaxGroup)
	if group < 32 || group%32 != 0 {
		return nil, fmt.Errorf("aes: work-group of %d work-items: want a multiple of 32 (and %s allows at most %d)", group, dev.Name, dev.MaxGroup)
	}
	seg := cfg.Segment
	if seg == 0 {
		seg = 16
	}
	if seg < 1 || seg > 256 || seg&(seg-1) != 0 {
		return nil, fmt.Errorf("aes: GCM segment of %d blocks: want a power of two from 1 to 256", seg)
	}
	e := &Engine{dev: dev, layout: layout, group: group, pool: dev.NewPool(bufferIdle), stageSize: stageBytes, stageCount: stageCount}
	if cfg.StageBytes != 0 {
		if cfg.StageBytes < 4096 || cfg.StageBytes%16 != 0 {
			return nil, fmt.Errorf("aes: stage of %d bytes: want a multiple of 16, at least 4096", cfg.StageBytes)
		}
		e.stageSize = cfg.StageBytes
	}
	if cfg.Stages != 0 {
		if cfg.Stages < 1 || cfg.Stages > 64 {
			return nil, fmt.Errorf("aes: %d pipeline stages: want 1 to 64", cfg.Stages)
		}
		e.stageCount = cfg.Stages
	}
	for 1<<e.segLog < seg {
		e.segLog++
	}
	src := programSource(layout, group, seg)
	maps.Copy(src.Defines, cfg.Defines)
	e.defines = src.Defines
	p, err := dev.Program(src)
	if err != nil {
		return nil, fmt.Errorf("aes: building the kernels for %s: %w", dev.Name, err)
	}
	e.prog = p
	if e.tables, err = dev.Upload(device.Uint32Bytes(deviceTables())); err != nil {
		return nil, fmt.Errorf("aes: uploading the tables to %s: %w", dev.Name, err)
	}
	return e, nil
}

// programSource is the kernel program of an engine.
func programSource(layout Layout, group, segment int) device.Source {
	wide := "0"
	if layout == LayoutWide {
		wide = "1"
	}
	return kernels.Program("aes.cl", map[string]string{
		"AES_TABLES_WIDE": wide,
		"AES_GROUP":       strconv.Itoa(group),
		"GCM_SEGMENT":     strconv.Itoa(segment),
	})
}

// modesProgram builds (once) and returns the CBC and XTS program.
func (e *Engine) modesProgram() (*device.Program, error) {
	e.modesOnce.Do(func() {
		src := kernels.Program("aes_modes.cl", e.defines)
		e.modes, e.modesErr = e.dev.Program(src)
		if e.modesErr != nil {
			e.modesErr = fmt.Errorf("aes: building the CBC and XTS kernels for %s: %w", e.dev.Name, e.modesErr)
		}
	})
	return e.modes, e.modesErr
}

// Device is the engine's device.
func (e *Engine) Device() *device.Device { return e.dev }

// WorkGroup is the work-group size of the table kernels.
func (e *Engine) WorkGroup() int { return e.group }

// Segment is the number of GCM blocks one work-item hashes.
func (e *Engine) Segment() int { return 1 << e.segLog }

// Layout is the table layout the kernels use.
func (e *Engine) Layout() Layout { return e.layout }

// DeviceTime is the device time of every kernel the engine has run so far:
// benchmarks divide work by it.
func (e *Engine) DeviceTime() time.Duration { return time.Duration(e.kernelNs.Load()) }

// OnFallback sets the function told about each device failure that sent a
// call to the CPU (default: log.Print).
func (e *Engine) OnFallback(f func(error)) { e.fallbacks.OnFallback(f) }

// Fallbacks is the number of calls redone on the CPU so far.
func (e *Engine) Fallbacks() int { return e.fallbacks.Count() }

func (e *Engine) fellBack(err error) {
	e.fallbacks.Report(fmt.Errorf("aes: device %s failed, call redone on the CPU: %w", e.dev.Name, err))
}

// ReleaseBuffers frees the device buffers and the host staging memory
// kept for later calls.
func (e *Engine) ReleaseBuffers() {
	e.pool.Drain()
	e.releaseStages()
}

// tableBytes is the local memory of a kernel.
func (e *Engine) tableBytes(decrypt bool) int {
	n := compactTableBytes
	if e.layout == LayoutWide {
		n = wideTableBytes
	}
	if decrypt {
		n += invSboxBytes
	}
	return n
}

// globalSize is the launch size for work items of work: whole work-groups,
// no more than the device keeps resident (the kernels loop).
func (e *Engine) globalSize(work int) int {
	perUnit := 1
	if e.layout == LayoutCompact {
		perUnit = max(1, 2048/e.group)
	}
	groups := min((work+e.group-1)/e.group, e.dev.ComputeUnits*perUnit)
	return max(groups, 1) * e.group
}

// fail is the test hook.
func (e *Engine) fail() error {
	e.mu.Lock()
	hook := e.failHook
	e.mu.Unlock()
	if hook != nil {
		return hook()
	}
	return nil
}

// launch enqueues kern on q, as q.Launch does, unless the launch test
// hook fails it: a device that fails in the middle of a call, after some
// of its chunks are done and with the current one half enqueued.
func (e *Engine) launch(q *device.Queue, kern *device.Kernel, global, local int, args ...any) (*device.Event, error) {
	e.mu.Lock()
	hook := e.launchErr
	e.mu.Unlock()
	if hook != nil {
		if err := hook(); err != nil {
			return nil, err
		}
	}
	return q.Launch(kern, global, local, args...)
}

// alterResults is the other test hook: it may change the device's results
// of a batch call before they are checked.
func (e *Engine) alterResults(out [][]byte) {
	e.mu.Lock()
	alter := e.alter
	e.mu.Unlock()
	if alter != nil {
		alter(out)
	}
}

// launched records a kernel's event.
type launches []*device.Event

func (l *launches) add(ev *device.Event, err error) error {
	if err == nil {
		*l = append(*l, ev)
	}
	return err
}

// wait waits for every event, adds the kernels' time to the engine's and
// releases them.
func (e *Engine) wait(l launches) error {
	var first error
	for _, ev := range l {
		if err := ev.Wait(); err != nil && first == nil {
			first = err
		}
		if first == nil {
			if d, err := ev.Duration(); err == nil {
				e.kernelNs.Add(int64(d))
			}
		}
		ev.Release()
	}
	return first
}
