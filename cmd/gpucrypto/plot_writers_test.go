package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plotSamples are reports of every command that writes JSON, made of the
// writers' own types (so that they cannot drift from what the commands
// write), each with a note of what plot must do with it: the kind of
// plots, or "" for a report with nothing to plot.
func plotSamples() []struct {
	name, kind string
	run        any   // the report without its rows: the first line of --json-out
	rows       []any // its rows
	doc        any   // the whole report, as --json prints it
} {
	info := newRunInfo(nil, "Test GPU", "opencl")
	info.DeviceType, info.Commit = "GPU", "0123456789ab"
	onCPU, deviceMs := 0.25, 12.5

	bench := benchReport{runInfo: info, Driver: "1.0"}
	benchRows := []benchResult{
		{Op: "x25519", Bits: 255, Batch: 4096, Runs: 9, KernelOps: 4e6, E2EOps: 3e6, LatencyMs: 1.3, CPUOps: 1e6, Speedup: 3, PipeOps: 3.5e6, Pipeline: 2},
		{Op: "x25519", Bits: 255, Batch: 65536, Runs: 9, KernelOps: 9e6, E2EOps: 7e6, LatencyMs: 9, CPUOps: 1e6, Speedup: 7, AutoOps: 7e6, AutoPath: "device", CPUCallOps: 1e6},
		{Op: "rsa2048", Bits: 2048, Batch: 1024, Runs: 5, KernelOps: 2e5, E2EOps: 1.5e5, LatencyMs: 7, CPUOps: 9e3, Speedup: 16},
	}
	aesRep := aesReport{runInfo: info, Layout: "compact", Group: 256}
	aesRows := []aesResult{
		{Op: "gcm-seal", Shape: "batch", KeyBits: 128, Bytes: 64, Batch: 1 << 20, Calls: 9, KernelBps: 4e11, E2EBps: 2e11, PipeBps: 3e11, Pipeline: 4, CPUBps: 5e10, AutoBps: 2e11, AutoPath: "device", CPUCallBps: 4e10},
		{Op: "gcm-seal", Shape: "batch", KeyBits: 128, Bytes: 16384, Batch: 4096, Calls: 9, KernelBps: 9e11, E2EBps: 5e11, CPUBps: 9e10},
		{Op: "ctr", Shape: "resident", KeyBits: 256, Bytes: 1 << 30, Batch: 1, Calls: 3, KernelBps: 2e12, E2EBps: 2e12},
	}
	tls := tlsReport{runInfo: info, Bits: 2048, Seconds: 3, Warmup: 0.5}
	tlsRows := []tlsResult{
		{Version: "1.3", Key: "cpu", Concurrency: 256, Rate: 9000, Handshakes: 27000, P50Ms: 20, P99Ms: 40, CPUMs: 1.1, Signature: "rsa_pss_rsae_sha256", Group: "X25519MLKEM768", Suite: "TLS_AES_128_GCM_SHA256"},
		{Version: "1.3", Key: "gpu", Concurrency: 256, Rate: 20000, Handshakes: 60000, P50Ms: 10, P99Ms: 30, CPUMs: 0.5, DeviceMs: &deviceMs, OnCPU: &onCPU, Ratio: 2.2, Signature: "rsa_pss_rsae_sha256"},
		{Version: "1.3", Key: "gpu", Concurrency: 2048, Rate: 40000, Handshakes: 120000, P50Ms: 40, P99Ms: 80, CPUMs: 0.4, DeviceMs: &deviceMs, OnCPU: &onCPU},
	}
	deployed := deployedReport{runInfo: info, Bits: 2048, ServerCPUs: "0-7", ClientCPUs: "8-15", Groups: map[string]string{"1.3": "X25519"}}
	deployedRows := []deployedResult{
		{Version: "1.3", Key: "cpu", Concurrency: 512, Rate: 8000, P50Ms: 50, P99Ms: 90, ServerCPUMs: 0.9, ServerUse: 0.95, ClientUse: 0.5, TCP: &tcpCounters{}},
		{Version: "1.3", Key: "gpu", Concurrency: 512, Rate: 15000, P50Ms: 30, P99Ms: 60, ServerCPUMs: 0.4, ServerUse: 0.8, ClientUse: 0.7, OnCPU: &onCPU},
	}
	serverRows := []serverResult{
		{Op: "rsa2048", Form: "blocking", Callers: 1, Ops: 150, P50Ms: 6.4, P99Ms: 6.7, Count: 300, Devices: 1},
		{Op: "rsa2048", Form: "blocking", Callers: 2048, Ops: 140000, P50Ms: 11, P99Ms: 21, Count: 290000, Devices: 1},
	}
	// bench server writes its runInfo and its rows (bench_server.go)
	type serverReport struct {
		runInfo
		Results []serverResult `json:"results"`
	}
	burnin := burninReport{runInfo: info, Seed: 7, CPUSample: 1000}
	burninRows := []burninResult{{Device: "Test GPU", Backend: "opencl", Op: "x25519", Batch: 4, Cases: 8, CasesPerS: 100, Seconds: 0.08, Mismatches: 0}}
	soak := burninReport{runInfo: info, Seed: 7, Soak: true, Callers: 32, Workers: 2, Cycle: "10s"}
	soakRows := []soakResult{{Device: "Test GPU", Backend: "opencl", Op: "x25519", LargeBatch: 256, Engines: 3, Servers: 9, ServerCalls: 1000}}
	selftest := selftestReport{runInfo: info}
	selftestRows := []selftestResult{{Test: "aes FIPS-197/SP 800-38A/GCM", Passed: true, Seconds: 0.5}}

	withBench, withAES, withTLS, withDeployed := bench, aesRep, tls, deployed
	withBench.Results, withAES.Results, withTLS.Results, withDeployed.Results = benchRows, aesRows, tlsRows, deployedRows
	withBurnin, withSoak, withSelftest := burnin, soak, selftest
	withSelftest.Results = selftestRows
	var benchAny, aesAny, tlsAny, deployedAny, serverAny, burninAny, soakAny, selftestAny []any
	for _, r := range benchRows {
		benchAny = append(benchAny, r)
	}
	for _, r := range aesRows {
		aesAny = append(aesAny, r)
	}
	for _, r := range tlsRows {
		tlsAny = append(tlsAny, r)
	}
	for _, r := range deployedRows {
		deployedAny = append(deployedAny, r)
	}
	for _, r := range serverRows {
		serverAny = append(serverAny, r)
	}
	for _, r := range burninRows {
		burninAny = append(burninAny, r)
		withBurnin.Results = append(withBurnin.Results, r)
	}
	for _, r := range soakRows {
		soakAny = append(soakAny, r)
		withSoak.Results = append(withSoak.Results, r)
	}
	for _, r := range selftestRows {
		selftestAny = append(selftestAny, r)
	}
	return []struct {
		name, kind string
		run        any
		rows       []any
		doc        any
	}{
		{"bench", plotKindBench, bench, benchAny, withBench},
		{"aes", plotKindAES, aesRep, aesAny, withAES},
		{"tls", plotKindTLS, tls, tlsAny, withTLS},
		{"deployed", plotKindTLS, deployed, deployedAny, withDeployed},
		{"server", plotKindServer, serverReport{runInfo: info}, serverAny, serverReport{info, serverRows}},
		{"burnin", "", burnin, burninAny, withBurnin},
		{"soak", "", soak, soakAny, withSoak},
		{"selftest", "", selftest, selftestAny, withSelftest},
	}
}

// TestPlotReadsEveryWriter: plot reads the JSON of every command that
// writes it, in both forms (the --json document and the JSON Lines of
// --json-out), draws those that have rates, and refuses the others with
// a message that says why.
func TestPlotReadsEveryWriter(t *testing.T) {
	dir := t.TempDir()
	var plottable []string
	for _, s := range plotSamples() {
		docPath := filepath.Join(dir, s.name+".json")
		if err := writeJSON(docPath, s.doc); err != nil {
			t.Fatal(err)
		}
		linesPath := filepath.Join(dir, s.name+".jsonl")
		path := linesPath
		lines := &jsonReport{stdout: new(bool), path: &path}
		if err := lines.start(s.run); err != nil {
			t.Fatal(err)
		}
		for _, r := range s.rows {
			if err := lines.result(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := lines.finish(s.doc); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{docPath, linesPath} {
			ins, err := readPlotInputs(f)
			if s.kind == "" {
				if err == nil || !strings.Contains(err.Error(), "nothing to plot") {
					t.Errorf("%s: error %v, want nothing to plot", f, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			if len(ins) != 1 || ins[0].what != s.kind || len(ins[0].Results) != len(s.rows) || ins[0].Device != "Test GPU" {
				t.Errorf("%s: read %d inputs (kind %q, %d rows of %d, device %q), want one %s input", f, len(ins), ins[0].what, len(ins[0].Results), len(s.rows), ins[0].Device, s.kind)
			}
			plottable = append(plottable, f)
		}
	}
	out := filepath.Join(dir, "plots")
	written, err := plotFiles(plottable, out, "all")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"all-rsa2048-server.png", "all-x25519-bench.png", "all-rsa2048-bench.png",
		"all-gcm-seal-batch-128-aes.png", "all-ctr-resident-256-aes.png", "all-tls1.3-tls.png", "all-tls1.3-deployed-tls.png"}
	if len(written) != len(want) {
		t.Fatalf("wrote %q, want %q", written, want)
	}
	for i, w := range want {
		if written[i] != filepath.Join(out, w) {
			t.Errorf("wrote %s, want %s", written[i], w)
		}
		checkPNG(t, written[i], 600, 400)
	}
}

// Runs appended to one JSON Lines file are inputs of their own; a run
// stopped after some rows keeps them.
func TestPlotJSONLinesRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	s := plotSamples()[0] // bench
	var text []byte
	for range 2 {
		p := path + ".part"
		lines := &jsonReport{stdout: new(bool), path: &p}
		if err := lines.start(s.run); err != nil {
			t.Fatal(err)
		}
		for _, r := range s.rows[:2] {
			if err := lines.result(r); err != nil {
				t.Fatal(err)
			}
		}
		// stopped: no finish, but what was written is in the file
		part, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(part), "\n"); n != 3 {
			t.Fatalf("a stopped run's file has %d lines, want 3 (the run, two rows):\n%s", n, part)
		}
		lines.close()
		text = append(text, part...)
	}
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	ins, err := readPlotInputs(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 2 || len(ins[0].Results) != 2 || len(ins[1].Results) != 2 || ins[0].path == ins[1].path {
		t.Fatalf("read %d inputs, want two of two rows each, told apart", len(ins))
	}
}
