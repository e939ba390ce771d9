package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"gonum.org/v1/plot"
)

// plotTLSResult holds the fields of tlsResult (bench_tls.go) and
// deployedResult (bench_tls_deployed.go) that the plots use.
type plotTLSResult struct {
	Version     string   `json:"version"`
	Key         string   `json:"key"`
	Concurrency int      `json:"concurrency"`
	Rate        float64  `json:"handshakes_per_s"`
	P50Ms       float64  `json:"p50_ms"`
	P99Ms       float64  `json:"p99_ms"`
	ServerCPUMs *float64 `json:"server_cpu_ms_per_handshake"` // --deployed rows only
}

// plotTLSFigures draws, per TLS version (and --deployed apart),
// handshakes per second and p50/p99 latency against the concurrency, one
// line per certificate key and input file.
func plotTLSFigures(ins []*plotInput) ([]plotFigure, error) {
	type key struct {
		name string
		in   int
		key  string
	}
	rows := map[key][]plotTLSResult{}
	var names, keys []string
	seen := map[string]bool{}
	for i, in := range ins {
		for j, raw := range in.Results {
			var r plotTLSResult
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, fmt.Errorf("plot: %s: results[%d]: %w", in.path, j, err)
			}
			n := "tls" + r.Version
			if r.ServerCPUMs != nil {
				n += "-deployed"
			}
			rows[key{n, i, r.Key}] = append(rows[key{n, i, r.Key}], r)
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
			if !seen["key "+r.Key] {
				seen["key "+r.Key] = true
				keys = append(keys, r.Key)
			}
		}
	}
	var figs []plotFigure
	for _, n := range names {
		var tput, lat []plotSeries
		c := 0
		for i, in := range ins {
			for _, k := range keys {
				rs := rows[key{n, i, k}]
				if len(rs) == 0 {
					continue
				}
				name := []string{k + " key"}
				if len(ins) > 1 {
					name = append(name, in.label)
				}
				var tp, p50, p99 []plotXY
				for _, r := range rs {
					x := float64(r.Concurrency)
					tp = append(tp, plotXY{x, r.Rate})
					p50 = append(p50, plotXY{x, r.P50Ms})
					p99 = append(p99, plotXY{x, r.P99Ms})
				}
				label := strings.Join(name, ", ")
				tput = append(tput, plotSeries{name: label, pts: tp, color: c, shape: c})
				lat = append(lat,
					plotSeries{name: plotJoinLabel(label, "p50"), pts: p50, color: c, shape: c},
					plotSeries{name: plotJoinLabel(label, "p99"), pts: p99, color: c, dashes: 1, shape: c})
				c++
			}
		}
		pt, err := newPlotLogPanel("throughput", "concurrent handshakes", "handshakes/s", plotSILabel, tput)
		if err != nil {
			return nil, fmt.Errorf("plot: %s: %w", n, err)
		}
		pl, err := newPlotLogPanel("latency per handshake", "concurrent handshakes", "ms", plotPlainLabel, lat)
		if err != nil {
			return nil, fmt.Errorf("plot: %s: %w", n, err)
		}
		figs = append(figs, plotFigure{name: n, title: plotTitle(strings.Replace(n, "tls", "TLS ", 1), ins), panels: []*plot.Plot{pt, pl}, legend: plotLegend(tput, lat)})
	}
	return figs, nil
}
