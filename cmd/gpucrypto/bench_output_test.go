package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// TestBenchRows: bench (its arith and mlkem groups), bench aes and bench
// tls on the test device print their table a row at a time under fixed
// columns, and --json-out holds the run and a JSON line per row; --json
// prints one document with every row.
func TestBenchRows(t *testing.T) {
	d := devicetest.Device(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		rows int
	}{
		{"arith", []string{"bench", "arith", "--ops", "add,mul", "--bits", "256", "--batch", "16,64", "--seconds", "0.01", "--no-auto"}, 4},
		{"aes", []string{"bench", "aes", "--shapes", "batch", "--ops", "gcm", "--keys", "128", "--batch-bytes", "64,256", "--batch-mb", "1",
			"--pipeline", "1", "--seconds", "0.01", "--no-cpu", "--no-auto"}, 2},
		{"mlkem", []string{"bench", "mlkem", "--batch", "4", "--seconds", "0.01", "--no-auto"}, 6},
		{"tls", []string{"bench", "tls", "--keys", "cpu", "--bits", "1024", "--versions", "1.3,1.2", "--concurrency", "2",
			"--seconds", "0.1", "--warmup", "0"}, 2},
	} {
		lines := filepath.Join(dir, c.name+".jsonl")
		args := append(c.args, "--device", strconv.Itoa(d.Index))
		stdout, stderr, code := runCLI(t, append(args, "--json-out", lines)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		table := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
		if len(table) < c.rows+1 {
			t.Fatalf("%q: table of %d lines, want a title and %d rows:\n%s", args, len(table), c.rows, stdout)
		}
		body := table[len(table)-c.rows-1:]
		for _, row := range body[1:] {
			if len(row) < len(body[0]) {
				t.Errorf("%q: row %q is not as wide as the titles %q", args, row, body[0])
			}
		}
		data, err := os.ReadFile(lines)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(got) != 1+c.rows || !strings.HasPrefix(got[0], `{"run":{`) {
			t.Fatalf("%q --json-out: %d lines, want the run and %d rows:\n%s", args, len(got), c.rows, data)
		}
		for _, line := range got[1:] {
			if !strings.HasPrefix(line, `{"result":{`) {
				t.Errorf("%q --json-out: line %q is not a result", args, line)
			}
		}
		stdout, stderr, code = runCLI(t, append(args, "--json")...)
		var doc struct {
			Device  string
			Results []json.RawMessage
		}
		device := d.Name
		if c.name == "tls" {
			device = "none" // the cpu key alone
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &doc) != nil || doc.Device != device || len(doc.Results) != c.rows {
			t.Errorf("%q --json: exit %d, %d results in %q (stderr %q), want one document of %d", args, code, len(doc.Results), stdout, stderr, c.rows)
		}
	}
}
