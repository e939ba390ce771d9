package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// benchGroup is a group of operations of `gpucrypto bench`: the
// subcommand "gpucrypto bench NAME", whose operations plain "gpucrypto
// bench" runs too, with every other group's.
type benchGroup struct {
	name      string   // the subcommand
	algorithm string   // its algorithm in internal/registry
	what      string   // its line in "gpucrypto bench -h"
	ops       []string // its operations (--ops), in report order
	// gpuBatches and cpuBatches are the default batch sizes (--batch) on
	// a GPU and on another device (a CPU through PoCL); batchNote ends
	// the help of --batch of "gpucrypto bench NAME".
	gpuBatches, cpuBatches []int
	batchNote              string
	// flags adds the group's own flags to fs: those of "gpucrypto bench
	// NAME" (alone), or of plain "gpucrypto bench", which defines every
	// group's on one fs (a flag that two groups share is defined once).
	// The function it returns checks them once fs is parsed (an error
	// names the flag) and gives the group's measurements.
	flags func(fs *flag.FlagSet, alone bool) func() (benchPlan, error)
}

// benchPlan gives the measurements of operation op of a group on
// batches of each size of batches, on r's device (their measure runs
// nothing until called).
type benchPlan func(r *benchRun, op string, batches []int) []benchCase

// benchCommand is a subcommand of `gpucrypto bench` that is a command of
// its own (aes, server, tls), with flags and a report of its own.
type benchCommand struct {
	name      string
	algorithm string // its algorithm in internal/registry; "": none
	what      string // its line in "gpucrypto bench -h"; "": not listed
	// ops are its operations (--ops); nil: none
	ops func() []string
	run func(args []string) error
}

// benchGroups and benchCommands are the subcommands of `gpucrypto bench`
// (tables.go).
var (
	benchGroups   = newTable(func(g benchGroup) string { return g.algorithm })
	benchCommands = newTable(func(c benchCommand) string { return c.algorithm })
)

// benchSubcommand is a subcommand of `gpucrypto bench` as its help lists
// it.
type benchSubcommand struct{ name, what string }

// benchSubcommands are the subcommands of "gpucrypto bench", in the order
// "gpucrypto bench -h" lists them: the groups, then the commands.
func benchSubcommands() []benchSubcommand {
	var out []benchSubcommand
	for _, g := range benchGroups.all() {
		out = append(out, benchSubcommand{g.name, g.what})
	}
	for _, c := range benchCommands.all() {
		if c.what != "" {
			out = append(out, benchSubcommand{c.name, c.what})
		}
	}
	return out
}

// benchSubcommandNames are the names of benchSubcommands.
func benchSubcommandNames() []string {
	var names []string
	for _, s := range benchSubcommands() {
		names = append(names, s.name)
	}
	return names
}

// benchGroupNamed is the group called name.
func benchGroupNamed(name string) (benchGroup, bool) {
	for _, g := range benchGroups.all() {
		if g.name == name {
			return g, true
		}
	}
	return benchGroup{}, false
}

// benchCommandNamed is the command called name.
func benchCommandNamed(name string) (benchCommand, bool) {
	for _, c := range benchCommands.all() {
		if c.name == name {
			return c, true
		}
	}
	return benchCommand{}, false
}

// benchGroupNames are the names of the groups: what plain bench runs.
func benchGroupNames() []string {
	var names []string
	for _, g := range benchGroups.all() {
		names = append(names, g.name)
	}
	return names
}

// benchOpsOf are the operations of a bench subcommand ("": plain "bench",
// which runs every group's; nil: none, as for tls).
func benchOpsOf(sub string) []string {
	if sub == "" {
		var ops []string
		for _, g := range benchGroups.all() {
			ops = append(ops, g.ops...)
		}
		return ops
	}
	if g, ok := benchGroupNamed(sub); ok {
		return g.ops
	}
	if c, ok := benchCommandNamed(sub); ok && c.ops != nil {
		return c.ops()
	}
	return nil
}

// benchName is "bench" or "bench SUB".
func benchName(sub string) string {
	if sub == "" {
		return "bench"
	}
	return "bench " + sub
}

// batchUsage is the help of --batch of groups: one group's defaults, or
// (plain bench) each group's, those with the same sizes together.
func batchUsage(groups []benchGroup) string {
	if len(groups) == 1 {
		g := groups[0]
		return fmt.Sprintf("batch sizes (default: %s on a GPU, %s on a CPU device)%s", joinSizes(g.gpuBatches), joinSizes(g.cpuBatches), g.batchNote)
	}
	per := func(sizes func(benchGroup) []int) string {
		var keys []string
		names := map[string][]string{}
		for _, g := range groups {
			k := joinSizes(sizes(g))
			if names[k] == nil {
				keys = append(keys, k)
			}
			names[k] = append(names[k], g.name)
		}
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " for " + wordList(names[k], "and")
		}
		return strings.Join(parts, ", ")
	}
	return "batch sizes (default on a GPU: " + per(func(g benchGroup) []int { return g.gpuBatches }) +
		"; on a CPU device: " + per(func(g benchGroup) []int { return g.cpuBatches }) + ")"
}

// joinSizes is a list of batch sizes as --batch takes it: "16384,131072".
func joinSizes(sizes []int) string {
	s := make([]string, len(sizes))
	for i, n := range sizes {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
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
		for _, s := range benchSubcommands() {
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
			fmt.Fprintf(w, `usage: gpucrypto bench [SUBCOMMAND] [flags]

Measures throughput on the chosen device and, in the same run, on all CPU
cores. Without a subcommand it runs the operations of %s.

subcommands:
`, wordList(benchGroupNames(), "and"))
			for _, s := range benchSubcommands() {
				fmt.Fprintf(w, "  %-7s %s\n", s.name, s.what)
			}
			fmt.Fprint(w, `
Run "gpucrypto bench SUBCOMMAND -h" for a subcommand's operations and flags.

flags of "gpucrypto bench" without a subcommand:
`)
			fs.PrintDefaults()
			return
		}
		for _, s := range benchSubcommands() {
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
