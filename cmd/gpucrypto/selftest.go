package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/internal/registry"
)

type selftestResult struct {
	Test   string `json:"test"`
	Passed bool   `json:"passed"`
	// Skipped: the suite does not run on this device by design (AES on a
	// CPU device, which the aes package refuses); Error says why.
	Skipped bool    `json:"skipped,omitempty"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
	// Ready: the seconds from the command's start to the suite's result
	// (with suites run at once, the time to the package's first result)
	Ready float64 `json:"ready_seconds"`
}

// selftests are the known-answer suites of every algorithm, in the
// registry's order (internal/registry).
var selftests = func() []registry.SelfTest {
	var out []registry.SelfTest
	for _, a := range registry.All {
		out = append(out, a.SelfTests...)
	}
	return out
}()

// selftestReport is the JSON of selftest: the run and one result per
// suite.
type selftestReport struct {
	runInfo
	Results []selftestResult `json:"results,omitempty"`
}

func cmdSelftest(args []string) error { return selftest(args, os.Stdout, os.Stderr) }

// selftest runs the command with its arguments: the report on stdout
// (the JSON of --json too), the suites' lines on stderr with --json.
func selftest(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("selftest", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	report := jsonFlags(fs)
	jobs := fs.Int("jobs", 0, "the suites run at once (0: all at once, as a program that makes its engines side by side; 1: one after another)")
	report.stdoutTo = stdout
	parseFlags(fs, args)
	if fs.NArg() > 0 {
		return fmt.Errorf("selftest: unexpected arguments %q", fs.Args())
	}
	if *jobs < 0 {
		return fmt.Errorf("selftest: --jobs %d: want 0 (all at once) or more", *jobs)
	}
	if *jobs == 0 {
		*jobs = len(selftests)
	}
	d, err := pickDevice()
	if err != nil {
		return err
	}
	rep := selftestReport{runInfo: newRunInfo(d, "", "")}
	if err := report.start(rep); err != nil {
		return err
	}
	defer report.close()
	// a line as each suite starts and as it ends: some take a while on a
	// CPU device (modexp's, on PoCL), or on a fresh GPU where the kernels
	// are compiled first; with --json they go to stderr
	out := stdout
	if report.toStdout() {
		out = stderr
	}
	fmt.Fprintf(out, "selftest on %s (inline PTX: %v)\n", d, d.CarryChains)
	rep.Results = make([]selftestResult, len(selftests))
	failed := 0
	var mu sync.Mutex // over out, report and failed
	var reportErr error
	started := time.Now()
	run := func(i int, st registry.SelfTest) {
		mu.Lock()
		fmt.Fprintf(out, "  [%d/%d] %-32s running\n", i+1, len(selftests), st.Name)
		mu.Unlock()
		t0 := time.Now()
		err := st.Run(d)
		r := selftestResult{Test: st.Name, Passed: err == nil, Seconds: time.Since(t0).Seconds(), Ready: time.Since(started).Seconds()}
		r.Skipped = errors.Is(err, aes.ErrCPUDevice)
		status := "PASS"
		switch {
		case r.Skipped:
			r.Error = err.Error()
			status = "SKIPPED: " + err.Error()
		case err != nil:
			r.Error = err.Error()
			status = "FAIL: " + err.Error()
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil && !r.Skipped {
			failed++
		}
		rep.Results[i] = r
		fmt.Fprintf(out, "  [%d/%d] %-32s %6.2fs  (ready %6.2fs after the start)  %s\n", i+1, len(selftests), st.Name, r.Seconds, r.Ready, status)
		if err := report.result(r); err != nil && reportErr == nil {
			reportErr = err
		}
	}
	// --jobs suites at once (the device builds distinct programs at
	// once): with all at once, a suite's ready time is what a program
	// that makes its engines side by side waits for that package
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(*jobs, len(selftests)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				run(i, selftests[i])
			}
		}()
	}
	for i := range selftests {
		next <- i
	}
	close(next)
	wg.Wait()
	if reportErr != nil {
		return reportErr
	}
	if err := report.finish(rep); err != nil {
		return err
	}
	if failed > 0 {
		return errors.New(fmt.Sprint(failed, " self-test(s) failed"))
	}
	skipped := 0
	for _, r := range rep.Results {
		if r.Skipped {
			skipped++
		}
	}
	if skipped > 0 {
		fmt.Fprintf(out, "all self-tests passed (%d skipped on this device)\n", skipped)
	} else {
		fmt.Fprintln(out, "all self-tests passed")
	}
	return nil
}
