package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/gpucrypto/gpucrypto/device"
)

type deviceRow struct {
	Index        int    `json:"index"`
	Backend      string `json:"backend"`
	Platform     string `json:"platform"`
	Name         string `json:"name"`
	Type         string `json:"type"`
	Class        string `json:"class"`
	Vendor       string `json:"vendor"`
	Driver       string `json:"driver"`
	Version      string `json:"version"`
	Compiler     string `json:"compiler"`
	ComputeUnits uint32 `json:"compute_units"`
	ClockMHz     uint32 `json:"clock_mhz"`
	GlobalMem    uint64 `json:"global_mem"`
	SharedMem    uint64 `json:"shared_mem"`
	MaxSharedMem uint64 `json:"max_shared_mem"`
	MaxAlloc     uint64 `json:"max_alloc"`
	MaxWorkGroup int    `json:"max_work_group"`
	FP64         bool   `json:"fp64"`
	FastFP64     bool   `json:"fast_fp64"`
	Shuffles     bool   `json:"shuffles"`
	InlinePTX    bool   `json:"inline_ptx"`
	ComputeCap   string `json:"compute_capability,omitempty"`
	Default      bool   `json:"default"`
}

func cmdDevices(args []string) error { return devices(args, os.Stdout, os.Stderr) }

// devices runs the command: the list on stdout, a hint on stderr where
// no device was found. The device marked default is the one Auto computes
// on and device.Default returns (device.Choose's); where that is the CPU
// engine, no device is marked and a line says why.
func devices(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("devices", flag.ExitOnError)
	fs.SetOutput(stderr)
	asJSON, writeJSONDoc := jsonDocumentFlagsTo(fs, stdout)
	backend := fs.String("backend", "", "list only this driver's devices: opencl or cuda (default: GPUCRYPTO_BACKEND, else every driver built in)")
	parseFlags(fs, args)
	if fs.NArg() > 0 {
		return fmt.Errorf("devices: unexpected arguments %q", fs.Args())
	}
	if err := setBackend(*backend); err != nil {
		return err
	}

	devs, err := device.Devices()
	hint := device.Hint()
	if err != nil {
		if jerr := writeJSONDoc(map[string]any{"devices": []deviceRow{}, "error": err.Error(), "hint": hint}); jerr != nil {
			return jerr
		}
		if !*asJSON && hint != "" {
			fmt.Fprintln(stderr, hint)
		}
		return err
	}
	choice := device.Choose()
	var rows []deviceRow
	for _, d := range devs {
		rows = append(rows, deviceRow{
			Index: d.Index, Backend: d.Backend, Platform: d.Platform, Name: d.Name, Type: d.TypeName(), Class: d.Class.String(),
			Vendor: d.Vendor, Driver: d.DriverVersion, Version: d.Runtime, Compiler: d.Compiler,
			ComputeUnits: uint32(d.ComputeUnits), ClockMHz: uint32(d.ClockMHz), GlobalMem: d.GlobalMem,
			SharedMem: d.SharedMem, MaxSharedMem: d.MaxSharedMem,
			MaxAlloc: d.MaxAlloc, MaxWorkGroup: d.MaxGroup, FP64: d.FP64, FastFP64: d.FastFP64, Shuffles: d.Shuffles,
			InlinePTX: d.CarryChains, ComputeCap: d.ComputeCapability, Default: d == choice.Device,
		})
	}
	var notUsed []string
	for _, e := range device.DriverErrors() {
		notUsed = append(notUsed, e.Error())
	}
	if err := writeJSONDoc(map[string]any{"devices": rows, "choice": choice.String(), "hint": hint, "not_used": notUsed}); err != nil || *asJSON {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tBACKEND\tPLATFORM\tDEVICE\tTYPE\tCU\tMHZ\tGLOBAL\tSHARED\tMAX WG\tFP64\tPTX\tDRIVER")
	for _, r := range rows {
		mark := " "
		if r.Default {
			mark = "*"
		}
		fmt.Fprintf(tw, "%d%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%d\t%s\t%s\t%s\n", r.Index, mark, r.Backend, r.Platform, r.Name, r.Type,
			r.ComputeUnits, r.ClockMHz, bytesHuman(r.GlobalMem), bytesHuman(r.MaxSharedMem), r.MaxWorkGroup,
			fp64Column(r), yes(r.InlinePTX), r.Driver)
	}
	tw.Flush()
	fmt.Fprintln(stdout, defaultLine(choice))
	fmt.Fprintf(stdout, "backends built in: %s\n", strings.Join(device.Backends(), ", "))
	for _, e := range device.DriverErrors() {
		fmt.Fprintf(stdout, "\nnot used: %v\n", e)
	}
	if hint != "" {
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, hint)
	}
	return nil
}

// defaultLine says which device is marked default and why, or why none
// is and what runs where instead.
func defaultLine(choice device.Choice) string {
	if choice.Device != nil {
		return fmt.Sprintf("* default device, the one Auto and NewEngine(nil) compute on: %s (override with --device or %s)", choice.Reason, device.EnvDevice)
	}
	line := "no default device: " + choice.Reason + "; Auto computes on the CPU engine and NewEngine(nil) fails"
	if d, err := device.Any(); err == nil {
		line += fmt.Sprintf("; selftest, bench, burnin and kernelinfo run on #%d all the same (--device or %s names another)", d.Index, device.EnvDevice)
	}
	return line
}

// printJSONTo writes v to w as indented JSON.
func printJSONTo(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func bytesHuman(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%d KiB", n>>10)
	}
}

// fp64Column is the FP64 column: "yes, fast" where double precision runs
// at half the single-precision rate (the RSA kernels then use it).
func fp64Column(r deviceRow) string {
	if r.FastFP64 {
		return "yes, fast"
	}
	return yes(r.FP64)
}
