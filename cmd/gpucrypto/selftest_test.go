package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/internal/registry"
)

// TestSelftestLines: selftest prints a line as each suite starts and one
// as it ends, with its time and verdict (on stderr with --json, whose
// document goes to stdout), and --json-out holds the run and a row per
// suite. The suites here are stand-ins: the real ones take a minute on a
// CPU device.
func TestSelftestLines(t *testing.T) {
	d := devicetest.Device(t)
	saved := selftests
	defer func() { selftests = saved }()
	selftests = []registry.SelfTest{
		{Name: "first suite", Run: func(*device.Device) error { return nil }},
		{Name: "failing suite", Run: func(*device.Device) error { return errors.New("wrong answer") }},
	}
	lines := filepath.Join(t.TempDir(), "selftest.jsonl")
	var stdout, stderr bytes.Buffer
	err := selftest([]string{"--device", strconv.Itoa(d.Index), "--json-out", lines}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "1 self-test(s) failed") {
		t.Errorf("err = %v, want one failure", err)
	}
	out := stdout.String()
	for _, want := range []string{"[1/2] first suite", "running\n", "[2/2] failing suite", "FAIL: wrong answer", "PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout has no %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "running\n"); n != 2 {
		t.Errorf("%d lines of suites starting, want 2:\n%s", n, out)
	}
	data, err := os.ReadFile(lines)
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Split(strings.TrimSpace(string(data)), "\n"); len(rows) != 3 || !strings.Contains(rows[2], `"passed":false`) {
		t.Errorf("--json-out:\n%s\nwant the run and two rows", data)
	}

	stdout.Reset()
	stderr.Reset()
	selftest([]string{"--device", strconv.Itoa(d.Index), "--json"}, &stdout, &stderr)
	var doc selftestReport
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil || len(doc.Results) != 2 || doc.Device != d.Name {
		t.Errorf("--json: %v, %+v", err, doc)
	}
	if !strings.Contains(stderr.String(), "running\n") {
		t.Errorf("--json: the suites' lines are not on stderr:\n%s", stderr.String())
	}
}

// By default (--jobs 0) the suites run at once (a suite here returns only
// once every suite has begun), each line saying when its suite was ready;
// with --jobs 1 they run one after another; a negative --jobs is refused.
func TestSelftestJobs(t *testing.T) {
	d := devicetest.Device(t)
	saved := selftests
	defer func() { selftests = saved }()
	var begun sync.WaitGroup
	begun.Add(3)
	suite := func(*device.Device) error {
		begun.Done()
		waited := make(chan struct{})
		go func() { begun.Wait(); close(waited) }()
		select {
		case <-waited:
			return nil
		case <-time.After(20 * time.Second):
			return errors.New("the other suites never began")
		}
	}
	selftests = []registry.SelfTest{{Name: "a", Run: suite}, {Name: "b", Run: suite}, {Name: "c", Run: suite}}
	var stdout, stderr bytes.Buffer
	if err := selftest([]string{"--device", strconv.Itoa(d.Index)}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if n := strings.Count(stdout.String(), "after the start)  PASS"); n != 3 {
		t.Errorf("%d suites ready and passed, want 3:\n%s", n, stdout.String())
	}

	var order []string
	selftests = []registry.SelfTest{
		{Name: "first", Run: func(*device.Device) error { order = append(order, "first"); return nil }},
		{Name: "second", Run: func(*device.Device) error { order = append(order, "second"); return nil }},
	}
	stdout.Reset()
	if err := selftest([]string{"--device", strconv.Itoa(d.Index), "--jobs", "1"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, " ") != "first second" {
		t.Errorf("--jobs 1 ran %v", order)
	}
	if err := selftest([]string{"--device", strconv.Itoa(d.Index), "--jobs", "-1"}, &stdout, &stderr); err == nil {
		t.Error("--jobs -1 accepted")
	}
}
