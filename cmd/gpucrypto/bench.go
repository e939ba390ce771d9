package main

import (
	stdecdh "crypto/ecdh"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/cloudflare/circl/dh/x448"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/rsa"
)

type benchResult struct {
	Op        string  `json:"op"`
	Bits      int     `json:"bits"`
	Batch     int     `json:"batch"`
	Runs      int     `json:"runs"`
	KernelOps float64 `json:"gpu_kernel_ops_per_s"`     // from device event timings (median)
	E2EOps    float64 `json:"gpu_end_to_end_ops_per_s"` // allocation, transfers and kernel (median)
	LatencyMs float64 `json:"gpu_batch_latency_ms"`     // median end-to-end time of one batch
	CPUOps    float64 `json:"cpu_ops_per_s"`            // math/big on all cores, same run
	Speedup   float64 `json:"speedup_end_to_end"`       // E2EOps / CPUOps
	BinvGroup int     `json:"binv_group,omitempty"`     // x25519, ...: the batch-inversion group size the batch used; *-binv ops: the K asked for
	BinvAuto  bool    `json:"binv_auto,omitempty"`      // BinvGroup is the library's automatic choice (ecdh.BatchInversionAuto)
	// ecdh ops: Pipeline batches of the same size run at once from as many
	// goroutines, as a Server with batch.Options.Pipeline keeps them in
	// flight: all their elements / wall time.
	PipeOps  float64 `json:"gpu_pipelined_ops_per_s,omitempty"`
	Pipeline int     `json:"pipeline,omitempty"`
}

type benchReport struct {
	Device    string        `json:"device"`
	Driver    string        `json:"driver"`
	Backend   string        `json:"backend"`
	InlinePTX bool          `json:"inline_ptx"`
	Commit    string        `json:"commit"`
	GoVersion string        `json:"go"`
	CPU       string        `json:"cpu"`
	CPUCores  int           `json:"cpu_cores"`
	Date      string        `json:"date"`
	Results   []benchResult `json:"results"`
}

func cmdBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	opsFlag := fs.String("ops", strings.Join(allOps, ","), "operations: "+strings.Join(allOps, ", "))
	bitsFlag := fs.String("bits", "", "operand sizes in bits of add/sub/mul and modexp (default: all supported)")
	batchFlag := fs.String("batch", "", "batch sizes (default on a GPU: 262144 for add/sub/mul, 16384,131072,524288 for ecdh, 65536 for modexp and rsa; on a CPU device 4096, and 16 for modexp and rsa)")
	binvFlag := fs.String("binv", "16", "group sizes K of the *-binv ops (X25519/X448 with one field inversion per K elements; 0: one per element)")
	pipeFlag := fs.Int("pipeline", 2, "ecdh ops: batches in flight for the pipelined figure (like batch.Options.Pipeline)")
	seconds := fs.Float64("seconds", 1, "time per measurement (GPU and CPU each)")
	asJSON := fs.Bool("json", false, "print JSON instead of the table")
	jsonOut := fs.String("json-out", "", "also write the JSON report to this file")
	if len(args) > 0 && args[0] == "aes" {
		return cmdBenchAES(args[1:])
	}
	// "bench rsa", "bench ecdh", "bench arith": a group of operations
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		group, ok := opGroups[args[0]]
		if !ok {
			return fmt.Errorf("bench: unknown group %q (have aes, arith, ecdh, rsa)", args[0])
		}
		*opsFlag = strings.Join(group, ",")
		args = args[1:]
	}
	fs.Parse(args)

	d, err := pickDevice()
	if err != nil {
		return err
	}
	ops := strings.Split(*opsFlag, ",")
	for _, op := range ops {
		if !slices.Contains(allOps, op) {
			return fmt.Errorf("bench: unknown op %q (have %s)", op, strings.Join(allOps, ", "))
		}
	}
	binvGroups, err := binvList(*binvFlag)
	if err != nil {
		return err
	}
	if *pipeFlag < 1 {
		return fmt.Errorf("bench: --pipeline %d: want at least 1", *pipeFlag)
	}
	widths := arith.Widths()
	var modWidths []int
	for _, n := range arith.ModLimbs() {
		modWidths = append(modWidths, 32*n)
	}
	if *bitsFlag != "" {
		list, err := intList(*bitsFlag)
		if err != nil {
			return err
		}
		widths, modWidths = nil, nil
		for _, b := range list {
			isMod := b%32 == 0 && slices.Contains(arith.ModLimbs(), b/32)
			_, errArith := arith.CheckWidth(b)
			if errArith == nil {
				widths = append(widths, b)
			}
			if isMod {
				modWidths = append(modWidths, b)
			}
			if errArith != nil && !isMod {
				return fmt.Errorf("bench: no operation has %d-bit operands", b)
			}
		}
	}
	batches, ecBatches, rsaBatches := []int{262144}, []int{16384, 131072, 524288}, []int{65536}
	if d.Type != device.TypeGPU {
		batches, ecBatches, rsaBatches = []int{4096}, []int{4096}, []int{16}
	}
	if *batchFlag != "" {
		if batches, err = intList(*batchFlag); err != nil {
			return err
		}
		ecBatches, rsaBatches = batches, batches
	}
	e, err := arith.NewEngine(d)
	if err != nil {
		return err
	}
	ec, err := ecdh.NewEngine(d)
	if err != nil {
		return err
	}
	re, err := rsa.NewEngine(d)
	if err != nil {
		return err
	}
	type benchCase struct {
		op    string
		bits  int
		batch int
		group int // ecdh ops: the batch-inversion group size (ecdh.BatchInversionAuto: the library's choice)
	}
	var cases []benchCase
	for _, op := range ops {
		if curve, _, ok := ecdhOp(op); ok {
			groups := []int{ecdh.BatchInversionAuto}
			if strings.HasSuffix(op, "-binv") {
				groups = binvGroups
			}
			for _, k := range groups {
				for _, n := range ecBatches {
					cases = append(cases, benchCase{op, curveBits(curve), n, k})
				}
			}
			continue
		}
		if bits, ok := rsaOpBits(op); ok {
			for _, n := range rsaBatches {
				cases = append(cases, benchCase{op, bits, n, 0})
			}
			continue
		}
		ws, ns := widths, batches
		if op == "modexp" {
			ws, ns = modWidths, rsaBatches
		}
		for _, bits := range ws {
			for _, n := range ns {
				cases = append(cases, benchCase{op, bits, n, 0})
			}
		}
	}
	rep := benchReport{Device: d.Name, Backend: d.Backend, Driver: d.DriverVersion, InlinePTX: d.CarryChains, Commit: commit(),
		GoVersion: runtime.Version(), CPU: cpuModel(), CPUCores: runtime.NumCPU(), Date: time.Now().UTC().Format(time.RFC3339)}
	dur := time.Duration(*seconds * float64(time.Second))
	for i, bc := range cases {
		label := bc.op
		if strings.HasSuffix(bc.op, "-binv") {
			label += fmt.Sprintf(" k=%d", bc.group)
		}
		progress(i+1, len(cases), fmt.Sprintf("%s %d-bit, batch %d", label, bc.bits, bc.batch))
		var r benchResult
		if curve, keygen, ok := ecdhOp(bc.op); ok {
			r, err = benchECDH(ec, curve, keygen, bc.op, bc.batch, bc.group, *pipeFlag, dur)
		} else if _, ok := rsaOpBits(bc.op); ok {
			r, err = benchRSA(re, bc.op, bc.bits, bc.batch, dur)
		} else if bc.op == "modexp" {
			r, err = benchModExp(e, bc.bits, bc.batch, dur)
		} else {
			r, err = benchArith(e, arith.Op(bc.op), bc.bits, bc.batch, dur)
		}
		if err != nil {
			progressDone()
			return fmt.Errorf("bench %s %d batch %d: %w", bc.op, bc.bits, bc.batch, err)
		}
		rep.Results = append(rep.Results, r)
	}
	progressDone()
	if *jsonOut != "" {
		data, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	if *asJSON {
		return printJSON(rep)
	}
	fmt.Printf("device: %s (%s, driver %s, inline PTX %v)\ncommit: %s  %s  CPU: %s, %d threads\n\n",
		rep.Device, rep.Backend, rep.Driver, rep.InlinePTX, rep.Commit, rep.GoVersion, rep.CPU, rep.CPUCores)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tbits\tbatch\tdevice kernel ops/s\tdevice end-to-end ops/s\tbatch latency ms\tpipelined ops/s\tCPU ops/s (all cores)\tend-to-end / CPU\t")
	for _, r := range rep.Results {
		pipe := "-"
		if r.Pipeline > 0 {
			pipe = fmt.Sprintf("%s (P=%d)", human(r.PipeOps), r.Pipeline)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%.3f\t%s\t%s\t%.2fx\t\n", ecdhLabel(r), r.Bits, r.Batch, human(r.KernelOps), human(r.E2EOps),
			r.LatencyMs, pipe, human(r.CPUOps), r.Speedup)
	}
	return tw.Flush()
}

func benchArith(e *arith.Engine, op arith.Op, bits, n int, dur time.Duration) (benchResult, error) {
	limbs := bits / 32
	rng := rand.New(rand.NewPCG(uint64(bits), uint64(n)))
	a, b := arith.NewBatch(limbs, n), arith.NewBatch(limbs, n)
	for i := range a.Words {
		a.Words[i], b.Words[i] = rng.Uint32(), rng.Uint32()
	}
	r, err := measure(string(op), bits, n, dur, func() (time.Duration, error) {
		res, err := e.Run(op, a, b)
		if err != nil {
			return 0, err
		}
		return res.Kernel, nil
	})
	if err != nil {
		return r, err
	}
	r.CPUOps = cpuArith(op, bits, a, b, dur)
	r.Speedup = r.E2EOps / r.CPUOps
	return r, nil
}

// cpuArith measures math/big doing the same operation on all cores.
func cpuArith(op arith.Op, bits int, a, b *arith.Batch, dur time.Duration) float64 {
	const m = 256
	xs, ys := make([]*big.Int, m), make([]*big.Int, m)
	for i := range m {
		xs[i], ys[i] = a.Get(i%a.Count), b.Get(i%b.Count)
	}
	mod := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	var count atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(dur)
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var z big.Int
			done := int64(0)
			for time.Now().Before(deadline) {
				for i := range m {
					switch op {
					case arith.OpAdd:
						z.Add(xs[i], ys[i])
						if z.Cmp(mod) >= 0 {
							z.Sub(&z, mod)
						}
					case arith.OpSub:
						z.Sub(xs[i], ys[i])
						if z.Sign() < 0 {
							z.Add(&z, mod)
						}
					case arith.OpMul:
						z.Mul(xs[i], ys[i])
					}
				}
				done += m
			}
			count.Add(done)
		}()
	}
	wg.Wait()
	return float64(count.Load()) / time.Since(start).Seconds()
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

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("bad number %q in %q", f, s)
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

// allOps are the benchmarkable operations, in report order. x*-keygen is
// the public-key path of the library (the fixed-base comb).
// x25519-binv and x448-keygen-binv, ... are x25519 and x448-keygen, ...
// with the final inversion shared by groups of K elements (--binv K,...;
// ecdh.Engine.SetBatchInversion) instead of one Fermat inversion each.
var allOps = slices.Concat(opGroups["arith"], opGroups["ecdh"], opGroups["rsa"])

// opGroups are the operations of "bench arith|ecdh|rsa".
var opGroups = map[string][]string{
	"arith": {"add", "sub", "mul"},
	"ecdh": {"x25519", "x25519-keygen", "x448", "x448-keygen",
		"x25519-binv", "x25519-keygen-binv", "x448-binv", "x448-keygen-binv"},
	"rsa": rsaOps,
}

// ecdhOp parses "x25519", "x448-keygen", "x25519-binv",
// "x448-keygen-binv", ...
func ecdhOp(op string) (c ecdh.Curve, keygen bool, ok bool) {
	op = strings.TrimSuffix(op, "-binv")
	name, keygen := strings.CutSuffix(op, "-keygen")
	switch name {
	case "x25519":
		return ecdh.X25519, keygen, true
	case "x448":
		return ecdh.X448, keygen, true
	}
	return 0, false, false
}

// benchECDH measures op with batch inversion in groups of group elements
// (0: per element; ecdh.BatchInversionAuto: the library's default rule,
// whose choice is reported), one batch at a time and with pipeline
// batches in flight.
func benchECDH(e *ecdh.Engine, c ecdh.Curve, keygen bool, op string, n, group, pipeline int, dur time.Duration) (benchResult, error) {
	privs, peers := make([][]byte, n), make([][]byte, n)
	rng := rand.New(rand.NewPCG(uint64(n), uint64(c)))
	for i := range n {
		privs[i], peers[i] = make([]byte, c.Size()), make([]byte, c.Size())
		for j := range privs[i] {
			privs[i][j], peers[i][j] = byte(rng.Uint32()), byte(rng.Uint32())
		}
	}
	if keygen {
		peers = nil
	} else { // real public keys as peers, so no element fails as low-order
		pubs, err := ecdh.CPU{}.PublicKeys(c, peers[:min(n, 4096)])
		if err != nil {
			return benchResult{}, err
		}
		for i := range peers {
			peers[i] = pubs[i%len(pubs)]
		}
	}
	e.SetBatchInversion(group)
	defer e.SetBatchInversion(ecdh.BatchInversionAuto)
	run := func() (time.Duration, error) { // the kernel time of one batch (one caller at a time)
		before := e.DeviceTime()
		var err error
		if keygen {
			_, err = e.PublicKeys(c, privs)
		} else {
			_, err = e.SharedSecrets(c, privs, peers)
		}
		return e.DeviceTime() - before, err
	}
	r, err := measure(op, curveBits(c), n, dur, run)
	if err != nil {
		return r, err
	}
	if r.PipeOps, err = pipelined(pipeline, n, dur, run); err != nil {
		return r, err
	}
	r.Pipeline = pipeline
	if e.Fallbacks() > 0 {
		return benchResult{}, fmt.Errorf("device failed; the batch ran on the CPU")
	}
	r.BinvGroup = group
	if group < 0 {
		r.BinvGroup, r.BinvAuto = e.BatchInversionGroup(c, !keygen, n), true
	}
	r.CPUOps = cpuECDH(c, keygen, privs[:min(n, 4096)], dur)
	r.Speedup = r.E2EOps / r.CPUOps
	e.ReleaseBuffers() // the next measurement may use other sizes
	return r, nil
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

// ecdhLabel is the table's name of r: the op, and for ecdh ops the batch
// inversion group ("k=16", "k=16 auto" where the library chose it).
func ecdhLabel(r benchResult) string {
	switch {
	case r.BinvAuto && r.BinvGroup > 0:
		return fmt.Sprintf("%s k=%d auto", r.Op, r.BinvGroup)
	case strings.HasSuffix(r.Op, "-binv"):
		return fmt.Sprintf("%s k=%d", r.Op, r.BinvGroup)
	}
	return r.Op
}

// binvList parses --binv: group sizes ≥ 0 (0: per-element inversion).
func binvList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad group size %q in --binv %q", f, s)
		}
		out = append(out, v)
	}
	return out, nil
}

// cpuECDH measures the same operation on the CPU: one goroutine per core,
// each repeating it over up to 256 keys, and only the operation itself is
// timed. For X25519 shared secrets that is PrivateKey.ECDH on keys that
// crypto/ecdh parsed beforehand: NewPrivateKey derives the public key with
// a full scalar multiplication, so ecdh.CPU (the Engine's fallback and the
// backend without a device), which parses raw keys per element, pays about
// twice this per shared secret. X25519 public keys time NewPrivateKey,
// which is exactly that derivation; X448 times circl's Shared and KeyGen
// (one scalar multiplication each).
func cpuECDH(c ecdh.Curve, keygen bool, privs [][]byte, dur time.Duration) float64 {
	privs = privs[:min(len(privs), 256)]
	var peers [][]byte
	if !keygen {
		peers, _ = ecdh.CPU{}.PublicKeys(c, privs)
	}
	op, err := cpuOp(c, privs, peers)
	if err != nil {
		return 0
	}
	return allCores(dur, func(i int) { op(i % len(privs)) })
}

// cpuOp returns the CPU operation on key i that cpuECDH times (a shared
// secret when peers is not nil, else a public key), with the keys parsed
// once beforehand.
func cpuOp(c ecdh.Curve, privs, peers [][]byte) (func(i int), error) {
	if c == ecdh.X448 {
		ks, ps := make([]x448.Key, len(privs)), make([]x448.Key, len(peers))
		for i := range privs {
			copy(ks[i][:], privs[i])
		}
		for i := range peers {
			copy(ps[i][:], peers[i])
		}
		if peers == nil {
			return func(i int) {
				var out x448.Key
				x448.KeyGen(&out, &ks[i])
			}, nil
		}
		return func(i int) {
			var out x448.Key
			x448.Shared(&out, &ks[i], &ps[i])
		}, nil
	}
	x := stdecdh.X25519()
	if peers == nil {
		return func(i int) { x.NewPrivateKey(privs[i]) }, nil
	}
	ks, ps := make([]*stdecdh.PrivateKey, len(privs)), make([]*stdecdh.PublicKey, len(peers))
	for i := range privs {
		var err error
		if ks[i], err = x.NewPrivateKey(privs[i]); err != nil {
			return nil, err
		}
		if ps[i], err = x.NewPublicKey(peers[i]); err != nil {
			return nil, err
		}
	}
	return func(i int) { ks[i].ECDH(ps[i]) }, nil
}

func curveBits(c ecdh.Curve) int {
	if c == ecdh.X25519 {
		return 255
	}
	return 448
}
