package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/gpucrypto/gpucrypto/cl"
)

type deviceRow struct {
	Index        int      `json:"index"`
	Platform     string   `json:"platform"`
	Name         string   `json:"name"`
	Type         string   `json:"type"`
	Class        string   `json:"class"`
	Vendor       string   `json:"vendor"`
	Driver       string   `json:"driver"`
	Version      string   `json:"version"`
	CVersion     string   `json:"opencl_c"`
	ComputeUnits uint32   `json:"compute_units"`
	ClockMHz     uint32   `json:"clock_mhz"`
	GlobalMem    uint64   `json:"global_mem"`
	LocalMem     uint64   `json:"local_mem"`
	MaxAlloc     uint64   `json:"max_alloc"`
	MaxWorkGroup int      `json:"max_work_group"`
	FP64         bool     `json:"fp64"`
	Subgroups    bool     `json:"subgroups"`
	InlinePTX    bool     `json:"inline_ptx"`
	ComputeCap   string   `json:"compute_capability,omitempty"`
	Default      bool     `json:"default"`
	Extensions   []string `json:"extensions"`
}

func cmdDevices(args []string) error {
	fs := flag.NewFlagSet("devices", flag.ExitOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	ext := fs.Bool("ext", false, "also list each device's extensions")
	fs.Parse(args)

	devs, err := cl.Devices()
	hint := cl.ICDHint()
	if err != nil {
		if *asJSON {
			printJSON(map[string]any{"devices": []deviceRow{}, "error": err.Error(), "hint": hint})
		} else if hint != "" {
			fmt.Fprintln(os.Stderr, hint)
		}
		return err
	}
	def, _ := cl.Default()
	var rows []deviceRow
	for _, d := range devs {
		rows = append(rows, deviceRow{
			Index: d.Index, Platform: d.Platform, Name: d.Name, Type: d.TypeName(), Class: d.Class.String(),
			Vendor: d.Vendor, Driver: d.DriverVersion, Version: d.Version, CVersion: d.CVersion,
			ComputeUnits: d.ComputeUnits, ClockMHz: d.ClockMHz, GlobalMem: d.GlobalMem, LocalMem: d.LocalMem,
			MaxAlloc: d.MaxAlloc, MaxWorkGroup: d.MaxWorkGroup, FP64: d.FP64, Subgroups: d.Subgroups,
			InlinePTX: d.InlinePTX(), ComputeCap: d.ComputeCap, Default: d == def, Extensions: d.Extensions,
		})
	}
	if *asJSON {
		return printJSON(map[string]any{"devices": rows, "hint": hint})
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tPLATFORM\tDEVICE\tTYPE\tCU\tMHZ\tGLOBAL\tLOCAL\tMAX WG\tFP64\tSUBGROUPS\tPTX\tDRIVER")
	for _, r := range rows {
		mark := " "
		if r.Default {
			mark = "*"
		}
		fmt.Fprintf(tw, "%d%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Index, mark, r.Platform, r.Name, r.Type,
			r.ComputeUnits, r.ClockMHz, bytesHuman(r.GlobalMem), bytesHuman(r.LocalMem), r.MaxWorkGroup,
			yes(r.FP64), yes(r.Subgroups), yes(r.InlinePTX), r.Driver)
	}
	tw.Flush()
	fmt.Println("* default device (override with --device or GPUCRYPTO_DEVICE)")
	if *ext {
		for _, r := range rows {
			fmt.Printf("\n#%d %s extensions:\n  %s\n", r.Index, r.Name, strings.Join(r.Extensions, "\n  "))
		}
	}
	if hint != "" {
		fmt.Println()
		fmt.Println(hint)
	}
	return nil
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
