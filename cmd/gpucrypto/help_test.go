package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// envRunMain makes the test binary run the command's main (TestMain), so
// that tests run the CLI as a user does: arguments, stdout, stderr and
// exit status.
const envRunMain = "GPUCRYPTO_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runCLI runs "gpucrypto args..." and returns its stdout, stderr and exit
// status.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIEnv(t, nil, args...)
}

// runCLIEnv is runCLI with the variables env (NAME=VALUE) set too.
func runCLIEnv(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), envRunMain+"=1"), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// TestBenchHelp: "gpucrypto bench -h" lists every subcommand on stdout and
// exits 0.
func TestBenchHelp(t *testing.T) {
	for _, args := range [][]string{{"bench", "-h"}, {"bench", "--help"}, {"bench", "help"}} {
		stdout, stderr, code := runCLI(t, args...)
		if code != 0 || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q; want 0 and nothing", args, code, stderr)
		}
		for _, s := range benchSubcommands() {
			if !strings.Contains(stdout, "\n  "+s.name+" ") {
				t.Errorf("%q: stdout does not list the subcommand %s:\n%s", args, s.name, stdout)
			}
		}
	}
}

// TestBenchSubcommandHelp: each subcommand's help shows its own
// operations and none of the others'.
func TestBenchSubcommandHelp(t *testing.T) {
	for _, s := range benchSubcommands() {
		stdout, stderr, code := runCLI(t, "bench", s.name, "-h")
		if code != 0 || stderr != "" {
			t.Errorf("bench %s -h: exit %d, stderr %q; want 0 and nothing", s.name, code, stderr)
		}
		if !strings.HasPrefix(stdout, "usage: gpucrypto bench "+s.name+" ") {
			t.Errorf("bench %s -h: stdout does not start with its usage:\n%s", s.name, stdout)
		}
		own := benchOpsOf(s.name)
		if len(own) > 0 && !strings.Contains(stdout, "operations (--ops): "+strings.Join(own, ", ")+"\n") {
			t.Errorf("bench %s -h: does not list its operations %q:\n%s", s.name, own, stdout)
		}
		if len(own) == 0 {
			continue // tls: no operations (its x25519 is a key exchange group)
		}
		for _, other := range benchSubcommands() {
			for _, op := range benchOpsOf(other.name) {
				word := regexp.MustCompile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(op) + `([^a-z0-9-]|$)`)
				if !slices.Contains(own, op) && word.MatchString(stdout) {
					t.Errorf("bench %s -h: shows %q, an operation of bench %s", s.name, op, other.name)
				}
			}
		}
	}
}

// TestBenchRejectsOtherOps: an operation given to the wrong subcommand is
// refused before any device is touched, naming the subcommand that has it.
func TestBenchRejectsOtherOps(t *testing.T) {
	for _, c := range []struct {
		args      []string
		op, owner string
	}{
		{[]string{"bench", "rsa", "--ops", "x25519"}, "x25519", "bench ecdh"},
		{[]string{"bench", "ecdh", "--ops", "x25519,modexp"}, "modexp", "bench rsa"},
		{[]string{"bench", "arith", "--ops", "rsa2048"}, "rsa2048", "bench rsa"},
		{[]string{"bench", "aes", "--ops", "gcm,mul"}, "mul", "bench arith"},
		{[]string{"bench", "server", "--ops", "ctr"}, "ctr", "bench aes"},
		{[]string{"bench", "--ops", "gcm"}, "gcm", "bench aes"},
	} {
		stdout, stderr, code := runCLI(t, c.args...)
		if code == 0 || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q; want a failure", c.args, code, stdout)
		}
		if !strings.Contains(stderr, `--ops "`+c.op+`"`) || !strings.Contains(stderr, c.owner) {
			t.Errorf("%q: stderr %q does not name %q and %q", c.args, stderr, c.op, c.owner)
		}
	}
	if _, stderr, code := runCLI(t, "bench", "nosuch"); code == 0 || !strings.Contains(stderr, `unknown subcommand "nosuch"`) {
		t.Errorf("bench nosuch: exit %d, stderr %q", code, stderr)
	}
}

// TestBackendFlagError: a --backend that is no driver of this binary is
// an error naming the flag, in every command that has it.
func TestBackendFlagError(t *testing.T) {
	for _, args := range [][]string{
		{"devices", "--backend", "nosuch"},
		{"selftest", "--backend", "nosuch"},
		{"kernelinfo", "--backend", "nosuch"},
		{"bench", "rsa", "--backend", "nosuch"},
		{"bench", "aes", "--backend", "nosuch"},
		{"bench", "server", "--backend", "nosuch"},
		{"burnin", "--device", "all", "--backend", "nosuch"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(stderr, `--backend "nosuch"`) {
			t.Errorf("%q: exit %d, stderr %q; want an error naming --backend", args, code, stderr)
		}
	}
}
