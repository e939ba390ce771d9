package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// GPUCRYPTO_CRASH_OUTPUT is honoured by every command as it starts: the
// file is opened (created) before the command runs; a file that cannot be
// opened is an error naming the variable.
func TestCrashOutputEnv(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"version"}, {"plot"}, {"bench", "--seconds", "0"}} {
		file := filepath.Join(dir, args[0]+".crash")
		runCLIEnv(t, []string{envCrashOutput + "=" + file}, args...)
		if _, err := os.Stat(file); err != nil {
			t.Errorf("%q with %s set: %v", args, envCrashOutput, err)
		}
	}
	_, stderr, code := runCLIEnv(t, []string{envCrashOutput + "=" + filepath.Join(dir, "no", "such", "dir")}, "version")
	if code != 1 || !strings.Contains(stderr, envCrashOutput) || !strings.Contains(stderr, "no such file") {
		t.Errorf("an unopenable %s: exit %d, stderr %q", envCrashOutput, code, stderr)
	}
}

// --crash-output on bench and burnin opens its file as the flags are
// read, before the other flags are checked.
func TestCrashOutputFlag(t *testing.T) {
	dir := t.TempDir()
	for i, args := range [][]string{{"bench", "--seconds", "0"}, {"bench", "aes", "--seconds", "0"}, {"bench", "tls", "--seconds", "0"}, {"burnin", "--cases", "-1"}} {
		file := filepath.Join(dir, fmt.Sprintf("%d.crash", i))
		runCLI(t, append(args, "--crash-output", file)...)
		if _, err := os.Stat(file); err != nil {
			t.Errorf("%q --crash-output: %v", args, err)
		}
	}
}
