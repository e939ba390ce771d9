package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// The callers (--callers) and seconds of `gpucrypto bench server`, and
// those of --quick.
const (
	serverCallers      = "1,16,64,256,2048,16384,65536"
	serverQuickCallers = "1,16,256,16384"
	serverSeconds      = 2
	serverQuickSeconds = 1
)

var _ = benchCommands.add(benchCommand{
	name: "server",
	what: "every Server's operations: ops/s, p50, p99 against concurrent callers, beside Go's crypto/*",
	ops:  serverOpNames,
	run:  cmdBenchServer,
})

// cmdBenchServer measures the Servers as a server's goroutines meet them
// (throughput and latency against the number of concurrent callers), each
// row beside Go's crypto/* run by as many goroutines in the same process
// right after it.
func cmdBenchServer(args []string) error {
	fs := flag.NewFlagSet("bench server", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	settings := serverFlags(fs)
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	startTracing := traceFlag(fs)
	applyCrashOutput := crashOutputFlag(fs)
	fs.Usage = benchUsage(fs, "server")
	parseFlags(fs, args)
	if err := applyCrashOutput(); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench server: unexpected arguments %q", fs.Args())
	}
	set, err := settings()
	if err != nil {
		return err
	}
	out := serverOutput{table: os.Stdout}
	if set.asJSON {
		out = serverOutput{jsons: []io.Writer{os.Stdout}}
	}
	if set.jsonOut != "" {
		f, err := os.Create(set.jsonOut)
		if err != nil {
			return fmt.Errorf("bench server: --json-out: %w", err)
		}
		defer f.Close()
		out.jsons = append(out.jsons, f)
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return fmt.Errorf("bench server: --cpuprofile: %w", err)
		}
		defer stop()
	}
	stopTrace, err := startTracing()
	if err != nil {
		return fmt.Errorf("bench server: --trace: %w", err)
	}
	defer stopTrace()
	target, err := serverTargetOf(pickDevice, set, os.Stderr)
	if err != nil {
		return err
	}
	return runServerBench(set, target, &out, os.Stderr)
}

// serverSettings are the validated flags of `gpucrypto bench server`
// (those of the device, --cpuprofile and --trace apart).
type serverSettings struct {
	ops           []serverOp
	forms         []string
	callers       []int
	submitters    int
	sharedContext bool
	devices       string
	// deviceChosen: --device, --backend or --devices was given (no
	// device is then an error, not a run on CPU engines)
	deviceChosen bool
	opts         batch.Options
	warm, dur    time.Duration
	// rounds: each row's Server and Go windows, that many times in turn
	rounds  int
	asJSON  bool
	jsonOut string
}

// serverFlags adds the flags of `gpucrypto bench server` to fs; the
// function it returns, after fs is parsed, checks them and gives the
// settings, or an error naming the flag that is wrong.
func serverFlags(fs *flag.FlagSet) func() (serverSettings, error) {
	opsFlag := fs.String("ops", strings.Join(serverOpNames(), ","), serverOpsUsage())
	callersFlag := fs.String("callers", serverCallers, "numbers of concurrent callers (blocking), or of calls in flight (async); Go's side runs as many goroutines")
	async, allAsync := serverOpsWith(formAsync)
	asyncUsage := "every operation"
	if !allAsync {
		asyncUsage = wordList(async, "and") + "; the others' rows are skipped"
	}
	frames, _ := serverOpsWith(formAsyncFrames)
	formsFlag := fs.String("forms", formBlocking+","+formAsync, "forms of submission: blocking (one goroutine per caller), async (the Server's Go method, from --submitters goroutines: "+asyncUsage+
		"), async-frames ("+wordList(frames, "and")+" only: frames of "+strconv.Itoa(frameSize)+" calls from --submitters goroutines, Server.GoFrame, each frame back on a channel once)")
	submitters := fs.Int("submitters", 16, "goroutines that submit the async form's calls")
	sharedContext := fs.Bool("shared-context", false, "blocking callers pass one cancellable context they all share (the load's), instead of context.Background() (what crypto.Signer's Sign passes): every waiting caller then also waits on that context's channel (ecdsa-p256-sign-rfc6979's Signer takes none)")
	devicesFlag := fs.String("devices", "1", "numbers of GPUs behind the Server, one Engine each, measured in turn (\"1,2\": one, then two); the devices are the chosen one and others of the same name and backend; \"all\": every such device. With no device at all (and no --device, --backend or --devices), the Servers run over CPU engines")
	batchOptions := batchFlags(fs, "")
	seconds := fs.Float64("seconds", serverSeconds, "time per measurement (the Server's, then Go's), after the warm-up")
	warmup := fs.Float64("warmup", 0.5, "seconds of load before each measurement, not counted (the queue fills, batch sizes settle)")
	rounds := fs.Int("rounds", 1, "rounds of each row: the Server's window then Go's, that many times in turn; the row is the round whose ratio is the median, with the lowest and highest ratio (one window at low load moves by more than the 0.95 line between runs on a shared host)")
	quick := fs.Bool("quick", false, "fewer callers ("+serverQuickCallers+") and "+strconv.Itoa(serverQuickSeconds)+" s per measurement, where --callers and --seconds are not given")
	asJSON := fs.Bool("json", false, "print JSON lines instead of the table: the run first, then each row as it is measured")
	jsonOut := fs.String("json-out", "", "also write the JSON lines to this file, each row as it is measured")
	return func() (serverSettings, error) {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		s := serverSettings{submitters: *submitters, sharedContext: *sharedContext, devices: *devicesFlag,
			deviceChosen: given["device"] || given["backend"] || given["devices"], opts: batchOptions(), rounds: *rounds, asJSON: *asJSON, jsonOut: *jsonOut}
		for _, name := range strings.Split(*opsFlag, ",") {
			op, ok := serverOpNamed(name)
			if !ok {
				return s, checkBenchOps("server", []string{name})
			}
			s.ops = append(s.ops, op)
		}
		s.forms = strings.Split(*formsFlag, ",")
		for _, f := range s.forms {
			if !slices.Contains(serverForms, f) {
				return s, fmt.Errorf("bench server: --forms: unknown form %q (have %s)", f, strings.Join(serverForms, ", "))
			}
		}
		callers := *callersFlag
		if *quick && !given["callers"] {
			callers = serverQuickCallers
		}
		var err error
		if s.callers, err = positiveInts("callers", callers); err != nil {
			return s, err
		}
		if s.rounds < 1 {
			return s, fmt.Errorf("bench server: --rounds %d: want at least 1", s.rounds)
		}
		if s.submitters < 1 {
			return s, fmt.Errorf("bench server: --submitters %d: want at least 1", s.submitters)
		}
		secs := *seconds
		if *quick && !given["seconds"] {
			secs = serverQuickSeconds
		}
		if !(secs > 0) || secs > 1e6 {
			return s, fmt.Errorf("bench server: --seconds %v: want more than 0", secs)
		}
		if !(*warmup >= 0) || *warmup > 1e6 {
			return s, fmt.Errorf("bench server: --warmup %v: want 0 or more", *warmup)
		}
		s.dur, s.warm = time.Duration(secs*float64(time.Second)), time.Duration(*warmup*float64(time.Second))
		if s.devices != "all" {
			if _, err := positiveInts("devices", s.devices); err != nil {
				return s, err
			}
		}
		if err := checkBatchOptions(s.opts); err != nil {
			return s, fmt.Errorf("bench server: %w", err)
		}
		return s, nil
	}
}

// checkBatchOptions refuses the values of batchFlags' flags that mean
// nothing: negative sizes and delays, and negative counts other than -1
// where -1 has a meaning.
func checkBatchOptions(o batch.Options) error {
	switch {
	case o.MaxBatch < 0:
		return fmt.Errorf("--max-batch %d: want 0 (the default) or more", o.MaxBatch)
	case o.MaxDelay < 0:
		return fmt.Errorf("--max-delay %v: want 0 (the default) or more", o.MaxDelay)
	case o.Pipeline < 0:
		return fmt.Errorf("--pipeline %d: want 0 (the default) or more", o.Pipeline)
	case o.CPUOffload < -1:
		return fmt.Errorf("--offload %d: want -1 (none), 0 (the default) or more", o.CPUOffload)
	case o.AnswerPiece < -1:
		return fmt.Errorf("--answer-piece %d: want -1 (all cores), 0 (the default) or more", o.AnswerPiece)
	}
	return nil
}

// serverTarget is what the Servers run over: one engine per device of
// devs[:n] for each n of counts, measured in turn, or (d nil, counts
// [0]) one CPU engine.
type serverTarget struct {
	d      *device.Device
	devs   []*device.Device
	counts []int
}

// serverTargetOf resolves the device flags: the chosen device and those
// like it (--devices), or, where there is no device at all and none was
// asked for, CPU engines (said on notes).
func serverTargetOf(pickDevice func() (*device.Device, error), s serverSettings, notes io.Writer) (serverTarget, error) {
	d, err := pickDevice()
	if err != nil {
		if !errors.Is(err, device.ErrNoDevice) {
			return serverTarget{}, err
		}
		if s.deviceChosen {
			return serverTarget{}, fmt.Errorf("bench server: no device (with --device, --backend or --devices, no run over CPU engines): %w", err)
		}
		fmt.Fprintf(notes, "bench server: no device (%v): the Servers run over CPU engines\n", err)
		return serverTarget{counts: []int{0}}, nil
	}
	devs, counts, err := serverDevices(d, s.devices)
	if err != nil {
		return serverTarget{}, err
	}
	return serverTarget{d: d, devs: devs, counts: counts}, nil
}

// serverDevices resolves --devices: the devices like d (same name and
// backend, d first) and the counts to measure.
func serverDevices(d *device.Device, spec string) ([]*device.Device, []int, error) {
	all, err := device.Devices()
	if err != nil {
		return nil, nil, err
	}
	devs := []*device.Device{d}
	for _, o := range all {
		if o != d && o.Name == d.Name && o.Backend == d.Backend {
			devs = append(devs, o)
		}
	}
	if spec == "all" {
		return devs, []int{len(devs)}, nil
	}
	counts, err := positiveInts("devices", spec)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range counts {
		if n > len(devs) {
			return nil, nil, fmt.Errorf("bench server: --devices %d: have %d device(s) like %s", n, len(devs), d)
		}
	}
	return devs, counts, nil
}

// serverRow is one row of the run: an operation over a number of devices
// (0: a CPU engine), in a form, at a number of callers.
type serverRow struct {
	op      serverOp
	devices int
	form    string
	callers int
}

// serverPlan is the rows of the run, in order, and the forms asked for
// that some operations lack.
func serverPlan(s serverSettings, t serverTarget) (rows []serverRow, notMeasured []string) {
	for _, form := range s.forms {
		var lacking []string
		for _, op := range s.ops {
			if !slices.Contains(op.forms, form) && !slices.Contains(lacking, op.name) {
				lacking = append(lacking, op.name)
			}
		}
		if len(lacking) > 0 {
			notMeasured = append(notMeasured, fmt.Sprintf("%s: %s", form, strings.Join(lacking, ", ")))
		}
	}
	for _, op := range s.ops {
		for _, n := range t.counts {
			for _, form := range s.forms {
				if !slices.Contains(op.forms, form) {
					continue
				}
				for _, c := range s.callers {
					rows = append(rows, serverRow{op, n, form, c})
				}
			}
		}
	}
	return rows, notMeasured
}

// runServerBench measures the rows of s over t and writes each to out as
// soon as it is measured; notes gets what the run says beside them (the
// estimated time, the rows it skips).
func runServerBench(s serverSettings, t serverTarget, out *serverOutput, notes io.Writer) error {
	rows, notMeasured := serverPlan(s, t)
	if len(rows) == 0 {
		return fmt.Errorf("bench server: nothing to measure: no operation of --ops has a form of --forms (%s)", strings.Join(notMeasured, "; "))
	}
	estimate := time.Duration(len(rows)*s.rounds) * 2 * (s.warm + s.dur)
	fmt.Fprintf(notes, "bench server: %d rows, about %v of measurements (each row: the Server, then Go's crypto/*, each %v of warm-up and %v measured, %s), plus each Server's start-up and the time a Server takes after a window to answer the calls still waiting (long where its engines are slower than its callers ask: CPU engines at many callers)\n",
		len(rows), estimate.Round(time.Second), s.warm, s.dur, roundsNote(s.rounds))
	for _, m := range notMeasured {
		fmt.Fprintf(notes, "bench server: not measured (the Server has no such form yet): %s\n", m)
	}
	run := serverRun{runInfo: newRunInfo(t.d, "none (CPU engines)", "cpu"), Engines: "device", Forms: s.forms, Callers: s.callers,
		Devices: t.counts, Seconds: s.dur.Seconds(), Warmup: s.warm.Seconds(), Submitters: s.submitters, SharedContext: s.sharedContext,
		Options: optionsOf(s.opts), Rows: len(rows), Rounds: s.rounds, EstimatedS: estimate.Seconds(), NotMeasured: notMeasured}
	if t.d == nil {
		run.Engines = "cpu"
	}
	for _, op := range s.ops {
		run.Ops = append(run.Ops, op.name)
	}
	if err := out.start(run); err != nil {
		return err
	}
	for i := 0; i < len(rows); {
		first := rows[i]
		var devs []*device.Device
		if first.devices > 0 {
			devs = t.devs[:first.devices]
		}
		sv, err := first.op.start(devs, s.opts)
		if err != nil {
			return fmt.Errorf("bench server: %s: %w", first.op.name, err)
		}
		if err := sv.check(context.Background()); err != nil {
			sv.close()
			return fmt.Errorf("bench server: %s: the first call: %w", first.op.name, err)
		}
		for ; i < len(rows) && rows[i].op.name == first.op.name && rows[i].devices == first.devices; i++ {
			if err := measureRow(sv, rows[i], s, out); err != nil {
				sv.close()
				return err
			}
		}
		sv.close()
	}
	return nil
}

// measureRow measures one row on sv, the Server then Go's crypto/*, in
// s.rounds rounds, and writes the round whose ratio is the median (with
// the lowest and highest ratio of the rounds where there are several).
func measureRow(sv *serverBench, row serverRow, s serverSettings, out *serverOutput) error {
	rounds := make([]serverResult, s.rounds)
	for i := range rounds {
		r, err := measureRound(sv, row, s)
		if err != nil {
			return err
		}
		rounds[i] = r
	}
	slices.SortStableFunc(rounds, func(a, b serverResult) int { return cmp.Compare(a.Ratio, b.Ratio) })
	r := rounds[len(rounds)/2]
	if len(rounds) > 1 {
		r.Rounds, r.RatioLow, r.RatioHigh = len(rounds), rounds[0].Ratio, rounds[len(rounds)-1].Ratio
	}
	return out.row(r)
}

// roundsNote says how many rounds each row has, for the run's note.
func roundsNote(rounds int) string {
	if rounds == 1 {
		return "one round"
	}
	return fmt.Sprintf("%d rounds in turn, the median round's ratio", rounds)
}

// measureRound measures one round of a row: the Server's window, then
// Go's with as many goroutines.
func measureRound(sv *serverBench, row serverRow, s serverSettings) (serverResult, error) {
	load := serverLoad{form: row.form, callers: row.callers, submitters: s.submitters, sharedContext: s.sharedContext, warm: s.warm, dur: s.dur}
	r, err := measureServer(sv, load)
	if err != nil {
		return r, fmt.Errorf("bench server: %s, %s, %d callers: %w", row.op.name, row.form, row.callers, err)
	}
	r.Op, r.Devices = row.op.name, row.devices
	goroutines := row.callers
	if r.InFlight > 0 {
		goroutines = r.InFlight
	}
	if err := measureGo(&r, sv.newGoCaller, goroutines, s.warm, s.dur); err != nil {
		return r, fmt.Errorf("bench server: %s, Go's crypto/*, %d goroutines: %w", row.op.name, goroutines, err)
	}
	return r, nil
}

// batchFlags adds --max-batch, --max-delay, --pipeline, --offload,
// --answer-piece and --answer-alongside (the Servers' batch.Options;
// prefix starts their help) to a command's flags; the function it returns
// gives the options.
func batchFlags(fs *flag.FlagSet, prefix string) func() batch.Options {
	maxBatch := fs.Int("max-batch", 0, prefix+"batch.Options.MaxBatch (0: default)")
	maxDelay := fs.Duration("max-delay", 0, prefix+"batch.Options.MaxDelay (0: default)")
	pipeline := fs.Int("pipeline", 0, prefix+"batch.Options.Pipeline (0: default)")
	offload := fs.Int("offload", 0, prefix+"batch.Options.CPUOffload: requests on the CPU at once while the device would make them wait (0: default, GOMAXPROCS; -1: none, every request batched)")
	answerPiece := fs.Int("answer-piece", 0, prefix+"batch.Options.AnswerPiece: a batch's callers answered that many at a time, each piece by a goroutine of its own (0: the Server's default; -1: on all cores with batch.Parallel)")
	answerAlongside := fs.Bool("answer-alongside", false, prefix+"batch.Options.AnswerAlongside: with a positive --answer-piece, the batch's worker answers pieces too")
	return func() batch.Options {
		return batch.Options{MaxBatch: *maxBatch, MaxDelay: *maxDelay, Pipeline: *pipeline, CPUOffload: *offload,
			AnswerPiece: *answerPiece, AnswerAlongside: *answerAlongside}
	}
}
