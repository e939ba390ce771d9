package main

import (
	"context"
	"crypto"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/cputime"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// serverResult is one line of `gpucrypto bench server`: callers goroutines
// each doing one operation at a time through a Server (the blocking
// form), or as many calls kept in flight by a few goroutines (the
// asynchronous form), for a while.
type serverResult struct {
	Op   string `json:"op"`
	Form string `json:"form"` // "blocking", "async" or "async-frames"
	// Callers is the number of blocking callers, or of calls in flight
	// (async).
	Callers int `json:"callers"`
	// Submitters is the number of goroutines that submit the async calls.
	Submitters int     `json:"submitters,omitempty"`
	Ops        float64 `json:"ops_per_s"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	Count      int     `json:"operations"`
	Devices    int     `json:"devices"`         // engines (one per GPU) behind the Server
	OnCPU      float64 `json:"on_cpu_fraction"` // of the operations, computed on the CPU (the CPU path of batch.NewWithCPU, or batches the engines routed there)
	// CPUSingleMs is the median latency of one operation alone on the CPU
	// engine (rsa.CPUEngine, ecdh.CPUEngine), measured in the same run: the
	// reference for a lone caller's latency.
	CPUSingleMs float64 `json:"cpu_single_ms"`
	// MeanBatch is the mean size of the device batches of the window.
	MeanBatch float64 `json:"mean_batch"`
	// CPUPer1000 is the host CPU time of the whole process (user and
	// system, the callers' own loop included) per 1,000 operations in the
	// window, in seconds (0: not measured on this system).
	CPUPer1000 float64 `json:"cpu_s_per_1000_ops"`
}

// cmdBenchServer measures the Servers as a server's goroutines meet them:
// throughput and latency against the number of concurrent callers.
func cmdBenchServer(args []string) error {
	fs := flag.NewFlagSet("bench server", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	opsFlag := fs.String("ops", "rsa2048,x25519", "operations: rsa2048 (Signer.Sign, PKCS #1 v1.5 SHA-256), x25519 (SharedSecret)")
	callersFlag := fs.String("callers", "1,16,256,2048,16384,65536", "numbers of concurrent callers (blocking), or of calls in flight (async)")
	formsFlag := fs.String("forms", "blocking,async", "forms of submission: blocking (one goroutine per caller, Signer.SignContext, Server.SharedSecret), async (Signer.Go, Server.Go from --submitters goroutines), async-frames (x25519 only: frames of 64 calls from --submitters goroutines, Server.GoFrame, each frame back on a channel once)")
	submitters := fs.Int("submitters", 16, "goroutines that submit the async form's calls")
	sharedContext := fs.Bool("shared-context", false, "blocking callers pass one cancellable context they all share (the load's), instead of context.Background() (what crypto.Signer's Sign passes): every waiting caller then also waits on that context's channel")
	devicesFlag := fs.String("devices", "1", "numbers of GPUs behind the Server, one Engine each, measured in turn (\"1,2\": one, then two); the devices are the chosen one and others of the same name and backend; \"all\": every such device")
	batchOptions := batchFlags(fs, "")
	seconds := fs.Float64("seconds", 2, "time per measurement, after the warm-up")
	warmup := fs.Float64("warmup", 0.5, "seconds of load before each measurement, not counted (the queue fills, batch sizes settle)")
	jsonOut := fs.String("json-out", "", "also write the results as JSON to this file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	startTracing := traceFlag(fs)
	fs.Usage = benchUsage(fs, "server")
	parseFlags(fs, args)
	if fs.NArg() > 0 {
		return fmt.Errorf("bench server: unexpected arguments %q", fs.Args())
	}
	if err := checkBenchOps("server", strings.Split(*opsFlag, ",")); err != nil {
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
	d, err := pickDevice()
	if err != nil {
		return err
	}
	callers, err := intList(*callersFlag)
	if err != nil {
		return err
	}
	devs, counts, err := serverDevices(d, *devicesFlag)
	if err != nil {
		return err
	}
	forms := strings.Split(*formsFlag, ",")
	for _, f := range forms {
		if f != "blocking" && f != "async" && f != "async-frames" {
			return fmt.Errorf("bench server: --forms: unknown form %q (have blocking, async, async-frames)", f)
		}
	}
	if *submitters < 1 {
		return fmt.Errorf("bench server: --submitters %d: want at least 1", *submitters)
	}
	opts := batchOptions()
	dur := time.Duration(*seconds * float64(time.Second))
	warm := time.Duration(*warmup * float64(time.Second))
	var results []serverResult
	for _, op := range strings.Split(*opsFlag, ",") {
		single, err := cpuSingleLatency(op)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s: one operation alone on the CPU backend: %.3f ms (median)\n", op, single)
		for _, nd := range counts {
			sv, err := benchServer(op, devs[:nd], opts)
			if err != nil {
				return err
			}
			// a first call: builds and first batches
			if err := sv.call(context.Background()); err != nil {
				return err
			}
			for _, form := range forms {
				if form == "async-frames" && op != "x25519" {
					continue // only ecdh.Server has GoFrame
				}
				for _, n := range callers {
					r, err := serveLoad(op, form, n, *submitters, *sharedContext, warm, dur, sv)
					if err != nil {
						return err
					}
					r.Devices, r.CPUSingleMs = nd, single
					fmt.Fprintf(os.Stderr, "%s, %s, %d device(s), %d callers: %.0f ops/s, p50 %.2f ms, p99 %.2f ms, %.1f%% on the CPU, batches of %.0f, %.4f CPU s per 1000\n", op, form, nd, n, r.Ops, r.P50Ms, r.P99Ms, 100*r.OnCPU, r.MeanBatch, r.CPUPer1000)
					results = append(results, r)
				}
			}
			sv.close()
		}
	}
	if *jsonOut != "" {
		err := writeJSON(*jsonOut, struct {
			runInfo
			Results []serverResult `json:"results"`
		}{newRunInfo(d, "", ""), results})
		if err != nil {
			return err
		}
	}
	fmt.Printf("device: %s (%s)  commit: %s\n\n", d.Name, d.Backend, commit())
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tform\tdevices\tcallers\tops/s\tp50 ms\tp99 ms\ton CPU\tmean batch\tCPU s/1000 ops\tCPU alone ms\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%.2f\t%.2f\t%.1f%%\t%.0f\t%.4f\t%.3f\t\n", r.Op, r.Form, r.Devices, r.Callers, human(r.Ops), r.P50Ms, r.P99Ms, 100*r.OnCPU, r.MeanBatch, r.CPUPer1000, r.CPUSingleMs)
	}
	return tw.Flush()
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
	counts, err := intList(spec)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range counts {
		if n < 1 || n > len(devs) {
			return nil, nil, fmt.Errorf("bench server: --devices %d: have %d device(s) like %s", n, len(devs), d)
		}
	}
	return devs, counts, nil
}

// server is a Server of `gpucrypto bench server` for one operation: one
// blocking operation through it, a submitter of the asynchronous form
// with a window of calls, the Server's Stats (the operations on its CPU
// path and those its engines computed, on the device or the CPU), and the
// function that closes it.
type server struct {
	call         func(context.Context) error
	newSubmitter func(window int) submitter
	// newFrameSubmitter: the same in frames (nil: no such form)
	newFrameSubmitter func(window int) submitter
	stats             func() batch.Stats
	close             func()
}

// benchServer starts a Server for op over one Engine per device.
func benchServer(op string, devs []*device.Device, opts batch.Options) (server, error) {
	switch op {
	case "rsa2048":
		var engines []*rsa.Engine
		for _, d := range devs {
			e, err := rsa.NewEngine(d)
			if err != nil {
				return server{}, err
			}
			// as a server does at start-up: every kernel a batch size may use
			if err := e.Warm(2048); err != nil {
				return server{}, err
			}
			engines = append(engines, e)
		}
		key, err := benchKey(2048)
		if err != nil {
			return server{}, err
		}
		s, err := rsa.NewServer(opts, engines...)
		if err != nil {
			return server{}, err
		}
		signer, err := s.Signer(key)
		if err != nil {
			return server{}, err
		}
		digest := sha256.Sum256([]byte("gpucrypto bench server"))
		return server{
			call: func(ctx context.Context) error {
				_, err := signer.SignContext(ctx, nil, digest[:], crypto.SHA256)
				return err
			},
			newSubmitter: func(window int) submitter { return newRSASubmitter(signer, digest[:], window) },
			stats:        s.Stats,
			close:        func() { s.Close() },
		}, nil
	case "x25519":
		var backends []*ecdh.Engine
		for _, d := range devs {
			e, err := ecdh.NewEngine(d)
			if err != nil {
				return server{}, err
			}
			backends = append(backends, e)
		}
		s, err := ecdh.NewServer(opts, backends...)
		if err != nil {
			return server{}, err
		}
		priv := make([]byte, 32)
		peer := make([]byte, 32)
		priv[0], peer[0] = 7, 9
		return server{
			call: func(ctx context.Context) error {
				_, err := s.SharedSecret(ctx, ecdh.X25519(), priv, peer)
				return err
			},
			newSubmitter:      func(window int) submitter { return newECDHSubmitter(s, priv, peer, window) },
			newFrameSubmitter: func(window int) submitter { return newFrameSubmitter(s, priv, peer, window) },
			stats:             s.Stats,
			close:             func() { s.Close() },
		}, nil
	}
	return server{}, fmt.Errorf("bench server: unknown op %q (have rsa2048, x25519)", op)
}

// serveLoad puts the load of form on sv: n blocking callers (runLoad, each
// call with context.Background() unless sharedContext), or
// n calls in flight from submitters goroutines (runAsyncLoad), for warm
// and then dur, and returns the throughput and the latency percentiles of
// the window, the fraction of its operations on the CPU path, and the
// process's CPU time per 1,000 of them.
func serveLoad(op, form string, n, submitters int, sharedContext bool, warm, dur time.Duration, sv server) (serverResult, error) {
	var st [2]batch.Stats
	var proc [2]time.Duration
	procKnown := true
	edge := func(start bool) {
		i := 1
		if start {
			i = 0
		}
		st[i] = sv.stats()
		var ok bool
		proc[i], ok = cputime.Process()
		procKnown = procKnown && ok
	}
	var w loadWindow
	var err error
	if form == "async" || form == "async-frames" {
		newSubmitter := sv.newSubmitter
		if form == "async-frames" {
			newSubmitter = sv.newFrameSubmitter
		}
		w, err = runAsyncLoad(n, submitters, warm, dur, newSubmitter, edge)
	} else {
		submitters = 0
		call := sv.call
		if !sharedContext {
			call = func(context.Context) error { return sv.call(context.Background()) }
		}
		w, err = runLoad(n, warm, dur, call, edge)
	}
	if err != nil {
		return serverResult{}, err
	}
	r := serverResult{Op: op, Form: form, Callers: n, Submitters: submitters, Ops: float64(w.completed) / dur.Seconds(),
		P50Ms: w.percentileMs(0.50), P99Ms: w.percentileMs(0.99), Count: int(w.started)}
	if w.completed > 0 {
		r.OnCPU = min(1, float64(st[1].CPUOps-st[0].CPUOps)/float64(w.completed))
		if b := st[1].Batches - st[0].Batches; b > 0 {
			r.MeanBatch = float64(st[1].DeviceOps-st[0].DeviceOps) / float64(b)
		}
		if procKnown {
			r.CPUPer1000 = (proc[1] - proc[0]).Seconds() * 1000 / float64(w.completed)
		}
	}
	return r, nil
}

// cpuSingleLatency is the median time of one operation of op alone on the
// CPU backend, over 200 operations (after 10 not timed).
func cpuSingleLatency(op string) (float64, error) {
	var one func() error
	switch op {
	case "rsa2048":
		key, err := benchKey(2048)
		if err != nil {
			return 0, err
		}
		e := rsa.CPUEngine()
		keys := []*stdrsa.PrivateKey{key}
		digest := sha256.Sum256([]byte("gpucrypto bench server"))
		digests := [][]byte{digest[:]}
		one = func() error { _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); return err }
	case "x25519":
		priv, peer := make([]byte, 32), make([]byte, 32)
		priv[0], peer[0] = 7, 9
		privs, peers := [][]byte{priv}, [][]byte{peer}
		e := ecdh.CPUEngine()
		one = func() error { _, err := e.SharedSecrets(ecdh.X25519(), privs, peers); return err }
	default:
		return 0, fmt.Errorf("bench server: unknown op %q (have rsa2048, x25519)", op)
	}
	times := make([]time.Duration, 0, 200)
	for i := range 210 {
		t0 := time.Now()
		if err := one(); err != nil {
			return 0, err
		}
		if i >= 10 {
			times = append(times, time.Since(t0))
		}
	}
	slices.Sort(times)
	return float64(times[len(times)/2]) / 1e6, nil
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
