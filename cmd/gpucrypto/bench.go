package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/latency"
)

type benchResult struct {
	Op                string  `json:"op"`
	Bits              int     `json:"bits"`
	Batch             int     `json:"batch"`
	Runs              int     `json:"runs"`
	KernelOps         float64 `json:"gpu_kernel_ops_per_s"`          // from device event timings (median)
	E2EOps            float64 `json:"gpu_end_to_end_ops_per_s"`      // allocation, transfers and kernel (median)
	LatencyMs         float64 `json:"gpu_batch_latency_ms"`          // median end-to-end time of one batch
	CPUOps            float64 `json:"cpu_ops_per_s"`                 // math/big on all cores, same run
	Speedup           float64 `json:"speedup_end_to_end"`            // E2EOps / CPUOps
	BinvGroup         int     `json:"binv_group,omitempty"`          // x25519, ...: the batch-inversion group size the batch used; *-binv ops: the K asked for
	IntoCallerBuffers bool    `json:"into_caller_buffers,omitempty"` // ecdh ops, ed25519-sign and ecdsa-p256-sign: results written into slices the caller reuses (SharedSecretsInto, SignInto, SignASN1Into)
	BinvAuto          bool    `json:"binv_auto,omitempty"`           // BinvGroup is the library's automatic choice (ecdh.BatchInversionAuto)
	// ecdh ops: Pipeline batches of the same size run at once from as many
	// goroutines, as a Server with batch.Options.Pipeline keeps them in
	// flight: all their elements / wall time.
	PipeOps  float64 `json:"gpu_pipelined_ops_per_s,omitempty"`
	Pipeline int     `json:"pipeline,omitempty"`
	// AutoOps is the end-to-end rate with the engine choosing device or
	// CPU per call (batch.RouteAuto, the default), after a few calls to
	// measure both; AutoPath says where its calls ran ("device", "cpu",
	// or the device's share of the elements).
	AutoOps  float64 `json:"auto_end_to_end_ops_per_s,omitempty"`
	AutoPath string  `json:"auto_path,omitempty"`
	// CPUCallOps is the rate of the same calls computed on the CPU by the
	// engine (batch.RouteCPU: the CPU engine's code on all cores), the
	// call shape CPUOps' independent workers do not have.
	CPUCallOps float64 `json:"cpu_engine_call_ops_per_s,omitempty"`
	// Anatomy is where the end-to-end calls' device batches spent their
	// time, per batch (batch.Stats' BatchTime, WaitTime, DeviceTime): the
	// host's own work, waiting for the device's commands, and the kernels
	// within that wait (bench ed25519 and ecdsa).
	Anatomy *batchAnatomy `json:"batch_anatomy,omitempty"`
}

// batchAnatomy is a benchResult's Anatomy, in milliseconds per batch.
type batchAnatomy struct {
	Batches  int64   `json:"batches"`
	HostMs   float64 `json:"host_ms"`
	WaitMs   float64 `json:"wait_ms"`
	KernelMs float64 `json:"kernel_ms"`
}

// anatomyOf is the anatomy of the batches between the stats before and
// after (nil when none ran).
func anatomyOf(before, after batch.Stats) *batchAnatomy {
	n := after.Batches - before.Batches
	if n <= 0 {
		return nil
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	wait := after.WaitTime - before.WaitTime
	return &batchAnatomy{
		Batches:  n,
		HostMs:   ms(after.BatchTime - before.BatchTime - wait),
		WaitMs:   ms(wait),
		KernelMs: ms(after.DeviceTime - before.DeviceTime),
	}
}

// routed is an engine whose route can be set and whose work is counted:
// every package's Engine.
type routed interface {
	SetRoute(batch.Route)
	Stats() batch.Stats
}

// signaturePipeline is the number of callers of the pipelined figure of
// the signature engines (bench ed25519, bench ecdsa), as for RSA: the host
// packs one batch while the device computes another.
const signaturePipeline = 2

// callerOutputs are sets of n outputs of size bytes each (each set one
// slab), one set per caller in flight: a caller takes a set from the
// channel for its call and gives it back after, so that the calls into
// the caller's outputs (SharedSecretsInto, SignInto, SignASN1Into) write
// over memory that they wrote before, as a server reusing its buffers
// does.
func callerOutputs(sets, n, size int) chan [][]byte {
	outs := make(chan [][]byte, sets)
	for range sets {
		out := make([][]byte, n)
		slab := make([]byte, n*size)
		for i := range out {
			out[i] = slab[i*size : (i+1)*size]
		}
		outs <- out
	}
	return outs
}

// measureEngine measures run, a call of op on batches of n on e: the
// device figures, the auto figure, the pipelined one, and cpu (one
// operation i) on all cores in the same run; a fallback to the CPU fails
// it. The engine's buffers are released afterwards (the next measurement
// may use other sizes).
func measureEngine(e interface {
	routed
	ReleaseBuffers()
}, op string, bits, n int, dur time.Duration, run func() (time.Duration, error), cpu func(i int)) (benchResult, error) {
	e.SetRoute(batch.RouteDevice)
	before := e.Stats()
	r, err := measure(op, bits, n, dur, run)
	if err != nil {
		return r, err
	}
	r.Anatomy = anatomyOf(before, e.Stats())
	fallbacks := before.Fallbacks
	// the auto figure before the pipelined one, whose concurrent calls
	// leave the engine device times that include waiting for each other
	if err := measureAuto(&r, e, dur, run); err != nil {
		return r, err
	}
	if r.PipeOps, err = pipelined(signaturePipeline, n, dur, run); err != nil {
		return r, err
	}
	r.Pipeline = signaturePipeline
	if e.Stats().Fallbacks > fallbacks {
		return benchResult{}, fmt.Errorf("device failed; the batch ran on the CPU")
	}
	r.CPUOps = allCores(dur, cpu)
	r.Speedup = r.E2EOps / r.CPUOps
	e.ReleaseBuffers()
	return r, nil
}

// noAuto is --no-auto: skip the RouteAuto figures (long batches, where
// only the device figures are wanted).
var noAuto bool

// autoWarmup is the number of calls a measurement with batch.RouteAuto
// makes first, so that the engine has measured both paths.
const autoWarmup = 6

// measureAuto adds to r the end-to-end rates of run (one batch of r.Batch
// elements) on the CPU and with e choosing device or CPU per call, and
// where those calls ran (routeRates).
func measureAuto(r *benchResult, e routed, dur time.Duration, run func() (time.Duration, error)) error {
	call := func() error { _, err := run(); return err }
	rate := func() (float64, error) {
		m, err := measure(r.Op, r.Bits, r.Batch, dur, run)
		return m.E2EOps, err
	}
	var err error
	r.CPUCallOps, r.AutoOps, r.AutoPath, err = routeRates(e, call, rate)
	return err
}

// routeRates returns the rate of call that rate measures on the CPU
// (batch.RouteCPU), then with e choosing device or CPU per call
// (batch.RouteAuto) after autoWarmup calls to measure both, and where
// those calls ran; e is left on batch.RouteDevice. With --no-auto it
// measures nothing.
func routeRates(e routed, call func() error, rate func() (float64, error)) (cpu, auto float64, path string, err error) {
	if noAuto {
		return 0, 0, "", nil
	}
	defer e.SetRoute(batch.RouteDevice)
	e.SetRoute(batch.RouteCPU)
	if cpu, err = rate(); err != nil {
		return 0, 0, "", err
	}
	e.SetRoute(batch.RouteAuto)
	for range autoWarmup {
		if err := call(); err != nil {
			return 0, 0, "", err
		}
	}
	before := e.Stats()
	if auto, err = rate(); err != nil {
		return 0, 0, "", err
	}
	after := e.Stats()
	return cpu, auto, pathOf(after.DeviceOps-before.DeviceOps, after.CPUOps-before.CPUOps), nil
}

// pathOf says where dev + cpu elements ran: "device", "cpu", or the
// device's share.
func pathOf(dev, cpu int64) string {
	switch {
	case cpu == 0:
		return "device"
	case dev == 0:
		return "cpu"
	}
	return fmt.Sprintf("device %.0f%%", 100*float64(dev)/float64(dev+cpu))
}

// runInfo is what every bench report says of its run: the device, the
// code and the host.
type runInfo struct {
	Device  string `json:"device"`
	Backend string `json:"backend"`
	// DeviceType is the device's kind as device.Info.TypeName spells it
	// (GPU, CPU, ACCEL, OTHER): plots label a CPU device (PoCL) as one.
	DeviceType string `json:"device_type,omitempty"`
	Commit     string `json:"commit"`
	GoVersion  string `json:"go"`
	CPU        string `json:"cpu"`
	CPUCores   int    `json:"cpu_cores"`
	Date       string `json:"date"`
}

// newRunInfo describes a run now on d (nil: none; name and backend then
// say why).
func newRunInfo(d *device.Device, name, backend string) runInfo {
	r := runInfo{Device: name, Backend: backend, Commit: commit(), GoVersion: runtime.Version(),
		CPU: cpuModel(), CPUCores: runtime.NumCPU(), Date: time.Now().UTC().Format(time.RFC3339)}
	if d != nil {
		r.Device, r.Backend, r.DeviceType = d.Name, d.Backend, d.TypeName()
	}
	return r
}

// writeJSON writes v, indented, to the file path (--json-out).
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

type benchReport struct {
	runInfo
	Driver    string        `json:"driver"`
	InlinePTX bool          `json:"inline_ptx"`
	Results   []benchResult `json:"results,omitempty"` // absent from the first line of --json-out (the run)
}

// benchCase is one measurement of bench: an operation on batches of one
// size (and one operand size, or batch-inversion group), measured when
// measure is called.
type benchCase struct {
	op          string
	bits, batch int
	label       string // the operation in the progress line ("": op)
	measure     func() (benchResult, error)
}

// benchRun is one bench on a device: the time of each measurement, and
// the engines of its operations.
type benchRun struct {
	d       *device.Device
	dur     time.Duration
	engines engineCache
}

// benchEngineOf is r's engine of type E, made by newEngine on r's device
// when the first operation that needs it runs.
func benchEngineOf[E any](r *benchRun, newEngine func(*device.Device) (E, error)) (E, error) {
	return engineOf(r.engines, func() (E, error) { return newEngine(r.d) })
}

func cmdBench(args []string) error {
	// "bench rsa", "bench ecdh", "bench arith", ...: a group of
	// operations (benchGroups); "bench aes", "bench server", "bench tls":
	// commands of their own (benchCommands)
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	if sub == "help" {
		sub, args = "", []string{"-h"}
	}
	if c, ok := benchCommandNamed(sub); ok {
		return c.run(args)
	}
	groups := benchGroups.all()
	if sub != "" {
		g, ok := benchGroupNamed(sub)
		if !ok {
			return fmt.Errorf("bench: unknown subcommand %q (have %s; see \"gpucrypto bench -h\")", sub, strings.Join(benchSubcommandNames(), ", "))
		}
		groups = []benchGroup{g}
	}
	name := benchName(sub)
	groupOps := benchOpsOf(sub)
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	opsFlag := fs.String("ops", strings.Join(groupOps, ","), "operations: "+strings.Join(groupOps, ", "))
	batchFlag := fs.String("batch", "", batchUsage(groups))
	// each subcommand's help shows only the flags that bear on its
	// operations: its group's (plain bench: every group's)
	checks := make([]func() (benchPlan, error), len(groups))
	for i, g := range groups {
		checks[i] = g.flags(fs, sub != "")
	}
	seconds := fs.Float64("seconds", 1, "time per measurement (GPU and CPU each), above 0")
	fs.BoolVar(&noAuto, "no-auto", false, "skip the auto figure (the engine choosing device or CPU per call)")
	report := jsonFlags(fs)
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	startTracing := traceFlag(fs)
	applyCrashOutput := crashOutputFlag(fs)
	fs.Usage = benchUsage(fs, sub)
	parseFlags(fs, args)
	if err := applyCrashOutput(); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected arguments %q (a subcommand comes first: gpucrypto bench SUBCOMMAND [flags])", name, fs.Args())
	}
	// every flag is checked before the device is touched
	ops := strings.Split(*opsFlag, ",")
	if err := checkBenchOps(sub, ops); err != nil {
		return err
	}
	dur, err := positiveSeconds("seconds", *seconds)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	plans := map[string]benchPlan{} // by group
	for i, g := range groups {
		if plans[g.name], err = checks[i](); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	var batchList []int
	if *batchFlag != "" {
		if batchList, err = positiveInts("batch", *batchFlag); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}

	d, err := pickDevice()
	if err != nil {
		return err
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	stopTrace, err := startTracing()
	if err != nil {
		return err
	}
	defer stopTrace()
	// the device figures force the device; each bench measures its
	// RouteAuto figure apart (measureAuto)
	run := &benchRun{d: d, dur: dur, engines: engineCache{}}
	var cases []benchCase
	for _, op := range ops {
		for _, g := range groups {
			if !slices.Contains(g.ops, op) {
				continue
			}
			batches := g.cpuBatches
			if d.Type == device.TypeGPU {
				batches = g.gpuBatches
			}
			if batchList != nil {
				batches = batchList
			}
			cases = append(cases, plans[g.name](run, op, batches)...)
		}
	}
	rep := benchReport{runInfo: newRunInfo(d, "", ""), Driver: d.DriverVersion, InlinePTX: d.CarryChains}
	if err := report.start(rep); err != nil {
		return err
	}
	defer report.close()
	// each row is printed (and written to --json-out) as soon as it is
	// measured
	var table *rowTable
	if !report.toStdout() {
		fmt.Printf("device: %s (%s, driver %s, inline PTX %v)\ncommit: %s  %s  CPU: %s, %d threads\n\n",
			rep.Device, rep.Backend, rep.Driver, rep.InlinePTX, rep.Commit, rep.GoVersion, rep.CPU, rep.CPUCores)
		table = newBenchTable()
	}
	for i, bc := range cases {
		label := bc.label
		if label == "" {
			label = bc.op
		}
		progress(i+1, len(cases), fmt.Sprintf("%s %d-bit, batch %d", label, bc.bits, bc.batch))
		r, err := bc.measure()
		progressDone()
		if err != nil {
			return fmt.Errorf("bench %s %d batch %d: %w", bc.op, bc.bits, bc.batch, err)
		}
		rep.Results = append(rep.Results, r)
		if err := report.result(r); err != nil {
			return err
		}
		if table != nil {
			table.benchRow(r)
		}
	}
	return report.finish(rep)
}

// newBenchTable prints the titles of bench's table and returns it.
func newBenchTable() *rowTable {
	return newRowTable(os.Stdout,
		column{"op", 22}, column{"bits", 4}, column{"batch", 7},
		column{"device kernel ops/s", 0}, column{"device end-to-end ops/s", 0}, column{"batch latency ms", 0},
		column{"pipelined ops/s", 0}, column{"CPU engine ops/s (same call)", 0}, column{"auto ops/s (path)", 22},
		column{"auto / best", 0}, column{"CPU ops/s (all cores)", 0}, column{"end-to-end / CPU", 0},
		column{"per device batch ms: host / wait (kernels)", 0})
}

// benchRow prints r as a row of bench's table.
func (t *rowTable) benchRow(r benchResult) {
	pipe := "-"
	if r.Pipeline > 0 {
		pipe = fmt.Sprintf("%s (P=%d)", human(r.PipeOps), r.Pipeline)
	}
	cpuCall, auto, best := "-", "-", "-"
	if r.AutoOps > 0 {
		cpuCall = human(r.CPUCallOps)
		auto = fmt.Sprintf("%s (%s)", human(r.AutoOps), r.AutoPath)
		best = fmt.Sprintf("%.2fx", r.AutoOps/max(r.E2EOps, r.CPUCallOps))
	}
	anatomy := "-"
	if a := r.Anatomy; a != nil {
		anatomy = fmt.Sprintf("%.2f / %.2f (%.2f)", a.HostMs, a.WaitMs, a.KernelMs)
	}
	t.row(ecdhLabel(r), strconv.Itoa(r.Bits), strconv.Itoa(r.Batch), human(r.KernelOps), human(r.E2EOps),
		fmt.Sprintf("%.3f", r.LatencyMs), pipe, cpuCall, auto, best, human(r.CPUOps), fmt.Sprintf("%.2fx", r.Speedup), anatomy)
}

// measure runs one batch to warm up (build, first allocation), then repeats
// it for at least dur and three runs; run returns the kernel's device time.
func measure(op string, bits, n int, dur time.Duration, run func() (time.Duration, error)) (benchResult, error) {
	if _, err := run(); err != nil {
		return benchResult{}, err
	}
	var kernel, wall []time.Duration
	start := time.Now()
	for len(wall) < 3 || time.Since(start) < dur {
		t0 := time.Now()
		k, err := run()
		if err != nil {
			return benchResult{}, err
		}
		wall = append(wall, time.Since(t0))
		kernel = append(kernel, k)
	}
	return benchResult{
		Op: op, Bits: bits, Batch: n, Runs: len(wall),
		KernelOps: float64(n) / median(kernel).Seconds(),
		E2EOps:    float64(n) / median(wall).Seconds(),
		LatencyMs: float64(median(wall).Microseconds()) / 1000,
	}, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// pipelined runs run (one batch of n elements) from p goroutines at once,
// each repeating it for at least dur and twice, and returns all their
// elements per second of wall time: the end-to-end throughput of a Server
// that keeps p batches in flight on one Engine, with the host work of some
// overlapping the device work of others.
func pipelined(p, n int, dur time.Duration, run func() (time.Duration, error)) (float64, error) {
	var wg sync.WaitGroup
	var done atomic.Int64
	errs := make(chan error, p)
	start := time.Now()
	for range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 2 || time.Since(start) < dur; k++ {
				if _, err := run(); err != nil {
					errs <- err
					return
				}
				done.Add(int64(n))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return float64(done.Load()) / elapsed.Seconds(), nil
}

// intList parses a comma-separated list of whole numbers of 1 or more
// (positiveInts, which names the flag, is the one to use).
func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("%q in %q is not a whole number of 1 or more", f, s)
		}
		out = append(out, v)
	}
	return out, nil
}

func human(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fK", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		if rev != "" {
			return rev
		}
	}
	return "unknown"
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

var isTTY = func() bool {
	fi, err := os.Stderr.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}()

// progress shows which measurement runs: one updating line on a terminal,
// one line per step otherwise.
func progress(i, n int, what string) {
	if isTTY {
		fmt.Fprintf(os.Stderr, "\r\033[K[%d/%d] %s", i, n, what)
	} else {
		fmt.Fprintf(os.Stderr, "[%d/%d] %s\n", i, n, what)
	}
}

func progressDone() {
	if isTTY {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
}

// allCores runs f(0), f(1), ... on every core for dur and returns calls/s.
func allCores(dur time.Duration, f func(i int)) float64 {
	var count atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(dur)
	for w := range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := int64(0)
			for i := w; time.Now().Before(deadline); i += runtime.NumCPU() {
				f(i)
				done++
			}
			count.Add(done)
		}()
	}
	wg.Wait()
	return float64(count.Load()) / time.Since(start).Seconds()
}

// startCPUProfile starts a pprof CPU profile into file; the function it
// returns stops it and closes the file.
func startCPUProfile(file string) (func(), error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "--cpuprofile:", err)
		}
	}, nil
}

// traceFlag defines --trace on fs; the function it returns starts the
// trace the flag asks for (none without it) and returns the function that
// stops it. A trace shows what a profile cannot: when each goroutine of a
// call ran, waited or was blocked, so whether the host work of one device
// batch overlaps the device work of the others, and where the GC stops
// them.
func traceFlag(fs *flag.FlagSet) func() (stop func(), err error) {
	file := fs.String("trace", "", "write a runtime/trace of the run to this file, for go tool trace: every goroutine's timeline (each device batch's host work, its wait for the device, the GC); about 10-100 MB a second of run, so keep --seconds and the operations few")
	return func() (func(), error) {
		if *file == "" {
			return func() {}, nil
		}
		return startTrace(*file)
	}
}

// startTrace starts a runtime/trace into file; the function it returns
// stops it and closes the file.
func startTrace(file string) (func(), error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--trace: %w", err)
	}
	return func() {
		trace.Stop()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "--trace:", err)
		}
	}, nil
}

// loadWindow is what runLoad measured: the operations that completed
// within the window, and the latencies of those that started in it (a
// histogram with buckets of 3–6%, as the Servers' Stats: keeping every
// latency would allocate, in the measured process, more than the Servers
// do).
type loadWindow struct {
	completed int
	started   int64 // operations that started in the window and completed
	latency   *latency.Histogram
}

// percentileMs is the p-th latency percentile (0 < p ≤ 1) in
// milliseconds: the upper bound of the histogram's bucket.
func (w loadWindow) percentileMs(p float64) float64 {
	if w.latency == nil {
		return 0
	}
	return float64(w.latency.Percentile(100*p)) / 1e6
}

// loadShards is the number of latency histograms the goroutines of a load
// add to (goroutine g to g % loadShards): fewer goroutines meet on each
// one's counters.
const loadShards = 16

// merge returns the window of completed operations and the latency
// histograms hists, merged.
func merge(completed int, hists []latency.Histogram) loadWindow {
	w := loadWindow{completed: completed, latency: new(latency.Histogram)}
	for i := range hists {
		w.latency.Merge(&hists[i])
	}
	w.started = w.latency.Count()
	return w
}

// runLoad runs n goroutines, each calling op one operation at a time, for
// warm and then dur (the window), as a server's goroutines would. edge,
// when set, runs at the window's start and end (to sample counters). The
// first error stops every goroutine (op's context ends) and is returned.
func runLoad(n int, warm, dur time.Duration, op func(ctx context.Context) error, edge func(start bool)) (loadWindow, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu        sync.Mutex
		completed int
		hists     [loadShards]latency.Histogram
		firstErr  error
		wg        sync.WaitGroup
	)
	from := time.Now().Add(warm)
	to := from.Add(dur)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := &hists[g%loadShards]
			done := 0
			defer func() {
				mu.Lock()
				completed += done
				mu.Unlock()
			}()
			for ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(to) {
					return
				}
				if err := op(ctx); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				t1 := time.Now()
				if !t0.Before(from) {
					mine.Add(t1.Sub(t0))
				}
				if !t1.Before(from) && t1.Before(to) {
					done++
				}
			}
		}()
	}
	wait := func(t time.Time) bool {
		timer := time.NewTimer(time.Until(t))
		defer timer.Stop()
		select {
		case <-timer.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if wait(from) && edge != nil {
		edge(true)
		if wait(to) {
			edge(false)
		}
	}
	wg.Wait()
	if firstErr != nil {
		return loadWindow{}, firstErr
	}
	return merge(completed, hists[:]), nil
}
