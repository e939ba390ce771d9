package aes

import (
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
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
	// encrypts and hashes, one after the other (default 8: the lines a
	// work-group's segments read, 512 work-items × 128 bytes, can stay in
	// the L1 cache beside the round tables in shared memory while each
	// work-item reads its segment block by block); a power of two from 1
	// to 256.
	Segment int
	// StageBytes and Stages size the device batches of the host-memory
	// calls: the most bytes of one batch (a multiple of 16, at least 4096;
	// default 32 MB) and the batches in flight at once (1 to 64; default
	// 4).
	StageBytes, Stages int
	// Defines are extra -D definitions for the kernels: tuning knobs for
	// experiments (kernels/aes.cl: GHASH_WAYS).
	Defines map[string]string
}

// Engine runs AES on one device (NewEngine), or on the CPU cores
// (CPUEngine: crypto/aes and crypto/cipher, x/crypto's XTS algorithm).
// It is safe for concurrent use.
//
// A device Engine computes each call from host memory where it is faster
// (SetRoute): on the device, or on the CPU cores with the CPU engine's
// code, as measured for the call's mode, key and message size and batch
// size while the engine runs (on a host whose cores have AES
// instructions, much traffic from host memory is faster on the CPU than
// through a GPU's bus). Calls on device buffers (the *Device methods)
// always run on the device. When the device fails during a call, what it
// did not finish is redone on the CPU and the failure is reported through
// OnFallback (and the logger of SetLogger): results are never wrong
// because of a device fault. A result is written only once the device has
// completed it, so what is redone still has its input, in place too.
//
// Its controls are batch.Engine's. Its operations, in Stats, are
// elements: a GCM, CBC or XTS message (a piece of one larger than a
// batch), or a piece of up to 64 KiB of a bulk call; device-resident calls
// run on the device whatever the route. SetResultCheck (off in a new
// Engine) checks a sampled element's result before the batch's results
// are written, so a batch that fails it is recomputed from its inputs, in
// place too.
type Engine struct {
	engine.Controls // batch.Engine's controls
	core            *engine.Core
	// the device's program and tables (nil on the CPU engine)
	prog    *device.Program
	tables  *device.Buffer
	layout  Layout
	group   int
	segLog  uint // log2 of the GCM segment
	defines map[string]string
	// batchBytes bounds the bytes of one device batch of the host-memory
	// calls (Config.StageBytes); depth is the batches in flight at once
	// (Config.Stages).
	batchBytes, depth int

	// modes is the program of CBC and XTS (kernels/aes_modes.cl), built
	// on first use.
	modesOnce sync.Once
	modes     *device.Program
	modesErr  error
}

// NewEngine builds the AES kernels for dev (nil: device.Default(), the
// device Auto chooses; where Auto would take the CPU engine, the error of
// Default, which says why) with the default Config.
func NewEngine(dev *device.Device) (*Engine, error) { return NewEngineConfig(dev, Config{}) }

// NewEngineConfig builds the AES kernels for dev (nil: device.Default(),
// as NewEngine).
// It refuses a CPU device (an OpenCL CPU runtime such as PoCL: dev.Type is
// device.TypeCPU) with an error wrapping ErrCPUDevice: the kernels' round
// tables are read at indices made from key and data bytes, which on a GPU
// cost the same whatever they are (doc.go, Constant time) but on a CPU
// select cache lines that another process on the same cores can observe.
// CPUEngine computes on those cores with their AES instructions instead.
func NewEngineConfig(dev *device.Device, cfg Config) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	if dev.Type == device.TypeCPU && !cpuDevicesAllowed.Load() {
		return nil, cpuDeviceError{dev.Name}
	}
	k, err := resolveConfig(dev, cfg)
	if err != nil {
		return nil, err
	}
	e := &Engine{layout: k.layout, group: k.group, segLog: k.segLog}
	if err := e.setBatching(cfg); err != nil {
		return nil, err
	}
	src := k.source(cfg)
	e.defines = src.Defines
	p, err := dev.Program(src)
	if err != nil {
		return nil, fmt.Errorf("aes: building the kernels for %s: %w", dev.Name, err)
	}
	e.prog = p
	if e.tables, err = dev.Upload(device.Uint32Bytes(deviceTables())); err != nil {
		return nil, fmt.Errorf("aes: uploading the tables to %s: %w", dev.Name, err)
	}
	e.core = engine.New("aes", dev)
	e.Controls = engine.ControlsOf(e.core)
	e.core.OnClose(e.tables.Release)
	return e, nil
}

// cpuDevicesAllowed lets NewEngineConfig build the kernels on a CPU
// device: set only by the package's tests (export_test.go), which run the
// kernels on PoCL where no GPU is.
var cpuDevicesAllowed atomic.Bool

// kernelConfig is a Config resolved for one device: the layout, the
// work-group and the GCM segment the kernels are built with.
type kernelConfig struct {
	layout Layout
	group  int
	segLog uint // log2 of the GCM segment
}

// resolveConfig picks the defaults of cfg for dev and checks that dev can
// run them.
func resolveConfig(dev *device.Device, cfg Config) (kernelConfig, error) {
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
		return kernelConfig{}, fmt.Errorf("aes: the %s table layout needs %d bytes of local memory; %s allows %d", layout, need, dev.Name, dev.MaxSharedMem)
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
		return kernelConfig{}, fmt.Errorf("aes: work-group of %d work-items: want a multiple of 32 (and %s allows at most %d)", group, dev.Name, dev.MaxGroup)
	}
	seg := cfg.Segment
	if seg == 0 {
		seg = 8
	}
	if seg < 1 || seg > 256 || seg&(seg-1) != 0 {
		return kernelConfig{}, fmt.Errorf("aes: GCM segment of %d blocks: want a power of two from 1 to 256", seg)
	}
	k := kernelConfig{layout: layout, group: group}
	for 1<<k.segLog < seg {
		k.segLog++
	}
	return k, nil
}

// source is the table kernels' program (aes.cl) of k, with cfg's extra
// definitions.
func (k kernelConfig) source(cfg Config) device.Source {
	src := programSource(k.layout, k.group, 1<<k.segLog)
	maps.Copy(src.Defines, cfg.Defines)
	return src
}

// CPUEngine returns an Engine that computes on the CPU cores with
// crypto/aes and crypto/cipher (constant-time where the CPU has AES
// instructions), XTS with x/crypto's algorithm on crypto/aes. It is the
// CPU path of every device Engine too. Its calls on device buffers fail.
func CPUEngine() *Engine {
	core := engine.New("aes", nil)
	e := &Engine{Controls: engine.ControlsOf(core), core: core, segLog: 4}
	e.setBatching(Config{})
	return e
}

// Auto returns an Engine on a GPU (device.Choose), or CPUEngine() where
// there is none, its kernels do not build, or the device chosen (by
// GPUCRYPTO_DEVICE) is a CPU device, which NewEngine refuses; the Choice
// says which and why.
func Auto() (*Engine, device.Choice) { return engine.Auto(NewEngine, CPUEngine) }

// setBatching sets the batches of the host-memory calls from cfg.
func (e *Engine) setBatching(cfg Config) error {
	e.batchBytes, e.depth = stageBytes, stageCount
	if cfg.StageBytes != 0 {
		if cfg.StageBytes < 4096 || cfg.StageBytes%16 != 0 {
			return fmt.Errorf("aes: stage of %d bytes: want a multiple of 16, at least 4096", cfg.StageBytes)
		}
		e.batchBytes = cfg.StageBytes
	}
	if cfg.Stages != 0 {
		if cfg.Stages < 1 || cfg.Stages > 64 {
			return fmt.Errorf("aes: %d pipeline stages: want 1 to 64", cfg.Stages)
		}
		e.depth = cfg.Stages
	}
	return nil
}

const (
	stageCount = 4        // default batches in flight (Config.Stages)
	stageBytes = 32 << 20 // default bytes of a batch (Config.StageBytes)
)

// The layout of a key record in device memory (kernels/aes.cl,
// kernels/aes_modes.cl), defined here and handed to the kernels as -D
// definitions (programSource): the schedule (at most 60 words) from word
// 0, the number of rounds at keyRecordRounds; for GCM, H, H², H³ and H⁴
// from keyRecordHash and, from keyRecordLevels, the power each reduction
// level l ≥ 1 combines with, H^(segment·16^(l−1)), 4 words each; CBC and
// XTS records are modeRecordWords long.
const (
	keyRecordRounds = 60
	keyRecordHash   = 64
	keyRecordLevels = 80
	modeRecordWords = 64
)

// programSource is the kernel program of an engine.
func programSource(layout Layout, group, segment int) device.Source {
	wide := "0"
	if layout == LayoutWide {
		wide = "1"
	}
	return kernels.Program("aes.cl", map[string]string{
		"AES_TABLES_WIDE":   wide,
		"AES_GROUP":         strconv.Itoa(group),
		"GCM_SEGMENT":       strconv.Itoa(segment),
		"KEY_RECORD_ROUNDS": strconv.Itoa(keyRecordRounds),
		"KEY_RECORD_H":      strconv.Itoa(keyRecordHash),
		"KEY_RECORD_LEVELS": strconv.Itoa(keyRecordLevels),
		"MODE_RECORD_WORDS": strconv.Itoa(modeRecordWords),
	})
}

// modesProgram builds (once) and returns the CBC and XTS program.
func (e *Engine) modesProgram() (*device.Program, error) {
	e.modesOnce.Do(func() {
		src := kernels.Program("aes_modes.cl", e.defines)
		e.modes, e.modesErr = e.core.Device().Program(src)
		if e.modesErr != nil {
			e.modesErr = fmt.Errorf("aes: building the CBC and XTS kernels for %s: %w", e.core.Device().Name, e.modesErr)
		}
	})
	return e.modes, e.modesErr
}

// WorkGroup is the work-group size of the table kernels (0 on the CPU
// engine).
func (e *Engine) WorkGroup() int { return e.group }

// Segment is the number of GCM blocks one work-item hashes.
func (e *Engine) Segment() int { return 1 << e.segLog }

// Layout is the table layout the kernels use (LayoutAuto on the CPU
// engine).
func (e *Engine) Layout() Layout { return e.layout }

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
	groups := min((work+e.group-1)/e.group, e.core.Device().ComputeUnits*perUnit)
	return max(groups, 1) * e.group
}

// launchTables launches one of the table kernels (those that take the
// round tables in local memory) among cmds over work items.
func (e *Engine) launchTables(cmds *device.Commands, prog *device.Program, name string, work int, decrypt bool, args ...any) error {
	kern, err := prog.Kernel(name)
	if err != nil {
		return err
	}
	args = append([]any{device.Local(e.tableBytes(decrypt)), e.tables}, args...)
	return cmds.Launch(kern, e.globalSize(work), e.group, args...)
}

// onDevice is a device-resident call of one set of device commands.
func (e *Engine) onDevice(enqueue func(cmds *device.Commands) error) error {
	return e.resident(func(ch *engine.Chunk) error { return ch.Run(enqueue) })
}

// resident runs f as a device-resident call: one device batch of the
// engine's core, on the device whatever the route (on the CPU engine: an
// error).
func (e *Engine) resident(f func(ch *engine.Chunk) error) error {
	return e.core.Run(engine.Plan{Op: "resident", N: 1, Resident: true}, residentJob(f))
}

// residentJob is a device-resident call as a job: device work only.
type residentJob func(ch *engine.Chunk) error

func (r residentJob) Device(ch *engine.Chunk) error { return r(ch) }

func (r residentJob) CPU(lo, hi int) { panic("aes: a device-resident call on the CPU") }

// ProgramBuild is one program of an engine's kernels: its source (the
// kernel file with its -D options), its kernels and a description.
type ProgramBuild struct {
	Source  device.Source
	Kernels []string
	Desc    string
}

// KernelBuilds are the programs of a device engine, as it builds them
// (aes.cl for ECB, CTR and GCM; aes_modes.cl for CBC and XTS), for tools
// such as gpucrypto kernelinfo; none on the CPU engine.
func (e *Engine) KernelBuilds() []ProgramBuild {
	if e.prog == nil {
		return nil
	}
	return programBuilds(e.defines, e.layout, e.group, e.Segment())
}

// KernelBuilds are the programs that NewEngineConfig(dev, cfg) would
// build, without an engine: for tools that compile the kernels to inspect
// them (gpucrypto kernelinfo), on any device, CPU devices too (compiling
// computes nothing with a key).
func KernelBuilds(dev *device.Device, cfg Config) ([]ProgramBuild, error) {
	k, err := resolveConfig(dev, cfg)
	if err != nil {
		return nil, err
	}
	return programBuilds(k.source(cfg).Defines, k.layout, k.group, 1<<k.segLog), nil
}

// programBuilds are the two programs built with defines.
func programBuilds(defines map[string]string, layout Layout, group, segment int) []ProgramBuild {
	desc := fmt.Sprintf("(layout %s, work-group %d, GCM segment %d)", layout, group, segment)
	return []ProgramBuild{
		{kernels.Program("aes.cl", defines), []string{"aes_ecb_encrypt", "aes_ecb_decrypt", "aes_ctr", "gcm_segments", "gcm_segments_r10", "gcm_segments_r12", "gcm_segments_r14", "gcm_reduce", "gcm_reduce_one", "gcm_finish"}, desc},
		{kernels.Program("aes_modes.cl", defines), []string{"cbc_encrypt", "cbc_decrypt", "xts_tweak", "xts_encrypt", "xts_decrypt"}, desc},
	}
}

var _ batch.Engine = (*Engine)(nil)
