package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// readServerJSON reads the JSON lines of `gpucrypto bench server`: the
// run, then the rows.
func readServerJSON(r io.Reader) (serverRun, []serverResult, error) {
	dec := json.NewDecoder(r)
	var run serverRun
	var rows []serverResult
	for n := 0; dec.More(); n++ {
		var line serverLine
		if err := dec.Decode(&line); err != nil {
			return run, rows, fmt.Errorf("line %d: %w", n+1, err)
		}
		switch {
		case n == 0 && line.Run != nil:
			run = *line.Run
		case n > 0 && line.Result != nil:
			rows = append(rows, *line.Result)
		default:
			return run, rows, fmt.Errorf("line %d: neither the run (first) nor a result", n+1)
		}
	}
	return run, rows, nil
}

// testServerSettings are settings of every operation and form at 1 and 4
// callers, with tiny durations.
func testServerSettings(t *testing.T, args ...string) serverSettings {
	t.Helper()
	fs := flag.NewFlagSet("bench server", flag.ContinueOnError)
	settings := serverFlags(fs)
	base := []string{"--forms", "blocking,async,async-frames", "--callers", "1,4", "--seconds", "0.06", "--warmup", "0.02", "--submitters", "2"}
	if err := fs.Parse(append(base, args...)); err != nil {
		t.Fatal(err)
	}
	s, err := settings()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runTestServerBench runs s over tgt and returns the table, the rows read
// back from the JSON lines, and the run.
func runTestServerBench(t *testing.T, s serverSettings, tgt serverTarget) (string, serverRun, []serverResult) {
	t.Helper()
	var table, jsonLines, notes bytes.Buffer
	out := serverOutput{table: &table, jsons: []io.Writer{&jsonLines}}
	err := runServerBench(s, tgt, &out, &notes)
	t.Logf("\n%s%s", notes.String(), table.String())
	if err != nil {
		t.Fatal(err)
	}
	run, rows, err := readServerJSON(&jsonLines)
	if err != nil {
		t.Fatalf("the JSON lines: %v", err)
	}
	return table.String(), run, rows
}

// checkServerRows checks that rows are the plan's, in its order, each
// with its fields consistent, and that the table has a line per row.
func checkServerRows(t *testing.T, s serverSettings, tgt serverTarget, table string, run serverRun, rows []serverResult) {
	t.Helper()
	plan, _ := serverPlan(s, tgt)
	if run.Rows != len(plan) || len(rows) != len(plan) {
		t.Fatalf("%d rows in the JSON, the run says %d, the plan has %d", len(rows), run.Rows, len(plan))
	}
	if !slices.Equal(run.Ops, serverOpNames()) {
		t.Errorf("the run's ops are %q, want %q", run.Ops, serverOpNames())
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 3+len(rows) {
		t.Errorf("the table has %d lines, want the heading's 3 and %d rows", len(lines), len(rows))
	}
	for i, r := range rows {
		p := plan[i]
		if r.Op != p.op.name || r.Form != p.form || r.Callers != p.callers || r.Devices != p.devices {
			t.Errorf("row %d is %s %s %d callers %d devices, want %s %s %d callers %d devices", i, r.Op, r.Form, r.Callers, r.Devices, p.op.name, p.form, p.callers, p.devices)
		}
		if r.GoOps > 0 && r.Ratio != r.Ops/r.GoOps {
			t.Errorf("row %d: ratio %v, want %v / %v", i, r.Ratio, r.Ops, r.GoOps)
		}
		if r.P50DiffMs != r.P50Ms-r.GoP50Ms {
			t.Errorf("row %d: p50 difference %v, want %v − %v", i, r.P50DiffMs, r.P50Ms, r.GoP50Ms)
		}
		if r.OnCPU < 0 || r.OnCPU > 1 {
			t.Errorf("row %d: on-CPU share %v", i, r.OnCPU)
		}
		switch {
		case r.Form == formBlocking && r.InFlight != 0,
			r.Form == formAsync && r.InFlight != r.Callers,
			r.Form == formAsyncFrames && (r.InFlight < r.Callers || r.InFlight%frameSize != 0):
			t.Errorf("row %d: %s at %d callers with %d calls in flight", i, r.Form, r.Callers, r.InFlight)
		}
		if (r.Form == formBlocking) != (r.Submitters == 0) {
			t.Errorf("row %d: %s with %d submitters", i, r.Form, r.Submitters)
		}
		if i+3 < len(lines) && !strings.HasPrefix(lines[i+3], r.Op+" ") {
			t.Errorf("table line %q is not the row of %s", lines[i+3], r.Op)
		}
	}
}

// Every operation in every form it has, at 1 and 4 callers, over a CPU
// engine (no device): each row measures the Server and Go's crypto/*,
// the JSON lines read back as the rows and the run, the table has a line
// per row, and the frames of operations without GoFrame are skipped and
// named once.
func TestServerBenchCPU(t *testing.T) {
	s := testServerSettings(t)
	tgt := serverTarget{counts: []int{0}}
	table, run, rows := runTestServerBench(t, s, tgt)
	checkServerRows(t, s, tgt, table, run, rows)
	if run.Engines != "cpu" || run.Backend != "cpu" {
		t.Errorf("the run's engines %q, backend %q; want cpu", run.Engines, run.Backend)
	}
	for _, r := range rows {
		if r.Ops <= 0 || r.GoOps <= 0 || r.P50Ms <= 0 || r.GoP50Ms <= 0 {
			t.Errorf("%s %s %d callers: ops/s %v, p50 %v; Go's %v, %v: want all measured", r.Op, r.Form, r.Callers, r.Ops, r.P50Ms, r.GoOps, r.GoP50Ms)
		}
		if r.OnCPU != 1 {
			t.Errorf("%s %s %d callers: on-CPU share %v with CPU engines only", r.Op, r.Form, r.Callers, r.OnCPU)
		}
	}
	for _, op := range serverOps.all() {
		async := slices.ContainsFunc(rows, func(r serverResult) bool { return r.Op == op.name && r.Form == formAsync })
		if async != slices.Contains(op.forms, formAsync) {
			t.Errorf("%s: async rows %v, its forms %q", op.name, async, op.forms)
		}
	}
	if len(run.NotMeasured) != 1 || !strings.HasPrefix(run.NotMeasured[0], "async-frames: rsa2048") {
		t.Errorf("the run's not_measured is %q", run.NotMeasured)
	}
}

// The same on the test device (PoCL in CI): one engine on it.
func TestServerBenchDevice(t *testing.T) {
	d := devicetest.Device(t)
	s := testServerSettings(t)
	tgt := serverTarget{d: d, devs: []*device.Device{d}, counts: []int{1}}
	table, run, rows := runTestServerBench(t, s, tgt)
	checkServerRows(t, s, tgt, table, run, rows)
	if run.Engines != "device" || run.Device != d.Name {
		t.Errorf("the run's engines %q on %q, want device on %q", run.Engines, run.Device, d.Name)
	}
	for _, op := range serverOps.all() {
		// one lone caller at least is answered within the tiny window
		if !slices.ContainsFunc(rows, func(r serverResult) bool { return r.Op == op.name && r.Ops > 0 && r.GoOps > 0 }) {
			t.Errorf("%s: no row measured both sides", op.name)
		}
	}
}

// Each operation's Server has the asynchronous forms its forms list, and
// no other; bench server's operations are the table's.
func TestServerOpForms(t *testing.T) {
	if !slices.Equal(benchOpsOf("server"), serverOpNames()) {
		t.Errorf("bench server's operations %q, the table's %q", benchOpsOf("server"), serverOpNames())
	}
	for _, op := range serverOps.all() {
		sv, err := op.start(nil, testServerSettings(t).opts)
		if err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		if got := sv.newSubmitter != nil; got != slices.Contains(op.forms, formAsync) {
			t.Errorf("%s: newSubmitter set %v, forms %q", op.name, got, op.forms)
		}
		if got := sv.newFrameSubmitter != nil; got != slices.Contains(op.forms, formAsyncFrames) {
			t.Errorf("%s: newFrameSubmitter set %v, forms %q", op.name, got, op.forms)
		}
		if !slices.Contains(op.forms, formBlocking) || sv.newCaller == nil || sv.newGoCaller == nil || sv.check == nil {
			t.Errorf("%s: no blocking form, or no Go side or check", op.name)
		}
		sv.close()
	}
}

// The whole command with no device (GPUCRYPTO_OPENCL_LIB=/nonexistent):
// it runs over CPU engines and says so, prints the table and writes the
// JSON lines; with --devices given, no device is an error.
func TestServerBenchNoDevice(t *testing.T) {
	t.Setenv("GPUCRYPTO_OPENCL_LIB", "/nonexistent")
	t.Setenv(device.EnvDevice, "")
	t.Setenv(device.EnvBackend, "")
	file := filepath.Join(t.TempDir(), "server.jsonl")
	stdout, stderr, code := runCLI(t, "bench", "server", "--ops", "x25519,aes-gcm", "--callers", "2", "--seconds", "0.05", "--warmup", "0", "--json-out", file)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "the Servers run over CPU engines") || !strings.Contains(stderr, "4 rows, about") {
		t.Errorf("stderr does not say CPU engines and the rows' time:\n%s", stderr)
	}
	for _, row := range []string{"x25519 ", "aes-gcm "} {
		if !strings.Contains(stdout, "\n"+row) {
			t.Errorf("stdout has no row of %s:\n%s", row, stdout)
		}
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, rows, err := readServerJSON(f)
	if err != nil || len(rows) != 4 || run.Engines != "cpu" {
		t.Errorf("--json-out: %d rows, engines %q, error %v; want 4 rows on cpu", len(rows), run.Engines, err)
	}

	stdout, stderr, code = runCLI(t, "bench", "server", "--ops", "x25519", "--devices", "1", "--seconds", "0.05")
	if code == 0 || stdout != "" || !strings.Contains(stderr, "bench server: no device (with --device, --backend or --devices") {
		t.Errorf("--devices 1 without a device: exit %d, stdout %q, stderr %q; want a failure", code, stdout, stderr)
	}
}

// --json prints the JSON lines on stdout instead of the table.
func TestServerBenchJSONStdout(t *testing.T) {
	t.Setenv("GPUCRYPTO_OPENCL_LIB", "/nonexistent")
	t.Setenv(device.EnvDevice, "")
	t.Setenv(device.EnvBackend, "")
	stdout, stderr, code := runCLI(t, "bench", "server", "--ops", "ed25519-verify", "--forms", "blocking,async-frames", "--callers", "1", "--seconds", "0.05", "--warmup", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	run, rows, err := readServerJSON(strings.NewReader(stdout))
	if err != nil || len(rows) != 1 || rows[0].Op != "ed25519-verify" || !slices.Equal(run.Ops, []string{"ed25519-verify"}) {
		t.Errorf("stdout: run %+v, rows %+v, error %v", run, rows, err)
	}
	if !strings.Contains(stderr, "not measured (the Server has no such form yet): async-frames: ed25519-verify") {
		t.Errorf("stderr does not name the skipped async form:\n%s", stderr)
	}
}

// A row survives the JSON line as it was.
func TestServerResultJSON(t *testing.T) {
	r := serverResult{Op: "x25519", Form: formAsync, Devices: 2, Callers: 16384, Submitters: 16, Ops: 1.5e6, P50Ms: 0.8, P99Ms: 2.5,
		Count: 3000000, OnCPU: 0.01, MeanBatch: 4096, CPUPer1000: 0.02, GoOps: 1e6, GoP50Ms: 0.5, GoP99Ms: 4, GoCPUPer1000: 0.03}
	r.compare()
	var buf bytes.Buffer
	out := serverOutput{jsons: []io.Writer{&buf}}
	if err := out.start(serverRun{Ops: []string{"x25519"}, Rows: 1}); err != nil {
		t.Fatal(err)
	}
	if err := out.row(r); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Errorf("%d lines, want 2:\n%s", n, buf.String())
	}
	run, rows, err := readServerJSON(&buf)
	if err != nil || len(rows) != 1 || rows[0] != r || run.Rows != 1 {
		t.Errorf("read back %+v, %+v, %v; want %+v", run, rows, err, r)
	}
}

// The target: ops/s at least 0.95 of Go's, and where Go's p50 is under
// 1 ms, a p50 at most 0.1 ms above it.
func TestServerTarget(t *testing.T) {
	for _, c := range []struct {
		ops, p50, goOps, goP50 float64
		want                   bool
	}{
		{95, 0.5, 100, 0.45, true},
		{94, 0.5, 100, 0.45, false},
		{200, 0.6, 100, 0.45, false}, // 0.15 ms above Go's p50 under 1 ms
		{200, 5, 100, 1, true},       // Go's p50 is 1 ms: no bound on the Server's
		{100, 0.1, 0, 0, false},      // Go measured nothing
	} {
		r := serverResult{Ops: c.ops, P50Ms: c.p50, GoOps: c.goOps, GoP50Ms: c.goP50}
		r.compare()
		if r.MeetsTarget != c.want {
			t.Errorf("%+v: meets target %v, want %v", c, r.MeetsTarget, c.want)
		}
	}
}

// Every flag's error names the flag; --quick changes the callers and the
// seconds only where they are not given.
func TestServerFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--callers", "0"}, `--callers "0": "0" is not a whole number of 1 or more`},
		{[]string{"--callers", "1,-16"}, `--callers "1,-16": "-16" is not a whole number of 1 or more`},
		{[]string{"--callers", "1,x"}, `--callers "1,x": "x" is not a whole number`},
		{[]string{"--seconds", "0"}, "--seconds 0: want more than 0"},
		{[]string{"--seconds", "-1"}, "--seconds -1: want more than 0"},
		{[]string{"--seconds", "NaN"}, "--seconds NaN: want more than 0"},
		{[]string{"--warmup", "-0.5"}, "--warmup -0.5: want 0 or more"},
		{[]string{"--ops", "rsa2048,nosuch"}, `--ops "nosuch": not an operation of "gpucrypto bench server" (its operations: ` + strings.Join(serverOpNames(), ", ")},
		{[]string{"--ops", "x448"}, `it is an operation of "gpucrypto bench ecdh"`},
		{[]string{"--forms", "blocking,sync"}, `--forms: unknown form "sync" (have blocking, async, async-frames)`},
		{[]string{"--submitters", "0"}, "--submitters 0: want at least 1"},
		{[]string{"--rounds", "0"}, "--rounds 0: want at least 1"},
		{[]string{"--devices", "0"}, `--devices "0": "0" is not a whole number of 1 or more`},
		{[]string{"--max-batch", "-1"}, "--max-batch -1"},
		{[]string{"--max-delay", "-1ms"}, "--max-delay -1ms"},
		{[]string{"--pipeline", "-2"}, "--pipeline -2"},
		{[]string{"--offload", "-2"}, "--offload -2"},
		{[]string{"--answer-piece", "-3"}, "--answer-piece -3"},
	} {
		fs := flag.NewFlagSet("bench server", flag.ContinueOnError)
		settings := serverFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		_, err := settings()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one with %q", c.args, err, c.want)
		}
	}

	parse := func(args ...string) serverSettings {
		fs := flag.NewFlagSet("bench server", flag.ContinueOnError)
		deviceFlags(fs)
		settings := serverFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		s, err := settings()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := parse()
	if fmt.Sprint(s.callers) != "[1 16 64 256 2048 16384 65536]" || s.dur != 2*time.Second || s.warm != 500*time.Millisecond ||
		len(s.ops) != len(serverOps.all()) || !slices.Equal(s.forms, []string{formBlocking, formAsync}) || s.deviceChosen {
		t.Errorf("defaults: callers %v, %v + %v warm-up, %d ops, forms %q, device chosen %v", s.callers, s.dur, s.warm, len(s.ops), s.forms, s.deviceChosen)
	}
	if s := parse("--quick"); fmt.Sprint(s.callers) != "[1 16 256 16384]" || s.dur != time.Second {
		t.Errorf("--quick: callers %v, %v", s.callers, s.dur)
	}
	if s := parse("--quick", "--callers", "8", "--seconds", "3"); fmt.Sprint(s.callers) != "[8]" || s.dur != 3*time.Second {
		t.Errorf("--quick with --callers 8 --seconds 3: callers %v, %v", s.callers, s.dur)
	}
	if s := parse("--backend", "opencl"); !s.deviceChosen {
		t.Error("--backend given: the device is not marked chosen")
	}
}

// With --rounds, each row is the round whose ratio is the median of its
// rounds, which it gives with the lowest and the highest, in the table
// and the JSON line.
func TestServerBenchRounds(t *testing.T) {
	s := testServerSettings(t, "--ops", "ed25519-sign", "--forms", "blocking", "--callers", "2", "--seconds", "0.02", "--warmup", "0", "--rounds", "3")
	tgt := serverTarget{counts: []int{0}}
	table, run, rows := runTestServerBench(t, s, tgt)
	if run.Rounds != 3 || len(rows) != 1 {
		t.Fatalf("run rounds %d, %d rows", run.Rounds, len(rows))
	}
	r := rows[0]
	if r.Rounds != 3 || r.RatioLow > r.Ratio || r.Ratio > r.RatioHigh || r.RatioLow <= 0 {
		t.Errorf("rounds %d, ratios %v <= %v <= %v", r.Rounds, r.RatioLow, r.Ratio, r.RatioHigh)
	}
	if want := fmt.Sprintf("%.2f (%.2f-%.2f)", r.Ratio, r.RatioLow, r.RatioHigh); !strings.Contains(table, want) {
		t.Errorf("the table has no %q:\n%s", want, table)
	}
}

// Asking only for a form that none of the operations has is an error
// naming what is missing, before any Server starts.
func TestServerBenchNothingToMeasure(t *testing.T) {
	s := testServerSettings(t, "--ops", "ed25519-sign,ecdh-p256", "--forms", "async-frames")
	err := runServerBench(s, serverTarget{counts: []int{0}}, &serverOutput{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "nothing to measure") || !strings.Contains(err.Error(), "async-frames: ed25519-sign, ecdh-p256") {
		t.Errorf("error %v", err)
	}
}
