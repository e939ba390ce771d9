package cl_test

import (
	"os"
	"os/exec"
	"testing"
)

// runChild re-runs one test of this binary in a child process with extra
// environment variables (for state that is fixed once per process).
func runChild(t *testing.T, test string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), "GPUCRYPTO_CHILD=1"), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
