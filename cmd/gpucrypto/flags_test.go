package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestFlagErrors: a bad value of any flag of any command is an error that
// names the flag (and says what it wants), before a device is used: the
// command exits with status 1 and prints nothing on stdout.
func TestFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"bench", "--seconds", "-1"}, "--seconds -1: want a time in seconds above 0"},
		{[]string{"bench", "--seconds", "0"}, "--seconds 0"},
		{[]string{"bench", "arith", "--seconds", "NaN"}, "--seconds NaN"},
		{[]string{"bench", "--batch", "0"}, `--batch "0": "0" is not a whole number of 1 or more`},
		{[]string{"bench", "rsa", "--batch", "16,x"}, `--batch "16,x"`},
		{[]string{"bench", "arith", "--bits", "7"}, "--bits 7: no operation has 7-bit operands"},
		{[]string{"bench", "arith", "--bits", "-256"}, `--bits "-256"`},
		{[]string{"bench", "ecdh", "--binv", "-1"}, `--binv "-1"`},
		{[]string{"bench", "ecdh", "--pipeline", "0"}, "--pipeline 0: want 1 or more"},
		{[]string{"bench", "--ops", "nosuch"}, `--ops "nosuch"`},
		{[]string{"bench", "--device", "no such device"}, `--device "no such device"`},
		{[]string{"bench", "aes", "--seconds", "0"}, "--seconds 0"},
		{[]string{"bench", "aes", "--keys", "100"}, `--keys "100": unknown value "100" (have 128, 192, 256)`},
		{[]string{"bench", "aes", "--shapes", "resident,nosuch"}, `--shapes "resident,nosuch"`},
		{[]string{"bench", "aes", "--layout", "tall"}, `--layout "tall"`},
		{[]string{"bench", "aes", "--define", "GHASH_WAYS"}, `--define "GHASH_WAYS"`},
		{[]string{"bench", "aes", "--fill", "0x100"}, `--fill "0x100"`},
		{[]string{"bench", "aes", "--pipeline", "0"}, "--pipeline 0"},
		{[]string{"bench", "aes", "--resident-mb", "0"}, "--resident-mb 0"},
		{[]string{"bench", "aes", "--batch-mb", "-1"}, "--batch-mb -1"},
		{[]string{"bench", "aes", "--bulk-mb", "0"}, `--bulk-mb "0"`},
		{[]string{"bench", "aes", "--batch-bytes", "64,-5"}, `--batch-bytes "64,-5"`},
		{[]string{"bench", "aes", "--group", "-1"}, "--group -1"},
		{[]string{"bench", "aes", "--segment", "-1"}, "--segment -1"},
		{[]string{"bench", "aes", "--stages", "-1"}, "--stages -1"},
		{[]string{"bench", "aes", "--stage-mb", "-1"}, "--stage-mb -1"},
		{[]string{"bench", "aes", "--ops", "gcm,nosuch"}, `--ops "nosuch"`},
		{[]string{"bench", "tls", "--concurrency", "0"}, `--concurrency "0"`},
		{[]string{"bench", "tls", "--seconds", "0"}, "--seconds 0"},
		{[]string{"bench", "tls", "--warmup", "-1"}, "--warmup -1"},
		{[]string{"bench", "tls", "--bits", "100"}, "--bits 100"},
		{[]string{"bench", "tls", "--versions", "1.1"}, `--versions "1.1"`},
		{[]string{"bench", "tls", "--keys", "nosuch"}, `--keys "nosuch"`},
		{[]string{"bench", "tls", "--keys", "ed25519"}, "ed25519 with --deployed"},
		{[]string{"bench", "tls", "--curves", "x25519,p999"}, `--curves "x25519,p999"`},
		{[]string{"bench", "tls", "--max-batch", "-1"}, "--max-batch -1"},
		{[]string{"bench", "tls", "--max-delay", "-1s"}, "--max-delay -1s"},
		{[]string{"bench", "tls", "--pipeline", "-1"}, "--pipeline -1"},
		{[]string{"bench", "tls", "--deployed", "--server-cpus", "x"}, "--server-cpus"},
		{[]string{"burnin", "--cases", "-1"}, "--cases -1"},
		{[]string{"burnin", "--duration", "-1s"}, "--duration -1s"},
		{[]string{"burnin", "--batch", "-1"}, "--batch -1"},
		{[]string{"burnin", "--workers", "0"}, "--workers 0"},
		{[]string{"burnin", "--cpu-sample", "0"}, "--cpu-sample 0"},
		{[]string{"burnin", "--rsa-keys", "0"}, "--rsa-keys 0"},
		{[]string{"burnin", "--progress", "-1s"}, "--progress -1s"},
		{[]string{"burnin", "--ops", "x25519,nosuch"}, `unknown operation "nosuch"`},
		{[]string{"burnin", "--ops", "rsa100"}, "rsa100: RSA sizes are 1024 to 4096 bits"},
		{[]string{"burnin", "--ops", ""}, "--ops: no operation"},
		{[]string{"burnin", "--callers", "4"}, "--callers: only with --soak"},
		{[]string{"burnin", "--soak", "--cases", "5"}, "--cases: not with --soak"},
		{[]string{"burnin", "--soak", "--cycle", "0s"}, "--cycle 0s"},
		{[]string{"burnin", "--soak", "--callers", "0"}, "--callers 0"},
		{[]string{"burnin", "--soak", "--duration", "-1s"}, "--duration -1s"},
		{[]string{"burnin", "--soak", "--ops", "aes-cbc"}, `--ops "aes-cbc": not an operation of the soak`},
		{[]string{"burnin", "--device", "no such device"}, `--device "no such device"`},
		{[]string{"selftest", "--device", "no such device"}, `--device "no such device"`},
		{[]string{"selftest", "extra"}, "selftest: unexpected arguments"},
		{[]string{"kernelinfo", "--device", "no such device"}, `--device "no such device"`},
		{[]string{"kernelinfo", "extra"}, "kernelinfo: unexpected arguments"},
		{[]string{"devices", "extra"}, "devices: unexpected arguments"},
		{[]string{"version", "extra"}, "version: unexpected arguments"},
	} {
		stdout, stderr, code := runCLI(t, c.args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestHelpListsValues: the help of a flag lists every value it takes:
// burnin's --device has "all"; each --ops lists every operation its
// command accepts.
func TestHelpListsValues(t *testing.T) {
	stdout, stderr, _ := runCLI(t, "burnin", "-h")
	help := stdout + stderr
	if !regexp.MustCompile(`-device string\n\s+.*\bor all\b`).MatchString(help) {
		t.Errorf("burnin -h: --device does not list all:\n%s", help)
	}
	for _, op := range append(burninOpNames(), soakOpNames()...) {
		if !strings.Contains(help, op) {
			t.Errorf("burnin -h: --ops does not list %s", op)
		}
	}
	for _, s := range benchSubcommands() {
		stdout, _, _ := runCLI(t, "bench", s.name, "-h")
		opsHelp := regexp.MustCompile(`(?s)-ops string\n(.*?)\n  -`).FindStringSubmatch(stdout)
		for _, op := range benchOpsOf(s.name) {
			if opsHelp == nil || !regexp.MustCompile(`\b`+regexp.QuoteMeta(op)+`\b`).MatchString(opsHelp[1]) {
				t.Errorf("bench %s -h: --ops does not list %s", s.name, op)
			}
		}
	}
}
