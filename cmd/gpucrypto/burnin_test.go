package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// A few cases of every operation on the test device (PoCL in CI), through
// the command itself: every case agrees with the CPU, the report says so,
// no failures file is written, and --json-out holds the run and a row per
// operation. On a CPU device the AES operations are not run (the aes
// package refuses CPU devices): their rows say so, and a line says why.
func TestBurnin(t *testing.T) {
	d := devicetest.Device(t)
	failures := filepath.Join(t.TempDir(), "failures.jsonl")
	lines := filepath.Join(t.TempDir(), "burnin.jsonl")
	var stdout, stderr bytes.Buffer
	err := burnin([]string{"-device", strconv.Itoa(d.Index), "-cases", "8", "-batch", "4", "-rsa-keys", "1",
		"-cpu-sample", "2", "-failures", failures, "-seed", "7", "-json-out", lines}, &stdout, &stderr)
	t.Logf("\n%s%s", stderr.String(), stdout.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range burninOpNames() {
		// op batch cases cases/s seconds mismatches fallbacks
		row := reportRow(stdout.String(), op)
		if refusesAES(d, op) {
			if len(row) != 7 || row[1] != "-" || !strings.Contains(stdout.String(), op+": not run on this device: aes: no engine on "+d.Name+", a CPU device") {
				t.Errorf("report: row of %s is %q, want it not run, with the reason", op, row)
			}
			continue
		}
		if len(row) != 7 || row[1] != "4" || row[2] != "8" || row[5] != "0" || row[6] != "0" {
			t.Errorf("report: row of %s is %q, want batch 4, 8 cases, no mismatch, no fallback", op, row)
		}
	}
	if !strings.Contains(stdout.String(), "PASS: 0 mismatches, 0 fallbacks") {
		t.Error("report: no PASS line")
	}
	if _, err := os.Stat(failures); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failures file was written: %v", err)
	}
	data, err := os.ReadFile(lines)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(data)), "\n")
	var run struct{ Run burninReport }
	if len(rows) != 1+len(burninOpNames()) || json.Unmarshal([]byte(rows[0]), &run) != nil || run.Run.Seed != 7 || run.Run.Device != d.Name {
		t.Fatalf("--json-out: %d lines, the first %q; want the run, then one per operation", len(rows), rows[0])
	}
	for i, op := range burninOpNames() {
		var line struct{ Result burninResult }
		want := int64(8)
		if refusesAES(d, op) {
			want = 0
		}
		if err := json.Unmarshal([]byte(rows[1+i]), &line); err != nil || line.Result.Op != op || line.Result.Cases != want || line.Result.Mismatches != 0 {
			t.Errorf("--json-out line %d: %q (%v), want %s's row", 2+i, rows[1+i], err, op)
		}
	}
}

// reportRow is the fields of op's row in the report's table (nil: none).
func reportRow(report, op string) []string {
	for _, line := range strings.Split(report, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == op {
			return f
		}
	}
	return nil
}

// A wrong device result of any operation (one byte of the first non-empty
// result of a call changed through the test seam) is a mismatch: the
// command fails (exit status 1) and the failures file holds the case, with
// the device's and the CPU's outputs, and inputs that reproduce it. Results
// can be empty (a CBC message of length 0 is one in 129), so the seam
// alters the first that is not and the test expects that case; four cases
// make a call with only empty results (one in 129^4) negligible.
func TestBurninCatchesWrongResults(t *testing.T) {
	d := devicetest.Device(t)
	ops := slices.DeleteFunc(tamperedOps(), func(op string) bool { return refusesAES(d, op) })
	var mu sync.Mutex
	tampered := map[string]int{}
	burninTamper = func(op string, results [][]byte) {
		for i, r := range results {
			if len(r) > 0 {
				r[len(r)/2] ^= 0x10
				mu.Lock()
				if _, ok := tampered[op]; !ok {
					tampered[op] = i
				}
				mu.Unlock()
				return
			}
		}
	}
	defer func() { burninTamper = nil }()
	failures := filepath.Join(t.TempDir(), "failures.jsonl")
	var stdout, stderr bytes.Buffer
	err := burnin([]string{"-device", strconv.Itoa(d.Index), "-ops", strings.Join(ops, ","), "-cases", "4", "-batch", "4",
		"-rsa-keys", "1", "-failures", failures, "-progress", "0"}, &stdout, &stderr)
	t.Logf("\n%s", stdout.String())
	if !errors.Is(err, errBurninFailed) {
		t.Fatalf("burnin returned %v, want errBurninFailed", err)
	}
	if !strings.Contains(stdout.String(), "FAIL: ") || !strings.Contains(stdout.String(), "written to "+failures) {
		t.Error("the report does not say FAIL and where the failing cases are")
	}
	f, err := os.Open(failures)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec burninFailure
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("failures file: %v: %.200s", err, sc.Text())
		}
		mu.Lock()
		want, ok := tampered[rec.Op]
		mu.Unlock()
		if !ok || rec.Case != want || len(rec.Input) == 0 || len(rec.Got) == 0 {
			t.Errorf("%s: record of case %d, inputs %d, outputs %d: want case %d (altered: %v) with both", rec.Op, rec.Case, len(rec.Input), len(rec.Got), want, ok)
		}
		if len(rec.Want) > 0 && equalMaps(rec.Got, rec.Want) {
			t.Errorf("%s: the device's output equals the CPU's in the record: %v", rec.Op, rec.Got)
		}
		seen[rec.Op] = true
		t.Logf("%s: %s", rec.Op, rec.What)
	}
	for _, op := range ops {
		if !seen[op] {
			t.Errorf("%s: the wrong result is not in the failures file", op)
		}
		if row := reportRow(stdout.String(), op); len(row) != 7 || row[5] == "0" {
			t.Errorf("%s: report row %q, want a mismatch counted", op, row)
		}
	}
}

// tamperedOps are the operations TestBurninCatchesWrongResults alters:
// every burnin operation, RSA's sizes as one of 1,024 bits (quicker keys).
func tamperedOps() []string {
	var ops []string
	for _, name := range burninOpNames() {
		if strings.HasPrefix(name, "rsa") {
			name = "rsa1024"
		}
		if !slices.Contains(ops, name) {
			ops = append(ops, name)
		}
	}
	return ops
}

// refusesAES reports whether op is an AES operation and d a CPU device,
// on which the aes package makes no engine.
func refusesAES(d *device.Device, op string) bool {
	return strings.HasPrefix(op, "aes-") && d.Type == device.TypeCPU
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
