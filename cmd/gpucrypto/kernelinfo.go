package main

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/registry"
)

// buildKey identifies a program build: its file, defines and kernels.
// Builds with the same key would print the same rows (the default modexp
// configuration may also be one of the variants listed, or the
// one-thread form where that is the default), so kernelinfo keeps the
// first.
func buildKey(src device.Source, kernels []string) string {
	// fmt prints a map's keys in sorted order
	return fmt.Sprintf("%s %v %v", src.Name, src.Defines, kernels)
}

// kernelBuild is one program kernelinfo builds, and the kernels it reports.
type kernelBuild struct {
	title   string
	kernels []string
	src     device.Source
}

// kernelInfoBuilds are the programs kernelinfo builds on d, each once:
// every algorithm's in the registry (internal/registry). skipped says why
// an algorithm's programs are missing (the AES programs on a device with
// too little local memory for the tables, say).
func kernelInfoBuilds(d *device.Device) (builds []kernelBuild, skipped []error, err error) {
	for _, a := range registry.All {
		programs, perr := a.Programs(d)
		if perr != nil {
			skipped = append(skipped, fmt.Errorf("%s: %w", a.Name, perr))
		}
		for _, p := range programs {
			builds = append(builds, kernelBuild{p.Title, p.Kernels, p.Source})
		}
	}
	seen := map[string]bool{}
	builds = slices.DeleteFunc(builds, func(b kernelBuild) bool {
		k := buildKey(b.src, b.kernels)
		dup := seen[k]
		seen[k] = true
		return dup
	})
	return builds, skipped, nil
}

// builtProgram is one kernelBuild's outcome: its program or error, and
// how long its build took.
type builtProgram struct {
	prog *device.Program
	err  error
	took time.Duration
}

// buildersAtOnce is how many programs buildAll builds at once: one a
// core, since a compiler builds a program on one thread (where the
// driver serializes its compiler, device.Build does, and they queue).
func buildersAtOnce() int { return runtime.GOMAXPROCS(0) }

// buildAll builds every one of builds on d, buildersAtOnce of them at
// once, in the registry's order.
func buildAll(d *device.Device, builds []kernelBuild) []builtProgram {
	out := make([]builtProgram, len(builds))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(buildersAtOnce(), len(builds)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				p, err := d.Build(builds[i].src)
				out[i] = builtProgram{p, err, time.Since(start)}
			}
		}()
	}
	for i := range builds {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// cmdKernelInfo builds every kind of program and prints how long that took
// (GPUCRYPTO_NO_CACHE=1: cold builds) and what the compiler reports about
// each kernel: registers (CUDA; on NVIDIA's OpenCL from its verbose build
// log), private memory (spills) and the largest work-group.
func cmdKernelInfo(args []string) error {
	fs := flag.NewFlagSet("kernelinfo", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	ahead := fs.String("compute-capability", "", "build for CUDA GPUs of this compute capability (9.0, say) with NVRTC alone, no GPU needed, instead of on a device: the kernel cache (GPUCRYPTO_CACHE_DIR) then serves those GPUs, so that a container image built with it starts without compiling (needs a CLI built with -tags cuda, and the NVRTC the image runs)")
	parseFlags(fs, args)
	if fs.NArg() > 0 {
		return fmt.Errorf("kernelinfo: unexpected arguments %q", fs.Args())
	}
	var d *device.Device
	var err error
	if *ahead != "" {
		d, err = device.CUDACompiler(*ahead)
		if err != nil {
			return fmt.Errorf("kernelinfo: --compute-capability %s: %w", *ahead, err)
		}
		if dir := device.CacheDir(); dir != "" {
			fmt.Printf("kernel cache: %s\n", dir)
		} else {
			fmt.Println("kernel cache: off (GPUCRYPTO_NO_CACHE=1): nothing is kept for the GPUs")
		}
	} else if d, err = pickDevice(); err != nil {
		return err
	}
	var flags []string
	if d.Backend == "opencl" && d.Class == device.VendorNVIDIA {
		flags = []string{"-cl-nv-verbose"}
	}
	fmt.Printf("kernel info on %s (inline PTX: %v)\n", d, d.CarryChains)
	builds, skipped, err := kernelInfoBuilds(d)
	if err != nil {
		return err
	}
	for i := range builds {
		builds[i].src.Flags = flags
	}
	start := time.Now()
	built := buildAll(d, builds)
	for i, kb := range builds {
		b := built[i]
		if b.err != nil {
			return b.err
		}
		p := b.prog
		fmt.Printf("\n== %s (%d bytes of source; built in %.0f ms, disk cache %s)\n", kb.title, len(p.Text), float64(b.took.Microseconds())/1000, p.Cache)
		for _, name := range kb.kernels {
			k, err := p.Kernel(name)
			if err != nil {
				return err
			}
			info, err := k.Info()
			if err != nil {
				return err
			}
			regs := "?"
			if info.Registers > 0 {
				regs = fmt.Sprint(info.Registers)
			}
			fmt.Printf("%-20s registers %3s, private memory %d bytes/work-item, max work-group %4d\n", name, regs, info.PrivateBytes, info.MaxGroup)
		}
		for _, line := range strings.Split(p.BuildLog(), "\n") {
			if strings.Contains(line, "ptxas") || strings.Contains(line, "registers") || strings.Contains(line, "spill") {
				fmt.Println("  " + strings.TrimSpace(line))
			}
		}
	}
	fmt.Printf("\n%d programs built in %.1f s (at most %d at once)\n", len(builds), time.Since(start).Seconds(), buildersAtOnce())
	for _, err := range skipped {
		fmt.Printf("\n== not built on this device: %v\n", err)
	}
	return nil
}
