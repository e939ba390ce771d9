package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// The soak on the test device (PoCL in CI) for about 15 s, as a user runs
// it for fault capture (GOTRACEBACK=crash, --crash-output): it passes (no
// wrong result, no unexpected error, no panic, no hang), and every
// operation made several Engines and Servers, was called through both,
// computed on the device, and had calls refused by a Close while they
// were in flight; the JSON Lines file holds the run and a row per
// operation, the crash file is empty.
func TestBurninSoak(t *testing.T) {
	d := devicetest.Device(t)
	dir := t.TempDir()
	crash, lines, failures := filepath.Join(dir, "crash.txt"), filepath.Join(dir, "soak.jsonl"), filepath.Join(dir, "failures.jsonl")
	stdout, stderr, code := runCLIEnv(t, []string{"GOTRACEBACK=crash"}, "burnin", "--soak", "--device", strconv.Itoa(d.Index),
		"--duration", "15s", "--cycle", "3s", "--callers", "8", "--batch", "32", "--rsa-keys", "1", "--seed", "11",
		"--progress", "5s", "--failures", failures, "--json-out", lines, "--crash-output", crash)
	t.Logf("\n%s%s", stderr, stdout)
	if code != 0 || !strings.Contains(stdout, "PASS: 0 mismatches, 0 unexpected errors") {
		t.Fatalf("burnin --soak: exit %d, want 0 and PASS", code)
	}
	if info, err := os.Stat(crash); err != nil || info.Size() != 0 {
		t.Errorf("crash output: %v, %v; want an empty file", info, err)
	}
	if _, err := os.Stat(failures); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failures file was written: %v", err)
	}
	f, err := os.Open(lines)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var run burninReport
	seen := map[string]bool{}
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			var line struct{ Run *burninReport }
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.Run == nil {
				t.Fatalf("first line %q: %v, want the run", sc.Text(), err)
			}
			run = *line.Run
			continue
		}
		var line struct{ Result *soakResult }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.Result == nil {
			t.Fatalf("line %d %q: %v, want a result", n+1, sc.Text(), err)
		}
		r := line.Result
		seen[r.Op] = true
		onDevice := r.OnDevice > 0 || (strings.HasPrefix(r.Op, "aes") && d.Type == device.TypeCPU) // AES refuses CPU devices: its CPU engine there
		if r.Engines < 2 || r.Servers < 2 || r.ServerCalls == 0 || r.EngineCalls == 0 || !onDevice || r.Closed == 0 ||
			r.Mismatches != 0 || r.Errors != 0 {
			t.Errorf("%s: %+v; want two Engines and Servers or more, calls through both, device work, calls refused after a Close, no problem", r.Op, *r)
		}
	}
	if !run.Soak || run.Seed != 11 {
		t.Errorf("run line: %+v", run)
	}
	for _, op := range soakOpNames() {
		if !seen[op] {
			t.Errorf("no row of %s", op)
		}
	}
}
