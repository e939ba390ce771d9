package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
)

// serverResult is one row of `gpucrypto bench server`: callers
// goroutines each doing one operation at a time through a Server (the
// blocking form), or as many calls kept in flight by a few goroutines
// (the asynchronous forms), for a while; then, for as long, as many
// goroutines each doing the operation with Go's crypto/*, and the
// comparison of the two.
type serverResult struct {
	Op   string `json:"op"`
	Form string `json:"form"` // blocking, async or async-frames
	// Devices is the number of GPUs behind the Server, one engine each;
	// 0: one CPU engine (no device).
	Devices int `json:"devices"`
	// Callers is the number of blocking callers, or of calls in flight
	// asked for (async); Go's side runs as many goroutines.
	Callers int `json:"callers"`
	// Submitters is the number of goroutines that submit the async calls;
	// InFlight the calls they keep in flight: Callers, or more for
	// async-frames (whole frames of frameSize calls). Go's side runs
	// InFlight goroutines where it is set.
	Submitters int     `json:"submitters,omitempty"`
	InFlight   int     `json:"in_flight,omitempty"`
	Ops        float64 `json:"ops_per_s"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	Count      int     `json:"operations"`
	// OnCPU is the share of the operations computed on the CPU: the
	// Server's CPU path of lone requests, and the batches its engines
	// computed there (all of them for CPU engines).
	OnCPU float64 `json:"on_cpu_fraction"`
	// MeanBatch is the mean size of the batches the Server gave its
	// engines in the window.
	MeanBatch float64 `json:"mean_batch"`
	// CPUPer1000 is the host CPU time of the whole process (user and
	// system, the callers' own loop included) per 1,000 operations in the
	// window, in seconds (0: not measured on this system).
	CPUPer1000 float64 `json:"cpu_s_per_1000_ops"`
	// Go's crypto/* with Callers goroutines, measured right after.
	GoOps        float64 `json:"go_ops_per_s"`
	GoP50Ms      float64 `json:"go_p50_ms"`
	GoP99Ms      float64 `json:"go_p99_ms"`
	GoCPUPer1000 float64 `json:"go_cpu_s_per_1000_ops"`
	// Ratio is Ops / GoOps (0 where Go's side completed nothing);
	// P50DiffMs is P50Ms − GoP50Ms.
	Ratio     float64 `json:"ratio"`
	P50DiffMs float64 `json:"p50_minus_go_ms"`
	// MeetsTarget says whether the row meets the Servers' target against
	// Go's crypto/*: Ratio at least targetRatio and, where Go's p50 is
	// under targetP50Ms, the Server's p50 at most targetP50SlackMs above
	// it.
	MeetsTarget bool `json:"meets_target"`
	// Rounds is the number of rounds where more than one (--rounds): the
	// row is the round whose Ratio is the median, RatioLow and RatioHigh
	// the lowest and highest of them.
	Rounds    int     `json:"rounds,omitempty"`
	RatioLow  float64 `json:"ratio_low,omitempty"`
	RatioHigh float64 `json:"ratio_high,omitempty"`
}

// The Servers' target against Go's crypto/* with as many goroutines.
const (
	targetRatio      = 0.95
	targetP50Ms      = 1.0
	targetP50SlackMs = 0.1
)

// compare sets the comparison of the Server's figures with Go's.
func (r *serverResult) compare() {
	r.Ratio = 0
	if r.GoOps > 0 {
		r.Ratio = r.Ops / r.GoOps
	}
	r.P50DiffMs = r.P50Ms - r.GoP50Ms
	r.MeetsTarget = r.GoOps > 0 && r.Ratio >= targetRatio && (r.GoP50Ms >= targetP50Ms || r.P50DiffMs <= targetP50SlackMs)
}

// serverRun is what the first JSON line of `gpucrypto bench server` says
// of the run: the device, the code and the host, and what it measures.
type serverRun struct {
	runInfo
	// Engines is "device" (one engine per GPU) or "cpu" (one CPU engine:
	// no device).
	Engines       string        `json:"engines"`
	Ops           []string      `json:"ops"`
	Forms         []string      `json:"forms"`
	Callers       []int         `json:"callers"`
	Devices       []int         `json:"devices"`
	Seconds       float64       `json:"seconds"`
	Warmup        float64       `json:"warmup_s"`
	Submitters    int           `json:"submitters"`
	SharedContext bool          `json:"shared_context"`
	Options       serverOptions `json:"batch_options"`
	Rows          int           `json:"rows"`
	Rounds        int           `json:"rounds"`
	// EstimatedS is the time the rows' measurements take, warm-ups
	// included; not the Servers' start-up, nor the answers to the calls
	// still waiting after each window.
	EstimatedS float64 `json:"estimated_s"`
	// NotMeasured names the forms asked for that some operations lack.
	NotMeasured []string `json:"not_measured,omitempty"`
}

// serverOptions are the batch.Options of the run (the flags; zero: the
// Server's default).
type serverOptions struct {
	MaxBatch        int     `json:"max_batch"`
	MaxDelayMs      float64 `json:"max_delay_ms"`
	Pipeline        int     `json:"pipeline"`
	CPUOffload      int     `json:"cpu_offload"`
	AnswerPiece     int     `json:"answer_piece"`
	AnswerAlongside bool    `json:"answer_alongside"`
}

func optionsOf(o batch.Options) serverOptions {
	return serverOptions{MaxBatch: o.MaxBatch, MaxDelayMs: float64(o.MaxDelay) / float64(time.Millisecond), Pipeline: o.Pipeline,
		CPUOffload: o.CPUOffload, AnswerPiece: o.AnswerPiece, AnswerAlongside: o.AnswerAlongside}
}

// serverLine is one line of the JSON of `gpucrypto bench server` (JSON
// Lines): the run first, then each row as it is measured.
type serverLine struct {
	Run    *serverRun    `json:"run,omitempty"`
	Result *serverResult `json:"result,omitempty"`
}

// serverOutput writes the run and its rows as each is measured: the table
// (nil: none, --json) and JSON lines to each of jsons (--json, --json-out),
// one write per line, so that a run cut short keeps every row it
// measured.
type serverOutput struct {
	table   io.Writer
	jsons   []io.Writer
	opWidth int
	// ratioWidth is the ratio column's: wider where rows have rounds
	ratioWidth int
}

// start writes the run's header: the first JSON line, and the table's
// heading.
func (o *serverOutput) start(run serverRun) error {
	for _, op := range run.Ops {
		o.opWidth = max(o.opWidth, len(op))
	}
	o.ratioWidth = 6
	if run.Rounds > 1 {
		o.ratioWidth = len("0.00 (0.00-0.00)")
	}
	if err := o.writeJSON(serverLine{Run: &run}); err != nil {
		return err
	}
	if o.table == nil {
		return nil
	}
	_, err := fmt.Fprintf(o.table, "device: %s (%s)  commit: %s  %s  CPU: %s, %d threads\n\n%s\n", run.Device, run.Backend, run.Commit, run.GoVersion, run.CPU, run.CPUCores,
		o.tableLine("op", "form", "devices", "callers", "ops/s", "p50 ms", "p99 ms", "on CPU", "mean batch", "Go ops/s", "Go p50 ms", "ratio", "p50 - Go ms", "target"))
	return err
}

// row writes one row.
func (o *serverOutput) row(r serverResult) error {
	if err := o.writeJSON(serverLine{Result: &r}); err != nil {
		return err
	}
	if o.table == nil {
		return nil
	}
	devices, target := "cpu", "no"
	if r.Devices > 0 {
		devices = fmt.Sprint(r.Devices)
	}
	if r.MeetsTarget {
		target = "yes"
	}
	// "-": nothing to show (no operation started in the window and
	// completed, or none completed in it)
	p50, p99, p50Diff, goP50 := "-", "-", "-", "-"
	if r.Count > 0 {
		p50, p99 = fmt.Sprintf("%.3f", r.P50Ms), fmt.Sprintf("%.3f", r.P99Ms)
	}
	if r.GoOps > 0 {
		goP50 = fmt.Sprintf("%.3f", r.GoP50Ms)
		if r.Count > 0 {
			p50Diff = fmt.Sprintf("%+.3f", r.P50DiffMs)
		}
	}
	onCPU, meanBatch := "-", "-"
	if r.Ops > 0 {
		onCPU, meanBatch = fmt.Sprintf("%.1f%%", 100*r.OnCPU), fmt.Sprintf("%.0f", r.MeanBatch)
	}
	callers := fmt.Sprint(r.Callers)
	if r.InFlight > 0 && r.InFlight != r.Callers {
		callers += fmt.Sprintf(" (%d)", r.InFlight) // whole frames
	}
	_, err := fmt.Fprintln(o.table, o.tableLine(r.Op, r.Form, devices, callers, human(r.Ops),
		p50, p99, onCPU, meanBatch, human(r.GoOps), goP50, ratioText(r), p50Diff, target))
	return err
}

// ratioText is the row's ratio, and the range of its rounds where there
// are several ("0.97 (0.91-1.02)").
func ratioText(r serverResult) string {
	if r.Rounds > 1 {
		return fmt.Sprintf("%.2f (%.2f-%.2f)", r.Ratio, r.RatioLow, r.RatioHigh)
	}
	return fmt.Sprintf("%.2f", r.Ratio)
}

// tableLine lays out one line of the table in fixed columns (a row is
// printed as soon as it is measured, before the next ones are known).
func (o *serverOutput) tableLine(op, form, devices, callers, ops, p50, p99, onCPU, meanBatch, goOps, goP50, ratio, p50Diff, target string) string {
	line := fmt.Sprintf("%-*s  %-12s  %7s  %13s  %9s  %8s  %8s  %7s  %10s  %9s  %9s  %*s  %11s  %6s",
		o.opWidth, op, form, devices, callers, ops, p50, p99, onCPU, meanBatch, goOps, goP50, o.ratioWidth, ratio, p50Diff, target)
	return strings.TrimRight(line, " ")
}

func (o *serverOutput) writeJSON(line serverLine) error {
	data, err := json.Marshal(line)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	for _, w := range o.jsons {
		if _, err := w.Write(data); err != nil {
			return fmt.Errorf("bench server: writing the JSON: %w", err)
		}
	}
	return nil
}
