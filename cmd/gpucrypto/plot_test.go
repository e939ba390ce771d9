package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const plotServerJSON = `{
  "device": "Test GPU", "backend": "cuda", "commit": "%COMMIT%",
  "results": [
    {"op": "rsa2048", "callers": 1, "ops_per_s": 150, "p50_ms": 6.4, "p99_ms": 6.7, "operations": 300, "devices": 1},
    {"op": "rsa2048", "callers": 256, "ops_per_s": 19000, "p50_ms": 13, "p99_ms": 17, "operations": 39000, "devices": 1},
    {"op": "rsa2048", "callers": 2048, "ops_per_s": 140000, "p50_ms": 11, "p99_ms": 21, "operations": 290000, "devices": 1},
    {"op": "rsa2048", "callers": 2048, "ops_per_s": 270000, "p50_ms": 7, "p99_ms": 12, "operations": 540000, "devices": 2},
    {"op": "rsa2048", "callers": 16384, "ops_per_s": 520000, "p50_ms": 30, "p99_ms": 90, "operations": 1040000, "devices": 2},
    {"op": "x25519", "callers": 1, "ops_per_s": 300, "p50_ms": 3.2, "p99_ms": 3.3, "operations": 600, "devices": 1},
    {"op": "x25519", "callers": 2048, "ops_per_s": 500000, "p50_ms": 3.8, "p99_ms": 7, "operations": 1000000, "devices": 1}
  ]
}`

const plotBenchJSON = `{
  "device": "Test GPU", "driver": "1.0", "backend": "opencl", "commit": "%COMMIT%",
  "results": [
    {"op": "rsa2048", "bits": 2048, "batch": 1, "runs": 9, "gpu_kernel_ops_per_s": 280, "gpu_end_to_end_ops_per_s": 230, "gpu_batch_latency_ms": 4.2, "cpu_ops_per_s": 8000, "speedup_end_to_end": 0.03, "gpu_pipelined_ops_per_s": 235, "pipeline": 2},
    {"op": "rsa2048", "bits": 2048, "batch": 1024, "runs": 9, "gpu_kernel_ops_per_s": 250000, "gpu_end_to_end_ops_per_s": 150000, "gpu_batch_latency_ms": 6.6, "cpu_ops_per_s": 9000, "speedup_end_to_end": 16, "gpu_pipelined_ops_per_s": 200000, "pipeline": 2},
    {"op": "modexp", "bits": 1024, "batch": 64, "runs": 9, "gpu_kernel_ops_per_s": 9000, "gpu_end_to_end_ops_per_s": 8000, "gpu_batch_latency_ms": 8, "cpu_ops_per_s": 30000, "speedup_end_to_end": 0.3},
    {"op": "modexp", "bits": 2048, "batch": 64, "runs": 9, "gpu_kernel_ops_per_s": 3000, "gpu_end_to_end_ops_per_s": 2500, "gpu_batch_latency_ms": 25, "cpu_ops_per_s": 9000, "speedup_end_to_end": 0.3}
  ]
}`

func writePlotFixture(t *testing.T, dir, name, tmpl, commit string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(tmpl, "%COMMIT%", commit)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func checkPNG(t *testing.T, path string, minW, minH int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() < minW || b.Dy() < minH || b.Dx() > 4000 || b.Dy() > 4000 {
		t.Errorf("%s: %dx%d pixels, want at least %dx%d", path, b.Dx(), b.Dy(), minW, minH)
	}
}

func TestPlotFiles(t *testing.T) {
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "plots")
	server := writePlotFixture(t, in, "server.json", plotServerJSON, "89f182fbbd83")
	before := writePlotFixture(t, in, "before.json", plotBenchJSON, "ddad55aaadf6")
	after := writePlotFixture(t, in, "after.json", plotBenchJSON, "ddad55aaadf6+dirty")

	written, err := plotFiles([]string{server, before, after}, out, "t")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"t-rsa2048-server.png", "t-x25519-server.png",
		"t-rsa2048-bench.png", "t-modexp-1024-bench.png", "t-modexp-2048-bench.png",
	}
	if len(written) != len(want) {
		t.Fatalf("wrote %q, want %q", written, want)
	}
	for i, w := range want {
		if written[i] != filepath.Join(out, w) {
			t.Errorf("wrote %s, want %s", written[i], filepath.Join(out, w))
		}
		minW := 600
		if strings.HasSuffix(w, "-server.png") {
			minW = 1000 // two panels
		}
		checkPNG(t, written[i], minW, 400)
	}

	// the default prefix of one input is its base name
	written, err = plotFiles([]string{server}, out, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 2 || filepath.Base(written[0]) != "server-rsa2048-server.png" {
		t.Errorf("wrote %q, want server-rsa2048-server.png, server-x25519-server.png", written)
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"unknown.json": `{"device": "x", "results": [{"foo": 1, "bar": 2}]}`,
		"empty.json":   `{"device": "x", "results": []}`,
		"array.json":   `[1, 2, 3]`,
		"text.json":    `op callers ops/s`,
		"aes.json":     `{"results": [{"op": "ctr", "batch": 1, "gpu_end_to_end_bits_per_s": 1e9}]}`,
		"burnin.json":  `{"results": [{"op": "x25519", "batch": 4, "cases": 8, "mismatches": 0}]}`,
		"lines.json":   "{\"run\": {\"device\": \"x\"}}\n{\"other\": 1}\n",
		"orphan.json":  "{\"result\": {\"op\": \"a\", \"callers\": 1, \"ops_per_s\": 1}}\n",
		"runonly.json": "{\"run\": {\"device\": \"x\"}}\n",
		"mixed.json":   `{"results": [{"op": "a", "callers": 1, "ops_per_s": 1}, {"op": "a", "batch": 1, "cpu_ops_per_s": 1}]}`,
		"null.json":    `{"results": [{"op": "a", "callers": null, "ops_per_s": 1}]}`,
		"zero.json":    `{"results": [{"op": "a", "callers": 1, "ops_per_s": 0, "p50_ms": 0, "p99_ms": 0}]}`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := plotFiles([]string{path}, filepath.Join(dir, "out"), ""); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), name) && !strings.Contains(err.Error(), "no positive values") {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
	if _, err := plotFiles([]string{filepath.Join(dir, "missing.json")}, dir, ""); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := plotFiles(nil, dir, ""); err == nil {
		t.Error("no files: no error")
	}
}

// TestPlotDeviceKind: a CPU-type device (PoCL) is labelled a CPU device in
// the titles and legends, never a GPU; files from before device_type
// tell PoCL's devices by their names.
func TestPlotDeviceKind(t *testing.T) {
	for _, c := range []struct{ typ, name, want string }{
		{"GPU", "NVIDIA H100 80GB HBM3", "GPU"},
		{"CPU", "pthread-skylake-avx512-Intel(R) Xeon(R) Processor", "CPU device"},
		{"CPU", "Intel(R) Xeon(R) Gold", "CPU device"},
		{"ACCEL", "x", "accelerator"},
		{"OTHER", "x", "device"},
		{"", "pthread-haswell-AMD EPYC", "CPU device"},
		{"", "cpu-x86-64-AMD EPYC", "CPU device"},
		{"", "NVIDIA H100 80GB HBM3", "GPU"},
	} {
		in := &plotInput{Type: c.typ, Device: c.name}
		if got := in.kind(); got != c.want {
			t.Errorf("device_type %q, device %q: kind %q, want %q", c.typ, c.name, got, c.want)
		}
	}

	// several devices: each that is not a GPU says so after its name
	title := plotTitle("x25519", []*plotInput{
		{Device: "pthread-skylake", Type: "CPU", Backend: "opencl"},
		{Device: "NVIDIA H100", Type: "GPU", Backend: "cuda"},
	})
	if want := "x25519 on pthread-skylake (CPU device) / NVIDIA H100 (opencl / cuda)"; title != want {
		t.Errorf("title %q, want %q", title, want)
	}

	dir := t.TempDir()
	cpuBench := strings.NewReplacer(`"device": "Test GPU"`, `"device": "pthread-skylake", "device_type": "CPU"`).Replace(plotBenchJSON)
	oldCPUServer := strings.NewReplacer(`"device": "Test GPU"`, `"device": "pthread-skylake"`).Replace(plotServerJSON)
	for _, c := range []struct {
		name, tmpl string
		cpu        bool
	}{
		{"cpu-bench.json", cpuBench, true},
		{"old-cpu-server.json", oldCPUServer, true},
		{"gpu-bench.json", strings.Replace(plotBenchJSON, `"device": "Test GPU"`, `"device": "Test GPU", "device_type": "GPU"`, 1), false},
		{"gpu-server.json", plotServerJSON, false},
	} {
		ins, err := readPlotInputs(writePlotFixture(t, dir, c.name, c.tmpl, "89f182fbbd83"))
		if err != nil {
			t.Fatal(err)
		}
		kind := ins[0].what
		plotLabelInputs(ins)
		var figs []plotFigure
		if kind == plotKindServer {
			figs, err = plotServerFigures(ins)
		} else {
			figs, err = plotBenchFigures(ins)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range figs {
			legend := strings.Join(f.legend, "; ")
			if c.cpu {
				if !strings.Contains(f.title, "CPU device)") {
					t.Errorf("%s %s: title %q does not say CPU device", c.name, f.name, f.title)
				}
				if strings.Contains(legend, "GPU") {
					t.Errorf("%s %s: legend %q calls the CPU device a GPU", c.name, f.name, legend)
				}
				if kind == plotKindBench && !strings.Contains(legend, "CPU device kernel") {
					t.Errorf("%s %s: legend %q has no \"CPU device kernel\"", c.name, f.name, legend)
				}
			} else {
				if strings.Contains(f.title, "CPU device") || strings.Contains(legend, "CPU device") {
					t.Errorf("%s %s: title %q, legend %q: a GPU labelled a CPU device", c.name, f.name, f.title, legend)
				}
				if kind == plotKindBench && !strings.Contains(legend, "GPU kernel") {
					t.Errorf("%s %s: legend %q has no \"GPU kernel\"", c.name, f.name, legend)
				}
			}
			if kind == plotKindServer && f.name == "rsa2048" {
				want := "2 GPUs"
				if c.cpu {
					want = "2 CPU devices"
				}
				if !strings.Contains(legend, want) {
					t.Errorf("%s: legend %q has no %q", c.name, legend, want)
				}
			}
		}
	}
}
