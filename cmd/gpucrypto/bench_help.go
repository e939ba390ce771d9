package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
)

// benchSubcommands are the subcommands of "gpucrypto bench", in the order
// "gpucrypto bench -h" lists them.
var benchSubcommands = []struct{ name, what string }{
	{"arith", "batched multi-precision add, sub and mul"},
	{"ecdh", "X25519 and X448 shared secrets and public keys (keygen)"},
	{"rsa", "modexp (512-4096 bits), RSA-2048/3072/4096 signatures vs crypto/rsa"},
	{"ed25519", "Ed25519 verification, signing and public keys vs crypto/ed25519"},
	{"ecdsa", "ECDSA P-256 verification and signing vs crypto/ecdsa, P-256 ECDH vs crypto/ecdh"},
	{"aes", "AES CTR/GCM/XTS/CBC/ECB: device-resident, bulk and batched calls"},
	{"server", "every Server's operations: ops/s, p50, p99 against concurrent callers, beside Go's crypto/*"},
	{"tls", "crypto/tls handshakes/s, certificate key on the CPU and on the GPU"},
}

// aesModes and serverOps are the operations (--ops) of "bench aes" and
// "bench server"; opGroups holds those of arith, ecdh, rsa, ed25519 and ecdsa.
var (
	aesModes  = []string{"ctr", "gcm", "xts", "cbc", "ecb"}
	serverOps = serverOpNames()
)

// benchOpsOf are the operations of a bench subcommand ("": plain "bench",
// which runs arith, ecdh, rsa, ed25519 and ecdsa together; nil: none, as for tls).
func benchOpsOf(sub string) []string {
	switch sub {
	case "":
		return allOps
	case "aes":
		return aesModes
	case "server":
		return serverOps
	}
	return opGroups[sub]
}

// benchName is "bench" or "bench SUB".
func benchName(sub string) string {
	if sub == "" {
		return "bench"
	}
	return "bench " + sub
}

// checkBenchOps rejects an operation that sub does not have, naming the
// subcommands that have it.
func checkBenchOps(sub string, ops []string) error {
	have := benchOpsOf(sub)
	for _, op := range ops {
		if slices.Contains(have, op) {
			continue
		}
		msg := fmt.Sprintf("%s: --ops %q: not an operation of \"gpucrypto %s\" (its operations: %s)",
			benchName(sub), op, benchName(sub), strings.Join(have, ", "))
		var elsewhere []string
		for _, s := range benchSubcommands {
			if s.name != sub && slices.Contains(benchOpsOf(s.name), op) {
				elsewhere = append(elsewhere, "\"gpucrypto bench "+s.name+"\"")
			}
		}
		if len(elsewhere) > 0 {
			msg += "; it is an operation of " + strings.Join(elsewhere, " and ")
		}
		return errors.New(msg)
	}
	return nil
}

// benchUsage is the help of "gpucrypto bench" (sub "": the list of
// subcommands, then the flags of plain bench) or of one subcommand: what
// it measures, its operations and its flags.
func benchUsage(fs *flag.FlagSet, sub string) func() {
	return func() {
		w := fs.Output()
		if sub == "" {
			fmt.Fprint(w, `usage: gpucrypto bench [SUBCOMMAND] [flags]

Measures throughput on the chosen device and, in the same run, on all CPU
cores. Without a subcommand it runs the operations of arith, ecdh, rsa, ed25519 and ecdsa.

subcommands:
`)
			for _, s := range benchSubcommands {
				fmt.Fprintf(w, "  %-7s %s\n", s.name, s.what)
			}
			fmt.Fprint(w, `
Run "gpucrypto bench SUBCOMMAND -h" for a subcommand's operations and flags.

flags of "gpucrypto bench" without a subcommand:
`)
			fs.PrintDefaults()
			return
		}
		for _, s := range benchSubcommands {
			if s.name == sub {
				fmt.Fprintf(w, "usage: gpucrypto bench %s [flags]\n\n%s.\n", sub, s.what)
			}
		}
		if ops := benchOpsOf(sub); len(ops) > 0 {
			fmt.Fprintf(w, "\noperations (--ops): %s\n", strings.Join(ops, ", "))
		}
		fmt.Fprint(w, "\nflags:\n")
		fs.PrintDefaults()
	}
}

// parseFlags parses args into fs. -h, -help or --help prints fs.Usage on
// stdout and exits 0; a bad flag prints the error and the usage on stderr
// and exits 2 (as flag.ExitOnError does, but with help on stdout).
func parseFlags(fs *flag.FlagSet, args []string) {
	fs.Init(fs.Name(), flag.ContinueOnError)
	var errOut bytes.Buffer
	fs.SetOutput(&errOut)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(os.Stdout)
		fs.Usage()
		os.Exit(0)
	case err != nil:
		os.Stderr.Write(errOut.Bytes())
		os.Exit(2)
	}
	fs.SetOutput(nil)
}
