package main

import (
	"flag"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpucrypto/gpucrypto/internal/registry"
)

// The algorithms of internal/registry that have device kernels but no
// bench subcommand, or no burnin operation, and why. An algorithm that
// gains one leaves its list (the test says so).
var (
	withoutBench  = map[string]string{}
	withoutBurnin = map[string]string{
		"arith": "no burn-in operation yet; selftest checks its kernels with known answers",
	}
)

// TestTablesAreConsistent: the tables of tables.go agree with each other
// and with internal/registry. Every --ops name of bench (its groups and
// bench aes), burnin (and its soak) and bench server is unique within
// its command and resolves to what runs it; every entry's algorithm is
// one of registry.All; every algorithm with device kernels has a bench
// subcommand and a burnin operation, or is listed as having none.
func TestTablesAreConsistent(t *testing.T) {
	inRegistry := func(what, algorithm string) {
		t.Helper()
		if _, ok := registry.Named(algorithm); !ok {
			t.Errorf("%s: algorithm %q is not one of internal/registry's", what, algorithm)
		}
	}
	unique := func(command string, names []string) {
		t.Helper()
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				t.Errorf("%s: %q twice", command, n)
			}
			seen[n] = true
		}
	}

	// bench: its subcommands, and the operations of its groups and of
	// bench aes, which plain bench and checkBenchOps tell apart
	var subcommands, benchOps []string
	for _, g := range benchGroups.all() {
		inRegistry("bench "+g.name, g.algorithm)
		subcommands = append(subcommands, g.name)
		benchOps = append(benchOps, g.ops...)
		if g.what == "" || len(g.ops) == 0 || len(g.gpuBatches) == 0 || len(g.cpuBatches) == 0 || g.flags == nil {
			t.Errorf("bench %s: what, operations, default batches or flags missing", g.name)
		}
	}
	for _, c := range benchCommands.all() {
		if c.algorithm != "" {
			inRegistry("bench "+c.name, c.algorithm)
		}
		subcommands = append(subcommands, c.name)
		if c.ops != nil && c.name != "server" { // bench server's operations are the Servers' (below)
			benchOps = append(benchOps, c.ops()...)
		}
	}
	unique("bench's subcommands", subcommands)
	unique("bench's operations", benchOps)
	// each group's flags alone, and every group's on one set (plain
	// bench: a flag two groups share is defined once), give each of its
	// operations at least one measurement of it
	plain := flag.NewFlagSet("bench", flag.ContinueOnError)
	for _, g := range benchGroups.all() {
		g.flags(plain, false)
		fs := flag.NewFlagSet("bench "+g.name, flag.ContinueOnError)
		check := g.flags(fs, true)
		if err := fs.Parse(nil); err != nil {
			t.Fatal(err)
		}
		plan, err := check()
		if err != nil {
			t.Fatalf("bench %s: the default flags: %v", g.name, err)
		}
		for _, op := range g.ops {
			cases := plan(&benchRun{engines: engineCache{}}, op, []int{1})
			if len(cases) == 0 {
				t.Errorf("bench %s: --ops %s: no measurement", g.name, op)
			}
			for _, c := range cases {
				if c.op != op || c.bits <= 0 || c.batch != 1 || c.measure == nil {
					t.Errorf("bench %s: --ops %s: the case %+v", g.name, op, c)
				}
			}
		}
	}

	// burnin and its soak
	names := burninOpNames()
	unique("burnin's operations", names)
	for _, name := range names {
		op, err := burninOpNamed(name)
		if err != nil || op.name != name || op.prepare == nil || op.batchGPU <= 0 || op.batchCPU <= 0 {
			t.Errorf("burnin --ops %s: %+v, %v", name, op, err)
		}
		inRegistry("burnin "+name, op.algorithm)
		if p, ok := burninPatternOf(name); ok && p.algorithm != op.algorithm {
			t.Errorf("burnin --ops %s: of algorithm %s, and of the pattern %s of %s", name, op.algorithm, p.pattern, p.algorithm)
		}
	}
	var patterns []string
	for _, p := range burninOpPatterns.all() {
		inRegistry("burnin "+p.pattern, p.algorithm)
		patterns = append(patterns, p.pattern)
		if p.help == "" || p.resolve == nil {
			t.Errorf("burnin %s: no help or resolve", p.pattern)
		}
	}
	unique("burnin's patterns", patterns)
	soakNames := soakOpNames()
	unique("the soak's operations", soakNames)
	for _, name := range soakNames {
		op, err := soakOperationOf(name)
		if err != nil || op.name != name || op.family == nil {
			t.Errorf("burnin --soak --ops %s: %+v, %v", name, op, err)
		}
		inRegistry("burnin --soak "+name, op.algorithm)
		if b, err := burninOpNamed(name); err != nil || b.algorithm != op.algorithm {
			t.Errorf("burnin --soak --ops %s: not burnin's operation of %s: %+v, %v", name, op.algorithm, b, err)
		}
		if op.pattern != "" && (!slices.Contains(patterns, op.pattern) || op.patternHelp == "") {
			t.Errorf("burnin --soak --ops %s: its pattern %q is not one of burnin's, or has no help", name, op.pattern)
		}
	}

	// bench server
	serverNames := serverOpNames()
	unique("bench server's operations", serverNames)
	for _, name := range serverNames {
		op, ok := serverOpNamed(name)
		if !ok || op.start == nil || op.what == "" || op.goPackage == "" || !slices.Contains(op.forms, formBlocking) {
			t.Errorf("bench server --ops %s: %+v", name, op)
		}
		inRegistry("bench server "+name, op.algorithm)
		for _, f := range op.forms {
			if !slices.Contains(serverForms, f) {
				t.Errorf("bench server --ops %s: the form %q", name, f)
			}
		}
	}

	// every algorithm with kernels: a bench subcommand and a burnin
	// operation, or a reason for none
	for _, a := range registry.All {
		if a.Programs == nil {
			continue
		}
		hasBench := slices.ContainsFunc(benchGroups.all(), func(g benchGroup) bool { return g.algorithm == a.Name }) ||
			slices.ContainsFunc(benchCommands.all(), func(c benchCommand) bool { return c.algorithm == a.Name })
		hasBurnin := slices.ContainsFunc(burninOps.all(), func(op burninOp) bool { return op.algorithm == a.Name })
		for _, c := range []struct {
			what    string
			has     bool
			without map[string]string
		}{{"bench subcommand", hasBench, withoutBench}, {"burnin operation", hasBurnin, withoutBurnin}} {
			_, excused := c.without[a.Name]
			switch {
			case !c.has && !excused:
				t.Errorf("%s: no %s (add one in its file, %s.go, or say why not in this test)", a.Name, c.what, a.Name)
			case c.has && excused:
				t.Errorf("%s: has a %s now: take it out of this test's list of those without", a.Name, c.what)
			}
		}
	}
}

// TestTablesInHelp: the help of bench (plain and of each group), burnin
// and bench server names every operation of the tables.
func TestTablesInHelp(t *testing.T) {
	listed := func(command, help string, names []string) {
		t.Helper()
		for _, n := range names {
			if !regexp.MustCompile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(n) + `([^a-z0-9-]|$)`).MatchString(help) {
				t.Errorf("%s -h does not name %s", command, n)
			}
		}
	}
	stdout, _, _ := runCLI(t, "bench", "-h")
	listed("bench", stdout, benchSubcommandNames())
	listed("bench", stdout, benchOpsOf(""))
	for _, g := range benchGroups.all() {
		stdout, _, _ := runCLI(t, "bench", g.name, "-h")
		if !strings.Contains(stdout, "operations (--ops): "+strings.Join(g.ops, ", ")+"\n") {
			t.Errorf("bench %s -h does not list its operations %q:\n%s", g.name, g.ops, stdout)
		}
	}
	stdout, stderr, _ := runCLI(t, "burnin", "-h")
	var patterns []string
	for _, p := range burninOpPatterns.all() {
		patterns = append(patterns, p.pattern)
	}
	listed("burnin", stdout+stderr, slices.Concat(burninOpNames(), patterns, soakOpNames()))
	stdout, _, _ = runCLI(t, "bench", "server", "-h")
	listed("bench server", stdout, serverOpNames())
}

// TestBatchUsage: the --batch help of plain bench gives each group's
// defaults, those with the same sizes together; a group's its own.
func TestBatchUsage(t *testing.T) {
	groups := []benchGroup{
		{name: "a", gpuBatches: []int{1, 2}, cpuBatches: []int{3}, batchNote: "; more"},
		{name: "b", gpuBatches: []int{4}, cpuBatches: []int{3}},
		{name: "c", gpuBatches: []int{1, 2}, cpuBatches: []int{5}},
	}
	if got, want := batchUsage(groups[:1]), "batch sizes (default: 1,2 on a GPU, 3 on a CPU device); more"; got != want {
		t.Errorf("one group: %q, want %q", got, want)
	}
	if got, want := batchUsage(groups), "batch sizes (default on a GPU: 1,2 for a and c, 4 for b; on a CPU device: 3 for a and b, 5 for c)"; got != want {
		t.Errorf("three groups: %q, want %q", got, want)
	}
	if wordList([]string{"a", "b", "c"}, "or") != "a, b or c" || wordList([]string{"a"}, "and") != "a" || wordList(nil, "and") != "" {
		t.Error("wordList")
	}
}
