package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

// The JSON of the commands that measure or check (bench, bench aes,
// bench tls, burnin, selftest): --json prints the whole report as one
// document on stdout at the end, instead of the table; --json-out FILE
// writes it as JSON Lines while the run goes, so that a run stopped
// before its end (a time limit, a crash) keeps every row it finished:
//
//	{"run": {...}}       first: what the run is (device, commit, settings)
//	{"result": {...}}    then one line per row, as soon as it is known
//
// The document of --json is the run's object with its rows under
// "results". gpucrypto plot reads both forms.

// jsonLinesUsage is the help of --json-out.
const jsonLinesUsage = `also write the report to this file as JSON Lines, each line as soon as it is known: {"run": {...}} first, then {"result": {...}} per row (a run stopped early keeps every row it finished)`

// jsonDocumentUsage is the help of --json.
const jsonDocumentUsage = `print the report as one JSON document on stdout at the end (the run's fields, its rows under "results") instead of the table`

// jsonLine is one line of a JSON Lines report: the run or one result.
type jsonLine struct {
	Run    any `json:"run,omitempty"`
	Result any `json:"result,omitempty"`
}

// jsonReport is the --json and --json-out flags of a command and the file
// of --json-out while the run writes it.
type jsonReport struct {
	stdout   *bool
	path     *string
	file     *os.File
	stdoutTo io.Writer // where --json prints (nil: os.Stdout)
}

// jsonFlags defines --json and --json-out on fs.
func jsonFlags(fs *flag.FlagSet) *jsonReport {
	return &jsonReport{stdout: fs.Bool("json", false, jsonDocumentUsage), path: fs.String("json-out", "", jsonLinesUsage)}
}

// toStdout reports whether --json was given: the report goes to stdout
// as JSON, and the table is not printed.
func (j *jsonReport) toStdout() bool { return *j.stdout }

// start creates the --json-out file (if asked) and writes its first line,
// run.
func (j *jsonReport) start(run any) error {
	if *j.path == "" {
		return nil
	}
	f, err := os.Create(*j.path)
	if err != nil {
		return fmt.Errorf("--json-out: %w", err)
	}
	j.file = f
	return j.write(jsonLine{Run: run})
}

// result appends one row to the --json-out file (if asked). A line is one
// write: what is written stays written if the process ends.
func (j *jsonReport) result(r any) error {
	if j.file == nil {
		return nil
	}
	return j.write(jsonLine{Result: r})
}

func (j *jsonReport) write(line jsonLine) error {
	data, err := json.Marshal(line)
	if err != nil {
		return fmt.Errorf("--json-out: %w", err)
	}
	if _, err := j.file.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("--json-out: %w", err)
	}
	return nil
}

// finish closes the --json-out file and, with --json, prints doc (the
// whole report) on stdout.
func (j *jsonReport) finish(doc any) error {
	if err := j.close(); err != nil {
		return err
	}
	if !*j.stdout {
		return nil
	}
	w := j.stdoutTo
	if w == nil {
		w = os.Stdout
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// close closes the --json-out file (if open); a run that fails calls it
// too, keeping the rows written.
func (j *jsonReport) close() error {
	if j.file == nil {
		return nil
	}
	err := j.file.Close()
	j.file = nil
	if err != nil {
		return fmt.Errorf("--json-out: %w", err)
	}
	return nil
}

// jsonDocumentFlags defines --json and --json-out on fs for a command
// whose report is small and written at once (devices, version): both
// write the same document, --json-out to a file; the function returned
// writes doc as they ask.
func jsonDocumentFlags(fs *flag.FlagSet) (asJSON *bool, write func(doc any) error) {
	return jsonDocumentFlagsTo(fs, os.Stdout)
}

// jsonDocumentFlagsTo is jsonDocumentFlags printing --json's document on
// stdout.
func jsonDocumentFlagsTo(fs *flag.FlagSet, stdout io.Writer) (asJSON *bool, write func(doc any) error) {
	asJSON = fs.Bool("json", false, "print JSON instead of the table")
	path := fs.String("json-out", "", "also write the JSON to this file")
	return asJSON, func(doc any) error {
		if *path != "" {
			if err := writeJSON(*path, doc); err != nil {
				return fmt.Errorf("--json-out: %w", err)
			}
		}
		if *asJSON {
			return printJSONTo(stdout, doc)
		}
		return nil
	}
}
