package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// cmdPlot turns the JSON of gpucrypto bench, bench aes, bench server and
// bench tls (--json documents and --json-out files, JSON Lines included)
// into PNG plots, one file per op.
func cmdPlot(args []string) error {
	fs := flag.NewFlagSet("plot", flag.ExitOnError)
	out := fs.String("out", ".", "directory for the PNG files")
	prefix := fs.String("prefix", "", "file name prefix (default: the input's base name, or \"plot\" for several inputs)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: gpucrypto plot [--out DIR] [--prefix NAME] FILE.json...

Plots the JSON that --json prints and --json-out writes (a document, or JSON
Lines: a run line, then a line per row), one PNG per op:
  gpucrypto bench [SUBCOMMAND]  ops/s against batch size: kernel, end-to-end,
                                pipelined, CPU                     DIR/PREFIX-OP-bench.png
  gpucrypto bench aes           Gbps against message size, per mode, shape and key
                                                                   DIR/PREFIX-OP-aes.png
  gpucrypto bench server        ops/s and p50/p99 latency against callers
                                                                   DIR/PREFIX-OP-server.png
  gpucrypto bench tls           handshakes/s and p50/p99 latency against concurrency,
                                per TLS version                    DIR/PREFIX-tlsV-tls.png
Several files of one kind are drawn as separate lines, labelled by commit
(or file name). burnin and selftest reports have nothing to plot.

`)
		fs.PrintDefaults()
	}
	// flags may also follow the file names
	var files []string
	for {
		fs.Parse(args)
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) == 0 {
		fs.Usage()
		return errors.New("plot: no input files")
	}
	written, err := plotFiles(files, *out, *prefix)
	for _, w := range written {
		fmt.Println(w)
	}
	return err
}

// plotInput is one input file: the fields both kinds of JSON share and
// the results, still raw, as the kind decides how to read them.
type plotInput struct {
	path    string
	what    string            // plotKindServer, plotKindBench, ...
	label   string            // series label: commit, else file name
	Device  string            `json:"device"`
	Backend string            `json:"backend"`
	Type    string            `json:"device_type"` // GPU, CPU, ACCEL, OTHER; absent in older files
	Commit  string            `json:"commit"`
	Results []json.RawMessage `json:"results"`
}

// kind is what the plots call the input's device: "GPU", "CPU device" (an
// OpenCL CPU device such as PoCL's, never to be taken for a GPU),
// "accelerator" or "device". Files from before device_type was written
// say only the device's name: PoCL's CPU devices are named "pthread-..."
// or "cpu-...", the rest were GPUs.
func (in *plotInput) kind() string {
	switch strings.ToUpper(in.Type) {
	case "GPU":
		return "GPU"
	case "CPU":
		return "CPU device"
	case "ACCEL":
		return "accelerator"
	case "":
		name := strings.ToLower(in.Device)
		if strings.HasPrefix(name, "pthread-") || strings.HasPrefix(name, "cpu-") {
			return "CPU device"
		}
		if name == "" || name == "none" {
			return "device"
		}
		return "GPU"
	}
	return "device"
}

// plotServerResult holds the fields of serverResult (bench_server.go) that
// the plots use, read on their own so that older files, without devices,
// still plot.
type plotServerResult struct {
	Op      string  `json:"op"`
	Callers *int    `json:"callers"`
	Ops     float64 `json:"ops_per_s"`
	P50Ms   float64 `json:"p50_ms"`
	P99Ms   float64 `json:"p99_ms"`
	Devices *int    `json:"devices"` // GPUs serving; absent in older files (1)
}

// plotBenchResult holds the fields of benchResult (bench.go) that the plots
// use.
type plotBenchResult struct {
	Op        string  `json:"op"`
	Bits      int     `json:"bits"`
	Batch     *int    `json:"batch"`
	KernelOps float64 `json:"gpu_kernel_ops_per_s"`
	E2EOps    float64 `json:"gpu_end_to_end_ops_per_s"`
	PipeOps   float64 `json:"gpu_pipelined_ops_per_s"`
	CPUOps    float64 `json:"cpu_ops_per_s"`
	BinvGroup int     `json:"binv_group"`
}

// The kinds of input, by the rows' fields, and the suffix of their
// plots' file names.
const (
	plotKindServer = "server" // bench server: callers, ops_per_s
	plotKindBench  = "bench"  // bench, bench arith|ecdh|rsa|ed25519|ecdsa: batch, *_ops_per_s
	plotKindAES    = "aes"    // bench aes: message_bytes, *_bits_per_s
	plotKindTLS    = "tls"    // bench tls (and --deployed): concurrency, handshakes_per_s
)

// plotKinds are the kinds in the order their plots are written.
var plotKinds = []string{plotKindServer, plotKindBench, plotKindAES, plotKindTLS}

// plotFiles reads the inputs, groups them by kind and writes the plots
// under outDir; it returns the paths written (also those written before
// an error).
func plotFiles(files []string, outDir, prefix string) ([]string, error) {
	if len(files) == 0 {
		return nil, errors.New("plot: no input files")
	}
	groups := map[string][]*plotInput{}
	for _, f := range files {
		ins, err := readPlotInputs(f)
		if err != nil {
			return nil, err
		}
		for _, in := range ins {
			groups[in.what] = append(groups[in.what], in)
		}
	}
	if prefix == "" {
		prefix = "plot"
		if len(files) == 1 {
			prefix = strings.TrimSuffix(filepath.Base(files[0]), filepath.Ext(files[0]))
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, kind := range plotKinds {
		inputs := groups[kind]
		if len(inputs) == 0 {
			continue
		}
		plotLabelInputs(inputs)
		var figs []plotFigure
		var err error
		switch kind {
		case plotKindServer:
			figs, err = plotServerFigures(inputs)
		case plotKindBench:
			figs, err = plotBenchFigures(inputs)
		case plotKindAES:
			figs, err = plotAESFigures(inputs)
		case plotKindTLS:
			figs, err = plotTLSFigures(inputs)
		}
		if err != nil {
			return written, err
		}
		for _, fig := range figs {
			path := filepath.Join(outDir, prefix+"-"+plotFileSafe(fig.name)+"-"+kind+".png")
			if err := fig.save(path); err != nil {
				return written, fmt.Errorf("plot: %s: %w", path, err)
			}
			written = append(written, path)
		}
	}
	return written, nil
}

// plotWriters names the commands whose JSON plot draws, for errors.
const plotWriters = "gpucrypto bench, bench aes, bench server or bench tls"

// readPlotInputs reads one file: a JSON document (--json, or bench
// server's --json-out), or JSON Lines (--json-out: a {"run": ...} line,
// then {"result": ...} lines; several runs appended to one file are one
// input each). It tells each input's kind from its rows' fields.
func readPlotInputs(path string) ([]*plotInput, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	var values []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("plot: %s: not JSON or JSON Lines: %w", path, err)
		}
		values = append(values, v)
	}
	var ins []*plotInput
	var lines map[string]json.RawMessage
	if len(values) == 1 && json.Unmarshal(values[0], &lines) == nil && lines["run"] == nil && lines["result"] == nil {
		// one document
		in := &plotInput{path: path}
		if err := unmarshalPlotRun(path, values[0], in); err != nil {
			return nil, err
		}
		ins = append(ins, in)
	} else {
		for i, v := range values {
			var line struct {
				Run    json.RawMessage `json:"run"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(v, &line); err != nil || (line.Run == nil && line.Result == nil) {
				return nil, fmt.Errorf("plot: %s: line %d is neither {\"run\": ...} nor {\"result\": ...} (not the JSON Lines of --json-out)", path, i+1)
			}
			if line.Run != nil {
				in := &plotInput{path: path}
				if err := unmarshalPlotRun(path, line.Run, in); err != nil {
					return nil, err
				}
				ins = append(ins, in)
			}
			if line.Result != nil {
				if len(ins) == 0 {
					return nil, fmt.Errorf("plot: %s: line %d: a result before the run's line", path, i+1)
				}
				in := ins[len(ins)-1]
				in.Results = append(in.Results, line.Result)
			}
		}
		if len(ins) > 1 {
			for i, in := range ins {
				in.path = fmt.Sprintf("%s#%d", path, i+1)
			}
		}
	}
	for _, in := range ins {
		if err := in.findKind(); err != nil {
			return nil, err
		}
	}
	return ins, nil
}

// unmarshalPlotRun reads a run (a document, or the first line of JSON
// Lines) into in.
func unmarshalPlotRun(path string, data []byte, in *plotInput) error {
	if err := json.Unmarshal(data, in); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			what := "the top level is " + typeErr.Value + ", not an object"
			if typeErr.Field != "" {
				what = typeErr.Field + " is " + typeErr.Value + ", not " + typeErr.Type.String()
			}
			return fmt.Errorf("plot: %s: not the JSON of %s (%s)", path, plotWriters, what)
		}
		return fmt.Errorf("plot: %s: not benchmark JSON: %w", path, err)
	}
	return nil
}

// findKind tells in's kind from the fields of its rows.
func (in *plotInput) findKind() error {
	if len(in.Results) == 0 {
		return fmt.Errorf("plot: %s: no results (not the JSON of %s, or a run stopped before its first row?)", in.path, plotWriters)
	}
	for i, raw := range in.Results {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return fmt.Errorf("plot: %s: results[%d]: %w", in.path, i, err)
		}
		has := func(names ...string) bool {
			for _, n := range names {
				if fields[n] != nil {
					return true
				}
			}
			return false
		}
		k := ""
		switch {
		case has("callers") && has("ops_per_s"):
			k = plotKindServer
		case has("batch") && has("gpu_kernel_ops_per_s", "gpu_end_to_end_ops_per_s", "cpu_ops_per_s"):
			k = plotKindBench
		case has("message_bytes") && has("gpu_end_to_end_bits_per_s"):
			k = plotKindAES
		case has("concurrency") && has("handshakes_per_s"):
			k = plotKindTLS
		case has("mismatches"):
			return fmt.Errorf("plot: %s: the JSON of gpucrypto burnin: counts of checked cases, nothing to plot", in.path)
		case has("passed"):
			return fmt.Errorf("plot: %s: the JSON of gpucrypto selftest: nothing to plot", in.path)
		default:
			return fmt.Errorf("plot: %s: results[%d] is none of what plot draws: callers and ops_per_s (bench server), batch and *_ops_per_s (bench), "+
				"message_bytes and *_bits_per_s (bench aes), concurrency and handshakes_per_s (bench tls)", in.path, i)
		}
		if in.what != "" && k != in.what {
			return fmt.Errorf("plot: %s: results mix %s and %s rows", in.path, in.what, k)
		}
		in.what = k
	}
	return nil
}

// plotLabelInputs names each input's lines: by commit where the commits tell
// the files apart, else by file name, else by path.
func plotLabelInputs(ins []*plotInput) {
	distinct := func(f func(*plotInput) string) bool {
		seen := map[string]bool{}
		for _, in := range ins {
			s := f(in)
			if s == "" || seen[s] {
				return false
			}
			seen[s] = true
		}
		return true
	}
	base := func(in *plotInput) string {
		return strings.TrimSuffix(filepath.Base(in.path), filepath.Ext(in.path))
	}
	var label func(*plotInput) string
	switch {
	case distinct(func(in *plotInput) string { return plotShortCommit(in.Commit) }):
		label = func(in *plotInput) string { return plotShortCommit(in.Commit) }
	case distinct(base):
		label = base
	default:
		label = func(in *plotInput) string { return in.path }
	}
	for _, in := range ins {
		in.label = label(in)
	}
}

// plotShortCommit shortens a commit hash to 7 digits, keeping "+dirty".
func plotShortCommit(c string) string {
	hash, rest, _ := strings.Cut(c, "+")
	if len(hash) > 7 {
		hash = hash[:7]
	}
	if rest != "" {
		return hash + "+" + rest
	}
	return hash
}

// plotTitle says which device and backend (and, for one file, which
// commit) the numbers come from.
func plotTitle(op string, ins []*plotInput) string {
	var devs, kinds, backends []string
	seen := map[string]bool{}
	for _, in := range ins {
		if in.Device != "" && !seen["d"+in.Device] {
			seen["d"+in.Device] = true
			devs = append(devs, in.Device)
			kinds = append(kinds, in.kind())
		}
		if in.Backend != "" && !seen["b"+in.Backend] {
			seen["b"+in.Backend] = true
			backends = append(backends, in.Backend)
		}
	}
	// a device that is not a GPU says what it is: with one device beside
	// the backend, with several after each name
	var notes []string
	if len(devs) == 1 && kinds[0] != "GPU" {
		notes = append(notes, kinds[0])
	} else {
		for i, k := range kinds {
			if k != "GPU" {
				devs[i] += " (" + k + ")"
			}
		}
	}
	if len(backends) > 0 {
		notes = append([]string{strings.Join(backends, " / ")}, notes...)
	}
	t := op
	if len(devs) > 0 {
		t += " on " + strings.Join(devs, " / ")
	}
	if len(notes) > 0 {
		t += " (" + strings.Join(notes, ", ") + ")"
	}
	if len(ins) == 1 && ins[0].Commit != "" {
		t += ", commit " + plotShortCommit(ins[0].Commit)
	}
	return t
}

// plotFigure is one PNG: a row of panels under one title.
type plotFigure struct {
	name   string // the op, in the file name
	title  string
	panels []*plot.Plot
	legend []string // the panels' legend entries, in order
}

// plotLegend is the names of series, for plotFigure.legend.
func plotLegend(series ...[]plotSeries) []string {
	var names []string
	for _, ss := range series {
		for _, s := range ss {
			names = append(names, s.name)
		}
	}
	return names
}

func (f plotFigure) save(path string) error {
	const dpi = 96
	panelW := vg.Length(8.5) * vg.Inch
	if len(f.panels) > 1 {
		panelW = vg.Length(6.5) * vg.Inch
	}
	w, h := panelW*vg.Length(len(f.panels)), vg.Length(5.4)*vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)

	title := plot.New().Title.TextStyle
	title.Font.Variant = "Sans"
	title.Font.Size = vg.Points(14)
	// a long device name (PoCL's include the CPU's) must not run off the
	// image: smaller type instead, down to 8 points
	if tw, room := title.Rectangle(f.title).Size().X, w-vg.Points(24); tw > room {
		title.Font.Size = max(vg.Points(8), title.Font.Size*room/tw)
	}
	dc.FillText(title, vg.Point{X: w / 2, Y: h - vg.Points(6)}, f.title)
	th := title.Rectangle(f.title).Size().Y + vg.Points(12)

	tiles := draw.Tiles{
		Rows: 1, Cols: len(f.panels),
		PadTop: th, PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12),
		PadX: vg.Points(24),
	}
	// the panels share their x axis, so plain tiles line up; plot.Align
	// leaves a wide empty margin on the right here
	for i, p := range f.panels {
		p.Draw(tiles.At(dc, i, 0))
	}
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(file); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// plotXY is one point of a line.
type plotXY struct{ x, y float64 }

// plotSeries is one line: its points, legend entry and style.
type plotSeries struct {
	name   string
	pts    []plotXY
	color  int // plotutil.Color index
	dashes int // plotutil.Dashes index
	shape  int // plotutil.Shape index
}

// newPlotLogPanel makes a panel with a log₂ x axis and a log₁₀ y axis and
// draws the series on it; points ≤ 0 (not measured) are left out.
func newPlotLogPanel(title, xlabel, ylabel string, yfmt func(float64) string, series []plotSeries) (*plot.Plot, error) {
	p := plot.New()
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant = "Sans"
	}
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Scale = plot.LogScale{}
	p.Y.Scale = plot.LogScale{}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.YOffs = -vg.Points(4)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.ThumbnailWidth = vg.Points(30)
	p.Legend.Padding = vg.Points(2)
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 215}
	grid.Horizontal.Color = color.Gray{Y: 215}
	p.Add(grid)

	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	xset := map[float64]bool{}
	for _, s := range series {
		var pts plotter.XYs
		for _, pt := range s.pts {
			if pt.x > 0 && pt.y > 0 && !math.IsInf(pt.y, 0) && !math.IsNaN(pt.y) {
				pts = append(pts, plotter.XY{X: pt.x, Y: pt.y})
				xmin, xmax = math.Min(xmin, pt.x), math.Max(xmax, pt.x)
				ymin, ymax = math.Min(ymin, pt.y), math.Max(ymax, pt.y)
				xset[pt.x] = true
			}
		}
		if len(pts) == 0 {
			continue
		}
		sort.SliceStable(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(s.color)
		line.Width = vg.Points(1.5)
		line.Dashes = plotutil.Dashes(s.dashes)
		points.Color = plotutil.Color(s.color)
		points.Shape = plotutil.Shape(s.shape)
		points.Radius = vg.Points(3)
		p.Add(line, points)
		if s.name != "" {
			p.Legend.Add(s.name, line, points)
		}
	}
	if len(xset) == 0 {
		return nil, fmt.Errorf("%s: no positive values to draw", title)
	}
	// explicit ranges: log scales panic on the defaults of an empty or
	// one-point axis
	p.X.Min, p.X.Max = xmin/1.25, xmax*1.25
	if ymin == ymax {
		ymin, ymax = ymin/2, ymax*2
	}
	p.Y.Min, p.Y.Max = ymin/1.3, ymax*1.6 // headroom for the legend
	p.X.Tick.Marker = plotLog2Ticks(xset)
	p.Y.Tick.Marker = plotLog10Ticks{format: yfmt}
	return p, nil
}

// plotLog2Ticks labels the x values measured, where they are few, else every
// power of two or every few; the other powers of two get minor ticks.
func plotLog2Ticks(xset map[float64]bool) plot.Ticker {
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		var xs []float64
		for x := range xset {
			xs = append(xs, x)
		}
		sort.Float64s(xs)
		var ticks []plot.Tick
		lo, hi := int(math.Floor(math.Log2(min))), int(math.Ceil(math.Log2(max)))
		labelled := map[float64]bool{}
		if len(xs) <= 10 {
			for _, x := range xs {
				labelled[x] = true
				ticks = append(ticks, plot.Tick{Value: x, Label: plotIntLabel(x)})
			}
		} else {
			step := (hi - lo + 10) / 10
			for e := lo; e <= hi; e++ {
				if v := math.Ldexp(1, e); e%step == 0 && v >= min && v <= max {
					labelled[v] = true
					ticks = append(ticks, plot.Tick{Value: v, Label: plotIntLabel(v)})
				}
			}
		}
		for e := lo; e <= hi; e++ {
			if v := math.Ldexp(1, e); !labelled[v] && v >= min && v <= max {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
		return ticks
	})
}

func plotIntLabel(v float64) string {
	if v >= 1<<20 && v == math.Round(v) && math.Log2(v) == math.Round(math.Log2(v)) {
		return fmt.Sprintf("2^%d", int(math.Log2(v)))
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// plotLog10Ticks puts major ticks on the decades, and where the axis spans
// too few of them for three labels, also on 2× and 5×, or on every 1..9×.
type plotLog10Ticks struct{ format func(float64) string }

func (t plotLog10Ticks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	inRange := func(mults []int) int {
		n := 0
		for e := lo; e <= hi; e++ {
			for _, m := range mults {
				if v := float64(m) * math.Pow10(e); v >= min && v <= max {
					n++
				}
			}
		}
		return n
	}
	labels := []int{1}
	for _, try := range [][]int{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		labels = try
		if inRange(try) >= 3 {
			break
		}
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow10(e)
			if v < min || v > max {
				continue
			}
			tick := plot.Tick{Value: v}
			for _, l := range labels {
				if l == m {
					tick.Label = t.format(v)
				}
			}
			ticks = append(ticks, tick)
		}
	}
	return ticks
}

// plotSILabel writes 1500 as 1.5k, 2e6 as 2M.
func plotSILabel(v float64) string {
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			return strconv.FormatFloat(v/u.div, 'g', 4, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func plotPlainLabel(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// plotFileSafe keeps an op name usable in a file name.
func plotFileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			return r
		}
		return '_'
	}, s)
}

// plotServerFigures draws, per op, ops/s and p50/p99 latency against the
// callers, one line per input file and, where results carry differing
// "devices", per number of GPUs.
func plotServerFigures(ins []*plotInput) ([]plotFigure, error) {
	type key struct {
		op      string
		in      int
		devices int
	}
	rows := map[key][]plotServerResult{}
	var ops []string
	seenOp := map[string]bool{}
	devSet := map[int]bool{}
	for i, in := range ins {
		for j, raw := range in.Results {
			var r plotServerResult
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, fmt.Errorf("plot: %s: results[%d]: %w", in.path, j, err)
			}
			if r.Callers == nil {
				return nil, fmt.Errorf("plot: %s: results[%d]: no callers", in.path, j)
			}
			dev := 1 // files from before the field measured one GPU
			if r.Devices != nil {
				dev = *r.Devices
			}
			devSet[dev] = true
			k := key{r.Op, i, dev}
			rows[k] = append(rows[k], r)
			if !seenOp[r.Op] {
				seenOp[r.Op] = true
				ops = append(ops, r.Op)
			}
		}
	}
	var devs []int
	for d := range devSet {
		devs = append(devs, d)
	}
	sort.Ints(devs)
	byDevices := len(devs) > 1

	var figs []plotFigure
	for _, op := range ops {
		var tput, lat []plotSeries
		n := 0
		for i, in := range ins {
			for _, dev := range devs {
				rs := rows[key{op, i, dev}]
				if len(rs) == 0 {
					continue
				}
				var name []string
				if len(ins) > 1 {
					name = append(name, in.label)
				}
				if byDevices {
					name = append(name, plotDeviceCount(dev, in.kind()))
				}
				var tp, p50, p99 []plotXY
				for _, r := range rs {
					x := float64(*r.Callers)
					tp = append(tp, plotXY{x, r.Ops})
					p50 = append(p50, plotXY{x, r.P50Ms})
					p99 = append(p99, plotXY{x, r.P99Ms})
				}
				label := strings.Join(name, ", ")
				tput = append(tput, plotSeries{name: label, pts: tp, color: n, shape: n})
				lat = append(lat,
					plotSeries{name: plotJoinLabel(label, "p50"), pts: p50, color: n, shape: n},
					plotSeries{name: plotJoinLabel(label, "p99"), pts: p99, color: n, dashes: 1, shape: n})
				n++
			}
		}
		pt, err := newPlotLogPanel("throughput", "concurrent callers", "ops/s", plotSILabel, tput)
		if err != nil {
			return nil, fmt.Errorf("plot: %s: %w", op, err)
		}
		pl, err := newPlotLogPanel("latency per call", "concurrent callers", "ms", plotPlainLabel, lat)
		if err != nil {
			return nil, fmt.Errorf("plot: %s: %w", op, err)
		}
		figs = append(figs, plotFigure{name: op, title: plotTitle(op+" server", ins), panels: []*plot.Plot{pt, pl}, legend: plotLegend(tput, lat)})
	}
	return figs, nil
}

// plotDeviceCount is "1 GPU", "2 GPUs", "1 CPU device", ...: kind as
// plotInput.kind says it.
func plotDeviceCount(n int, kind string) string {
	if n == 1 {
		return "1 " + kind
	}
	return fmt.Sprintf("%d %ss", n, kind)
}

func plotJoinLabel(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// plotHostCPULabel is the legend of the CPU figures of bench: Go's code
// on every core of the host, beside whatever the device is.
const plotHostCPULabel = "host CPU, Go (all cores)"

// plotBenchFigures draws, per op, kernel, end-to-end, pipelined and CPU ops/s
// against the batch size; with several input files the metrics keep their
// colour and the files get their own dash pattern and marker.
func plotBenchFigures(ins []*plotInput) ([]plotFigure, error) {
	parsed := make([][]plotBenchResult, len(ins))
	bits := map[string]map[int]bool{}
	binv := map[string]map[int]bool{}
	for i, in := range ins {
		for j, raw := range in.Results {
			var r plotBenchResult
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, fmt.Errorf("plot: %s: results[%d]: %w", in.path, j, err)
			}
			if r.Batch == nil {
				return nil, fmt.Errorf("plot: %s: results[%d]: no batch", in.path, j)
			}
			parsed[i] = append(parsed[i], r)
			if bits[r.Op] == nil {
				bits[r.Op], binv[r.Op] = map[int]bool{}, map[int]bool{}
			}
			bits[r.Op][r.Bits] = true
			binv[r.Op][r.BinvGroup] = true
		}
	}
	// an op measured at several sizes (arith, modexp) or, for the *-binv
	// ops, with several group sizes gets one plot per size
	name := func(r plotBenchResult) string {
		n := r.Op
		if len(bits[r.Op]) > 1 {
			n += "-" + strconv.Itoa(r.Bits)
		}
		if strings.HasSuffix(r.Op, "-binv") && len(binv[r.Op]) > 1 {
			n += "-k" + strconv.Itoa(r.BinvGroup)
		}
		return n
	}
	type key struct {
		name string
		in   int
	}
	rows := map[key][]plotBenchResult{}
	var names []string
	seen := map[string]bool{}
	for i := range ins {
		for _, r := range parsed[i] {
			n := name(r)
			rows[key{n, i}] = append(rows[key{n, i}], r)
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	// label: the device's metrics carry its kind (GPU, CPU device, ...);
	// the last, the Go code on the host's cores, is the same for all
	metrics := []struct {
		label func(kind string) string
		value func(plotBenchResult) float64
	}{
		{func(k string) string { return k + " kernel" }, func(r plotBenchResult) float64 { return r.KernelOps }},
		{func(k string) string { return k + " end-to-end" }, func(r plotBenchResult) float64 { return r.E2EOps }},
		{func(k string) string { return k + " pipelined" }, func(r plotBenchResult) float64 { return r.PipeOps }},
		{func(string) string { return plotHostCPULabel }, func(r plotBenchResult) float64 { return r.CPUOps }},
	}
	var figs []plotFigure
	for _, n := range names {
		var series []plotSeries
		for m, metric := range metrics {
			for i, in := range ins {
				var pts []plotXY
				for _, r := range rows[key{n, i}] {
					if v := metric.value(r); v > 0 {
						pts = append(pts, plotXY{float64(*r.Batch), v})
					}
				}
				if len(pts) == 0 {
					continue // e.g. no pipelined measurement
				}
				label := metric.label(in.kind())
				if len(ins) > 1 {
					label += " (" + in.label + ")"
				}
				series = append(series, plotSeries{name: label, pts: pts, color: m, dashes: i, shape: i})
			}
		}
		p, err := newPlotLogPanel("throughput against batch size", "batch size (operations per call)", "ops/s", plotSILabel, series)
		if err != nil {
			return nil, fmt.Errorf("plot: %s: %w", n, err)
		}
		figs = append(figs, plotFigure{name: n, title: plotTitle(n, ins), panels: []*plot.Plot{p}, legend: plotLegend(series)})
	}
	return figs, nil
}
