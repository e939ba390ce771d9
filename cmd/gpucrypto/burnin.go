package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	mrand "math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// errBurninFailed is returned by burnin when a device result differed from
// the CPU's (or, with --strict, when a batch fell back to the CPU): the
// command then exits with status 1.
var errBurninFailed = errors.New("burn-in failed")

// burninOptions are the flags of burnin.
type burninOptions struct {
	ops       []string
	cases     int64         // per operation; 0: until the time is up
	duration  time.Duration // the whole run, shared equally by the operations; 0: until the cases are done
	batch     int           // cases per device call; 0: the operation's default
	workers   int           // batches in flight per operation
	seed      uint64
	cpuSample int // CPU recomputations: the first case of each batch and about 1 in cpuSample
	failures  string
	strict    bool
	rsaKeys   int
	progress  time.Duration
	// the soak (--soak): callers per Server, and the life of an Engine
	soak    bool
	callers int
	cycle   time.Duration
}

func cmdBurnin(args []string) error { return burnin(args, os.Stdout, os.Stderr) }

// burnin runs the command with its arguments; the report goes to stdout,
// progress lines to stderr.
func burnin(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("burnin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pickDevice := deviceFlags(fs)
	fs.Lookup("device").Usage = "device index or name substring, or all: every device (of --backend, if given), one after the other (default: GPUCRYPTO_DEVICE, else the best device)"
	var o burninOptions
	opsFlag := fs.String("ops", strings.Join(burninOpNames(), ","), burninOpsUsage())
	fs.Int64Var(&o.cases, "cases", 0, "cases per operation (0: until --duration is up; not with --soak)")
	fs.DurationVar(&o.duration, "duration", 0, "the whole run, shared equally by the operations (default 1m when --cases is not given); with --soak, the soak's time")
	fs.IntVar(&o.batch, "batch", 0, "cases per device call (default per operation: on a GPU "+burninBatchDefaults()+"; far fewer on a CPU device); with --soak, the largest batch of a direct call")
	fs.IntVar(&o.workers, "workers", 2, "batches in flight per operation (the host checks one while the device computes another); with --soak, the goroutines calling each Engine directly")
	fs.Uint64Var(&o.seed, "seed", 0, "seed of the random cases (0: a random seed, printed)")
	fs.IntVar(&o.cpuSample, "cpu-sample", 1000, "recompute the first case of each batch and about 1 in N others entirely on the CPU (x25519/x448, ed25519, ecdsa; rsa signatures); the soak checks every result")
	fs.StringVar(&o.failures, "failures", "burnin-failures.jsonl", "file for the failing cases, one JSON object a line (written only if one fails)")
	fs.BoolVar(&o.strict, "strict", false, "fail on device failures that fell back to the CPU too, not only on wrong results")
	fs.IntVar(&o.rsaKeys, "rsa-keys", 4, "RSA keys per size, generated at the start (not timed)")
	fs.DurationVar(&o.progress, "progress", 5*time.Second, "interval of the progress lines on stderr (0: none)")
	fs.BoolVar(&o.soak, "soak", false, "soak instead: until --duration, make and close Engines and Servers of every operation, call them from many goroutines with batch sizes and routes (device, CPU, auto) that change, close them under calls in flight, and check every result against Go's crypto (with GOTRACEBACK=crash and --crash-output: the fault-capture run of a GPU)")
	fs.IntVar(&o.callers, "callers", 32, "--soak: concurrent callers through each Server")
	fs.DurationVar(&o.cycle, "cycle", 10*time.Second, "--soak: about how long an Engine lives (half to one and a half times this), Servers over it coming and going meanwhile")
	report := jsonFlags(fs)
	report.stdoutTo = stdout
	applyCrashOutput := crashOutputFlag(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if err := applyCrashOutput(); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("burnin: unexpected arguments %q", fs.Args())
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *opsFlag != "" {
		o.ops = strings.Split(*opsFlag, ",")
	}
	if o.soak && !given["ops"] {
		o.ops = soakOpNames()
	}
	if err := o.check(given); err != nil {
		return fmt.Errorf("burnin: %w", err)
	}
	var ops []burninOp
	for _, name := range o.ops {
		op, err := burninOpNamed(name)
		if err != nil {
			return err
		}
		ops = append(ops, op)
	}
	if o.soak {
		if err := checkSoakOps(o.ops); err != nil {
			return err
		}
	}
	if o.seed == 0 {
		o.seed = mrand.Uint64() | 1
	}
	devs, err := burninDevices(fs, pickDevice)
	if err != nil {
		return err
	}
	log := &failureLog{path: o.failures}
	defer log.close()
	keys := &rsaKeyPool{count: o.rsaKeys}
	var info runInfo
	if len(devs) == 1 {
		info = newRunInfo(devs[0], "", "")
	} else {
		info = newRunInfo(nil, "all", fs.Lookup("backend").Value.String())
	}
	rep := burninReport{runInfo: info, Seed: o.seed, CPUSample: o.cpuSample, Soak: o.soak}
	if o.soak {
		rep.CPUSample = 0
		rep.Callers, rep.Workers, rep.Cycle = o.callers, o.workers, o.cycle.String()
	}
	if err := report.start(rep); err != nil {
		return err
	}
	defer report.close()
	failed := false
	for _, d := range devs {
		if o.soak {
			sr, err := newSoakRun(o, d, log, keys, stderr)
			if err != nil {
				return err
			}
			runErr := sr.run()
			results := sr.results()
			for _, res := range results {
				rep.Results = append(rep.Results, res)
				if err := report.result(res); err != nil {
					return err
				}
			}
			if !report.toStdout() {
				printSoakReport(stdout, sr, results)
			}
			if runErr != nil {
				return runErr
			}
			failed = failed || sr.failed()
			continue
		}
		r := &burninRun{opts: o, dev: d, log: log, keys: keys, stderr: stderr}
		stats, err := r.run(ops, func(st *burninStats) error {
			res := st.result(d)
			rep.Results = append(rep.Results, res)
			return report.result(res)
		})
		if err != nil {
			return err
		}
		if !report.toStdout() {
			printBurninReport(stdout, r, stats)
		}
		for _, st := range stats {
			failed = failed || st.mismatches.Load() > 0 || (o.strict && st.fallbacks.Load() > 0)
		}
	}
	rep.FailuresFile, rep.FailuresWritten, rep.FailuresDropped = log.path, log.written, log.dropped
	if log.written == 0 {
		rep.FailuresFile = ""
	}
	rep.Passed = !failed
	if err := report.finish(rep); err != nil {
		return err
	}
	if log.written > 0 && !report.toStdout() {
		fmt.Fprintf(stdout, "failing cases: %d written to %s", log.written, log.path)
		if log.dropped > 0 {
			fmt.Fprintf(stdout, " (%d more not written)", log.dropped)
		}
		fmt.Fprintln(stdout)
	}
	if log.err != nil {
		return fmt.Errorf("burnin: writing %s: %w", log.path, log.err)
	}
	if failed {
		return errBurninFailed
	}
	return nil
}

// check checks the options, each error naming its flag; given are the
// flags on the command line.
func (o *burninOptions) check(given map[string]bool) error {
	if len(o.ops) == 0 {
		return errors.New("--ops: no operation")
	}
	if o.soak {
		if given["cases"] {
			return errors.New("--cases: not with --soak, which runs until --duration")
		}
		if o.duration == 0 {
			o.duration = time.Minute
		}
		if o.duration < 0 {
			return fmt.Errorf("--duration %v: want a time above 0", o.duration)
		}
		if o.cycle <= 0 {
			return fmt.Errorf("--cycle %v: want a time above 0", o.cycle)
		}
		if err := atLeast("callers", o.callers, 1); err != nil {
			return err
		}
	} else {
		for _, name := range []string{"callers", "cycle"} {
			if given[name] {
				return fmt.Errorf("--%s: only with --soak", name)
			}
		}
	}
	if o.cases == 0 && o.duration == 0 {
		o.duration = time.Minute
	}
	for _, c := range []struct {
		name         string
		value, least int64
	}{{"cases", o.cases, 0}, {"batch", int64(o.batch), 0}, {"workers", int64(o.workers), 1},
		{"cpu-sample", int64(o.cpuSample), 1}, {"rsa-keys", int64(o.rsaKeys), 1}} {
		if err := atLeast(c.name, c.value, c.least); err != nil {
			return err
		}
	}
	if err := nonNegativeDuration("duration", o.duration); err != nil {
		return err
	}
	return nonNegativeDuration("progress", o.progress)
}

// burninReport is the JSON of burnin: the run (the device, or "all") and
// a result per operation and device, or per operation of the soak.
type burninReport struct {
	runInfo
	Seed      uint64 `json:"seed"`
	CPUSample int    `json:"cpu_sample,omitempty"`
	Soak      bool   `json:"soak,omitempty"`
	Callers   int    `json:"soak_callers_per_server,omitempty"`
	Workers   int    `json:"soak_direct_callers_per_engine,omitempty"`
	Cycle     string `json:"soak_cycle,omitempty"`
	// the end of the run (the document of --json only)
	Passed          bool   `json:"passed,omitempty"`
	FailuresFile    string `json:"failures_file,omitempty"`
	FailuresWritten int    `json:"failures_written,omitempty"`
	FailuresDropped int    `json:"failures_not_written,omitempty"`
	// Results are burninResult rows, or soakResult rows for the soak.
	Results []any `json:"results,omitempty"`
}

// burninResult is one operation on one device in the JSON report.
type burninResult struct {
	Device        string  `json:"device"`
	Backend       string  `json:"backend"`
	Op            string  `json:"op"`
	Batch         int     `json:"batch"`
	Cases         int64   `json:"cases"`
	CasesPerS     float64 `json:"cases_per_s"`
	Seconds       float64 `json:"seconds"`
	CPUChecked    int64   `json:"cpu_checked"`
	Mismatches    int64   `json:"mismatches"`
	Fallbacks     int64   `json:"fallbacks"`
	FirstFallback string  `json:"first_fallback,omitempty"`
}

// result is st as a row of the JSON report.
func (st *burninStats) result(d *device.Device) burninResult {
	r := burninResult{Device: d.Name, Backend: d.Backend, Op: st.op, Batch: st.batch, Cases: st.cases.Load(), Seconds: st.seconds,
		CPUChecked: st.cpuChecked.Load(), Mismatches: st.mismatches.Load(), Fallbacks: st.fallbacks.Load()}
	if st.seconds > 0 {
		r.CasesPerS = float64(r.Cases) / st.seconds
	}
	st.fallbackMu.Lock()
	r.FirstFallback = st.firstFallback
	st.fallbackMu.Unlock()
	return r
}

// burninDevices resolves --device: "all" is every device (of --backend,
// if given), anything else one device as the other commands choose it.
func burninDevices(fs *flag.FlagSet, pick func() (*device.Device, error)) ([]*device.Device, error) {
	if fs.Lookup("device").Value.String() != "all" {
		d, err := pick()
		if err != nil {
			return nil, err
		}
		return []*device.Device{d}, nil
	}
	b := fs.Lookup("backend").Value.String()
	if err := setBackend(b); err != nil {
		return nil, err
	}
	devs, err := device.Devices()
	if err != nil && b != "" {
		return nil, fmt.Errorf("--backend %s: %w", b, err)
	}
	return devs, err
}

// burninOp is one operation of the burn-in.
type burninOp struct {
	name      string
	algorithm string // its algorithm in internal/registry
	// batchGPU and batchCPU are the default cases per device call on a
	// GPU and on another device (a CPU through PoCL).
	batchGPU, batchCPU int
	// prepare makes the operation's check on r's device (RSA keys are made
	// here, outside the timed rate).
	prepare func(r *burninRun) (burninCheck, error)
}

// burninCheck computes one batch of random cases on the device and checks
// each against the CPU, reporting failures through b.
type burninCheck func(b *burninBatch)

// burninSkipped is the error of an operation's prepare when the operation
// does not run on the device by design (AES on a CPU device: the aes
// package refuses those): the report says it was not run and why, and it
// fails nothing.
type burninSkipped struct{ err error }

func (s burninSkipped) Error() string { return s.err.Error() }
func (s burninSkipped) Unwrap() error { return s.err }

// burninOpPattern is a pattern of names of operations beyond those of
// burninOps: rsaNNNN, RSA of any size.
type burninOpPattern struct {
	pattern   string // as --ops' help names it: "rsaNNNN"
	algorithm string // its algorithm in internal/registry
	help      string // the names it takes: "any size from 1024 to 4096, a multiple of 8"
	// resolve is the operation of name where name is of the pattern (ok;
	// err: it is, but it names no operation, and says why).
	resolve func(name string) (op burninOp, ok bool, err error)
}

// burninOps are the operations of burnin, the default --ops, and
// burninOpPatterns the other names it takes (tables.go).
var (
	burninOps        = newTable(func(op burninOp) string { return op.algorithm })
	burninOpPatterns = newTable(func(p burninOpPattern) string { return p.algorithm })
)

// burninOpNames are the operations of --ops, in the default order.
func burninOpNames() []string {
	var names []string
	for _, op := range burninOps.all() {
		names = append(names, op.name)
	}
	return names
}

// burninOpNamed is the operation of an --ops name.
func burninOpNamed(name string) (burninOp, error) {
	for _, op := range burninOps.all() {
		if op.name == name {
			return op, nil
		}
	}
	if p, ok := burninPatternOf(name); ok {
		op, _, err := p.resolve(name)
		if err != nil {
			return burninOp{}, fmt.Errorf("burnin: %s: %w", name, err)
		}
		return op, nil
	}
	return burninOp{}, fmt.Errorf("burnin: unknown operation %q (have %s)", name, strings.Join(burninOpNames(), ", "))
}

// burninPatternOf is the pattern whose names include name.
func burninPatternOf(name string) (burninOpPattern, bool) {
	for _, p := range burninOpPatterns.all() {
		if _, ok, _ := p.resolve(name); ok {
			return p, true
		}
	}
	return burninOpPattern{}, false
}

// burninOpsUsage is the help of --ops: the operations, the patterns, and
// those of the soak.
func burninOpsUsage() string {
	var patterns, soakPatterns []string
	for _, p := range burninOpPatterns.all() {
		patterns = append(patterns, p.pattern+": "+p.help)
	}
	for _, op := range soakOperations.all() {
		if op.pattern != "" {
			soakPatterns = append(soakPatterns, op.pattern)
		}
	}
	usage := "operations: " + strings.Join(burninOpNames(), ", ")
	if len(patterns) > 0 {
		usage += " (" + strings.Join(patterns, "; ") + ")"
	}
	usage += "; with --soak: " + strings.Join(soakOpNames(), ", ") + " (the default)"
	if len(soakPatterns) > 0 {
		usage += " and " + wordList(soakPatterns, "and")
	}
	return usage
}

// burninBatchDefaults are the operations' default batches on a GPU, for
// the help of --batch: "262144 for x25519, 131072 for ed25519 and ecdsa,
// ...", largest first.
func burninBatchDefaults() string {
	var sizes []int
	names := map[int][]string{}
	for _, op := range burninOps.all() {
		if names[op.batchGPU] == nil {
			sizes = append(sizes, op.batchGPU)
		}
		names[op.batchGPU] = append(names[op.batchGPU], op.name)
	}
	slices.SortFunc(sizes, func(a, b int) int { return b - a })
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		parts[i] = fmt.Sprintf("%d for %s", n, wordList(names[n], "and"))
	}
	return strings.Join(parts, ", ")
}

// burninRun is the burn-in of one device.
type burninRun struct {
	opts   burninOptions
	dev    *device.Device
	log    *failureLog
	keys   *rsaKeyPool
	stderr io.Writer

	engines engineCache // made by burninEngineOf

	current atomic.Pointer[burninStats] // the operation running: fallbacks are counted there
}

// burninStats are the counts of one operation.
type burninStats struct {
	op                            string
	batch                         int
	cases, mismatches, cpuChecked atomic.Int64
	fallbacks                     atomic.Int64
	seconds                       float64
	fallbackMu                    sync.Mutex
	firstFallback                 string
	skipped                       string // why the operation was not run (burninSkipped)
}

// fellBack counts a device failure reported by an engine.
func (r *burninRun) fellBack(err error) {
	st := r.current.Load()
	if st == nil {
		return
	}
	st.fallbacks.Add(1)
	st.fallbackMu.Lock()
	if st.firstFallback == "" {
		st.firstFallback = err.Error()
	}
	st.fallbackMu.Unlock()
}

// burninEngine is what the run needs of an engine: its device failures
// counted and its calls kept on the device.
type burninEngine interface {
	OnFallback(func(error))
	SetRoute(batch.Route)
}

// burninEngineOf is r's engine of type E, made by newEngine on r's
// device on first use (the operations of one package share it), its
// fallbacks counted by the run.
func burninEngineOf[E burninEngine](r *burninRun, newEngine func(*device.Device) (E, error)) (E, error) {
	if r.engines == nil {
		r.engines = engineCache{}
	}
	return engineOf(r.engines, func() (E, error) {
		e, err := newEngine(r.dev)
		if err != nil {
			return e, err
		}
		e.OnFallback(r.fellBack)
		e.SetRoute(batch.RouteDevice) // a burn-in tests the device, whatever the CPU does
		return e, nil
	})
}

// run runs every operation in turn, and gives done each operation's
// counts as it ends.
func (r *burninRun) run(ops []burninOp, done func(*burninStats) error) ([]*burninStats, error) {
	var stats []*burninStats
	for _, op := range ops {
		st, err := r.runOp(op, r.opts.duration/time.Duration(len(ops)))
		if err != nil {
			return stats, fmt.Errorf("burnin: %s on %s: %w", op.name, r.dev.Name, err)
		}
		stats = append(stats, st)
		if err := done(st); err != nil {
			return stats, err
		}
	}
	return stats, nil
}

// runOp runs one operation for its share of the time or its cases,
// whichever ends first, with opts.workers batches in flight.
func (r *burninRun) runOp(op burninOp, budget time.Duration) (*burninStats, error) {
	check, err := op.prepare(r)
	if skip := (burninSkipped{}); errors.As(err, &skip) {
		return &burninStats{op: op.name, skipped: skip.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	size := r.opts.batch
	if size == 0 {
		size = op.batchCPU
		if r.dev.Type == device.TypeGPU {
			size = op.batchGPU
		}
	}
	if r.opts.cases > 0 {
		size = int(min(int64(size), r.opts.cases))
	}
	st := &burninStats{op: op.name, batch: size}
	r.current.Store(st)
	defer r.current.Store(nil)
	start := time.Now()
	var deadline time.Time
	if budget > 0 {
		deadline = start.Add(budget)
	}
	var claimed, batches atomic.Int64
	var wg sync.WaitGroup
	for range r.opts.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for deadline.IsZero() || time.Now().Before(deadline) {
				n := int64(size)
				if r.opts.cases > 0 {
					first := claimed.Add(n) - n
					if first >= r.opts.cases {
						return
					}
					n = min(n, r.opts.cases-first)
				}
				number := batches.Add(1) - 1
				b := &burninBatch{run: r, stats: st, number: number, n: int(n),
					rng: mrand.New(mrand.NewChaCha8(r.batchSeed(op.name, number)))}
				check(b)
				st.cases.Add(n)
			}
		}()
	}
	done := make(chan struct{})
	var progress sync.WaitGroup
	if r.opts.progress > 0 {
		progress.Add(1)
		go func() {
			defer progress.Done()
			tick := time.NewTicker(r.opts.progress)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					r.progressLine(st, time.Since(start))
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	progress.Wait()
	st.seconds = time.Since(start).Seconds()
	r.progressLine(st, time.Since(start))
	return st, nil
}

func (r *burninRun) progressLine(st *burninStats, elapsed time.Duration) {
	n := st.cases.Load()
	fmt.Fprintf(r.stderr, "burnin %s %-8s %12d cases %10s/s  mismatches %d  fallbacks %d  (%s)\n", r.dev.Name, st.op, n,
		human(float64(n)/elapsed.Seconds()), st.mismatches.Load(), st.fallbacks.Load(), elapsed.Round(time.Second))
}

// batchSeed is the seed of batch number of op: a run's cases depend on
// --seed only, not on which worker took which batch.
func (r *burninRun) batchSeed(op string, number int64) (seed [32]byte) {
	h := fnv.New64a()
	h.Write([]byte(op))
	binary.LittleEndian.PutUint64(seed[0:], r.opts.seed)
	binary.LittleEndian.PutUint64(seed[8:], h.Sum64())
	binary.LittleEndian.PutUint64(seed[16:], uint64(number))
	return seed
}

// burninBatch is one batch of random cases of an operation.
type burninBatch struct {
	run    *burninRun
	stats  *burninStats
	number int64 // batch number within the operation
	n      int
	rng    *mrand.Rand
}

// sampled reports whether case i is recomputed entirely on the CPU: the
// first of each batch and about one in --cpu-sample.
func (b *burninBatch) sampled(i int) bool {
	return i == 0 || b.rng.IntN(b.run.opts.cpuSample) == 0
}

// bytes are n random bytes.
func (b *burninBatch) bytes(n int) []byte {
	p := make([]byte, n)
	for i := 0; i < n; i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], b.rng.Uint64())
		copy(p[i:], w[:])
	}
	return p
}

// tamper is the tests' seam: it may change the device's results of a
// batch before they are checked (nil: results are left alone).
var burninTamper func(op string, results [][]byte)

func (b *burninBatch) tamper(results [][]byte) {
	if burninTamper != nil {
		burninTamper(b.stats.op, results)
	}
}

// fail records case i as failing: what went wrong, its inputs, the
// device's and the CPU's outputs (hex), and the device's error if any.
func (b *burninBatch) fail(i int, what string, input, got, want map[string]string, err error) {
	b.stats.mismatches.Add(1)
	rec := burninFailure{Op: b.stats.op, Device: b.run.dev.Name, Backend: b.run.dev.Backend, Seed: b.run.opts.seed,
		Batch: b.number, Case: i, What: what, Input: input, Got: got, Want: want}
	if err != nil {
		rec.Error = err.Error()
	}
	b.run.log.add(&rec)
}

// failAll records a call that failed as a whole: every case of the batch
// is counted as failing, one record says why.
func (b *burninBatch) failAll(call string, err error) {
	b.stats.mismatches.Add(int64(b.n) - 1)
	b.fail(-1, call+" failed as a whole", nil, nil, nil, err)
}

// elementErrors spreads the error of a batch call over its n elements:
// nil for none, the *batch.Error's entries, or ok=false for an error of
// the whole call.
func elementErrors(err error, n int) (errs []error, ok bool) {
	errs = make([]error, n)
	if err == nil {
		return errs, true
	}
	var be *batch.Error
	if errors.As(err, &be) && len(be.Errs) == n {
		return be.Errs, true
	}
	return nil, false
}

// printBurninReport writes the table of a device's run.
func printBurninReport(w io.Writer, r *burninRun, stats []*burninStats) {
	fmt.Fprintf(w, "burn-in on %s (%s), seed %d, CPU sample 1 in %d\n", r.dev.Name, r.dev.Backend, r.opts.seed, r.opts.cpuSample)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tbatch\tcases\tcases/s\tseconds\tmismatches\tfallbacks\t")
	var mismatches, fallbacks int64
	for _, st := range stats {
		if st.skipped != "" {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t\n", st.op)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%.1f\t%d\t%d\t\n", st.op, st.batch, st.cases.Load(),
			human(float64(st.cases.Load())/st.seconds), st.seconds, st.mismatches.Load(), st.fallbacks.Load())
		mismatches += st.mismatches.Load()
		fallbacks += st.fallbacks.Load()
	}
	tw.Flush()
	for _, st := range stats {
		if st.skipped != "" {
			fmt.Fprintf(w, "%s: not run on this device: %s\n", st.op, st.skipped)
		}
		if st.firstFallback != "" {
			fmt.Fprintf(w, "%s: the device failed %d times and the engine recomputed those batches on the CPU; the first: %s\n", st.op, st.fallbacks.Load(), st.firstFallback)
		}
	}
	verdict := "PASS"
	if mismatches > 0 || (r.opts.strict && fallbacks > 0) {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s: %d mismatches, %d fallbacks to the CPU", verdict, mismatches, fallbacks)
	if fallbacks > 0 && !r.opts.strict {
		fmt.Fprint(w, " (results right, but the device failed: see above; --strict fails on them)")
	}
	fmt.Fprintln(w)
}

// burninFailure is one failing case in the failures file.
type burninFailure struct {
	Op      string            `json:"op"`
	Device  string            `json:"device"`
	Backend string            `json:"backend"`
	Seed    uint64            `json:"seed"`
	Batch   int64             `json:"batch"`
	Case    int               `json:"case"` // within the batch; -1: the whole call
	What    string            `json:"what"`
	Input   map[string]string `json:"input,omitempty"` // hex
	Got     map[string]string `json:"device_output,omitempty"`
	Want    map[string]string `json:"cpu_output,omitempty"`
	Error   string            `json:"device_error,omitempty"`
}

// maxFailureRecords bounds the failures file: a broken device would
// otherwise fill the disk.
const maxFailureRecords = 1000

// failureLog writes failing cases to a file, created at the first.
type failureLog struct {
	path             string
	mu               sync.Mutex
	f                *os.File
	written, dropped int
	err              error
}

func (l *failureLog) add(rec *burninFailure) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written >= maxFailureRecords || l.err != nil {
		l.dropped++
		return
	}
	if l.f == nil {
		if l.f, l.err = os.Create(l.path); l.err != nil {
			l.dropped++
			return
		}
	}
	line, err := json.Marshal(rec)
	if err == nil {
		line = append(line, '\n')
		_, err = l.f.Write(line)
	}
	if err != nil {
		l.err = err
		l.dropped++
		return
	}
	l.written++
}

func (l *failureLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		if err := l.f.Close(); err != nil && l.err == nil {
			l.err = err
		}
		l.f = nil
	}
}

// hexMap is a map of hex strings.
func hexMap(kv ...any) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case []byte:
			m[kv[i].(string)] = fmt.Sprintf("%x", v)
		default:
			m[kv[i].(string)] = fmt.Sprint(v)
		}
	}
	return m
}

// signatureVerdict judges case i of a signature burn-in from the device's
// answers alone: its signing error, and the verification of its own
// signature (element i) and of a corrupted copy (element t, −1 for none)
// with their errors; what is empty where they are right.
func signatureVerdict(signErr error, verifyErrs []error, verdicts []bool, i, t int) (what string, err error) {
	switch {
	case signErr != nil:
		return "the device failed the signature", signErr
	case verifyErrs[i] != nil:
		return "the device failed the verification", verifyErrs[i]
	case t >= 0 && verifyErrs[t] != nil:
		return "the device failed the verification", verifyErrs[t]
	case !verdicts[i]:
		return "the device refused its own signature", nil
	case t >= 0 && verdicts[t]:
		return "the device accepted a corrupted signature", nil
	}
	return "", nil
}
