package main

import (
	"encoding/json"
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
)

// plotAESResult holds the fields of aesResult (bench_aes.go) that the
// plots use.
type plotAESResult struct {
	Op         string  `json:"op"`
	Shape      string  `json:"shape"`
	KeyBits    int     `json:"key_bits"`
	Bytes      *int    `json:"message_bytes"`
	KernelBps  float64 `json:"gpu_kernel_bits_per_s"`
	E2EBps     float64 `json:"gpu_end_to_end_bits_per_s"`
	PipeBps    float64 `json:"gpu_pipelined_bits_per_s"`
	CPUCallBps float64 `json:"cpu_engine_call_bits_per_s"`
	AutoBps    float64 `json:"auto_end_to_end_bits_per_s"`
	CPUBps     float64 `json:"cpu_bits_per_s"`
}

// plotAESFigures draws, per mode, shape and key size, the kernel,
// end-to-end, pipelined, auto and CPU rates in Gbps against the message
// size; with several input files the metrics keep their colour and the
// files get their own dash pattern and marker.
func plotAESFigures(ins []*plotInput) ([]plotFigure, error) {
	type key struct {
		name string
		in   int
	}
	rows := map[key][]plotAESResult{}
	var names []string
	seen := map[string]bool{}
	for i, in := range ins {
		for j, raw := range in.Results {
			var r plotAESResult
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, fmt.Errorf("plot: %s: results[%d]: %w", in.path, j, err)
			}
			if r.Bytes == nil {
				return nil, fmt.Errorf("plot: %s: results[%d]: no message_bytes", in.path, j)
			}
			n := r.Op + "-" + r.Shape + "-" + strconv.Itoa(r.KeyBits)
			rows[key{n, i}] = append(rows[key{n, i}], r)
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	gbps := func(v float64) float64 { return v / 1e9 }
	metrics := []struct {
		label func(kind string) string
		value func(plotAESResult) float64
	}{
		{func(k string) string { return k + " kernel" }, func(r plotAESResult) float64 { return gbps(r.KernelBps) }},
		{func(k string) string { return k + " end-to-end" }, func(r plotAESResult) float64 { return gbps(r.E2EBps) }},
		{func(k string) string { return k + " pipelined" }, func(r plotAESResult) float64 { return gbps(r.PipeBps) }},
		{func(string) string { return "auto (device or CPU per call)" }, func(r plotAESResult) float64 { return gbps(r.AutoBps) }},
		{func(string) string { return "CPU engine, same call" }, func(r plotAESResult) float64 { return gbps(r.CPUCallBps) }},
		{func(string) string { return plotHostCPULabel }, func(r plotAESResult) float64 { return gbps(r.CPUBps) }},
	}
	var figs []plotFigure
	for _, n := range names {
		var series []plotSeries
		for m, metric := range metrics {
			for i, in := range ins {
				var pts []plotXY
				for _, r := range rows[key{n, i}] {
					if v := metric.value(r); v > 0 {
						pts = append(pts, plotXY{float64(*r.Bytes), v})
					}
				}
				if len(pts) == 0 {
					continue
				}
				label := metric.label(in.kind())
				if len(ins) > 1 {
					label += " (" + in.label + ")"
				}
				series = append(series, plotSeries{name: label, pts: pts, color: m, dashes: i, shape: i})
			}
		}
		p, err := newPlotLogPanel("throughput against message size", "message bytes", "Gbps", plotPlainLabel, series)
		if err != nil {
			return nil, fmt.Errorf("plot: %s: %w", n, err)
		}
		figs = append(figs, plotFigure{name: n, title: plotTitle("aes "+n, ins), panels: []*plot.Plot{p}, legend: plotLegend(series)})
	}
	return figs, nil
}
