package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/kernels"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// kernelPrograms are the kernel files, the kernels each defines and the
// defines its engine builds it with on a device (nil: none).
var kernelPrograms = []struct {
	file    string
	kernels []string
	defines func(*device.Device) map[string]string
}{
	{"x25519.cl", []string{"x25519", "x25519_base_comb", "x25519_xz", "x25519_base_comb_xz", "x25519_invert_batch"}, curveDefines(ecdh.X25519())},
	{"x448.cl", []string{"x448", "x448_base_comb", "x448_xz", "x448_base_comb_xz", "x448_invert_batch"}, curveDefines(ecdh.X448())},
	{"ed25519.cl", []string{"ed25519_public", "ed25519_sign", "ed25519_verify"}, ed25519.ProgramDefines},
	{"ecdsa.cl", []string{"ecdsa_p256_verify_scalars", "ecdsa_p256_verify", "ecdsa_p256_sign_point", "ecdsa_p256_sign_finish", "ecdsa_p256_sign_check"}, nil},
	{"p256_ecdh.cl", []string{"ecdh_p256_shared_point", "ecdh_p256_public_point", "ecdh_p256_finish"}, nil},
	{"arith.cl", []string{"arith_mul_256", "arith_mul_1024", "arith_mul_4096", "arith_add_4096"}, nil},
}

// curveDefines are the defines of c's program on a device (ecdh.ProgramDefines).
func curveDefines(c ecdh.Curve) func(*device.Device) map[string]string {
	return func(d *device.Device) map[string]string { return ecdh.ProgramDefines(d, c) }
}

// buildKey identifies a program build: its file, defines and kernels.
// Builds with the same key would print the same rows (the default modexp
// configuration may also be one of the variants listed, or the
// one-thread form where that is the default), so kernelinfo keeps the
// first.
func buildKey(src device.Source, kernels []string) string {
	// fmt prints a map's keys in sorted order
	return fmt.Sprintf("%s %v %v", src.Name, src.Defines, kernels)
}

// modexpConfigs are the modexp builds kernelinfo reports on: the default
// configuration at every modulus width (and one thread per number where
// the default is the multi-thread form), every variant and form at 1024
// bits, and the fp64 variant at each of its widths (with and without its
// squaring at 1024 bits).
func modexpConfigs(d *device.Device) []arith.Mont {
	var out []arith.Mont
	for _, n := range arith.ModLimbs() {
		if m, err := (arith.MontConfig{}).ResolveFor(d, n, 0); err == nil {
			out = append(out, m)
		}
		if n >= 48 { // one thread per number, where the default has several
			if m, err := (arith.MontConfig{Threads: 1}).Resolve(n); err == nil {
				out = append(out, m)
			}
		}
	}
	for _, v := range arith.Variants {
		for _, fs := range []bool{false, true} {
			for _, sqr := range []int{1, -1} {
				form := arith.NoFinalSub
				if fs {
					form = arith.FinalSub
				}
				m, err := arith.MontConfig{Variant: v, Form: form, Sqr: sqr}.Resolve(32)
				if err == nil && m != out[1] {
					out = append(out, m)
				}
			}
		}
	}
	for _, n := range arith.FP64Limbs() {
		if m, err := (arith.MontConfig{Variant: arith.FP64}).Resolve(n); err == nil {
			out = append(out, m)
		}
	}
	if m, err := (arith.MontConfig{Variant: arith.FP64, Sqr: -1}).Resolve(32); err == nil {
		out = append(out, m)
	}
	return out
}

// kernelBuild is one program kernelinfo builds, and the kernels it reports.
type kernelBuild struct {
	title   string
	kernels []string
	src     device.Source
}

// kernelInfoBuilds are the programs kernelinfo builds on d, each once: the
// curves (X25519, X448, Ed25519), arith, the modexp configurations, RSA's
// programs and the two AES programs. aesErr says why the AES programs are
// missing (they cannot run on d: too little local memory for the tables,
// say).
func kernelInfoBuilds(d *device.Device) (builds []kernelBuild, aesErr error, err error) {
	for _, kp := range kernelPrograms {
		var defines map[string]string
		if kp.defines != nil {
			defines = kp.defines(d)
		}
		builds = append(builds, kernelBuild{kp.file, kp.kernels, kernels.Program(kp.file, defines)})
	}
	for _, m := range modexpConfigs(d) {
		src, err := m.Source(d, m.KernelFile(), nil)
		if err != nil { // not built on this device (no fp64; see Mont.Buildable)
			continue
		}
		builds = append(builds, kernelBuild{fmt.Sprintf("%s %d-bit %s", m.KernelFile(), 32*m.N, m), []string{"modexp"}, src})
	}
	for _, bits := range []int{2048, 4096} {
		pbs, err := rsa.KernelBuilds(bits)
		if err != nil {
			return nil, nil, err
		}
		for _, pb := range pbs {
			builds = append(builds, kernelBuild{pb.File + " " + pb.Desc, pb.Kernels, kernels.Program(pb.File, pb.Defines)})
		}
	}
	// the programs an engine would build (on a CPU device too, which
	// aes.NewEngine refuses: compiling them computes nothing with a key)
	pbs, aesErr := aes.KernelBuilds(d, aes.Config{})
	for _, pb := range pbs {
		builds = append(builds, kernelBuild{pb.Source.Name + " " + pb.Desc, pb.Kernels, pb.Source})
	}
	seen := map[string]bool{}
	builds = slices.DeleteFunc(builds, func(b kernelBuild) bool {
		k := buildKey(b.src, b.kernels)
		dup := seen[k]
		seen[k] = true
		return dup
	})
	return builds, aesErr, nil
}

// cmdKernelInfo builds every kind of program and prints how long that took
// (GPUCRYPTO_NO_CACHE=1: cold builds) and what the compiler reports about
// each kernel: registers (CUDA; on NVIDIA's OpenCL from its verbose build
// log), private memory (spills) and the largest work-group.
func cmdKernelInfo(args []string) error {
	fs := flag.NewFlagSet("kernelinfo", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	parseFlags(fs, args)
	if fs.NArg() > 0 {
		return fmt.Errorf("kernelinfo: unexpected arguments %q", fs.Args())
	}
	d, err := pickDevice()
	if err != nil {
		return err
	}
	var flags []string
	if d.Backend == "opencl" && d.Class == device.VendorNVIDIA {
		flags = []string{"-cl-nv-verbose"}
	}
	fmt.Printf("kernel info on %s (inline PTX: %v)\n", d, d.CarryChains)
	builds, aesErr, err := kernelInfoBuilds(d)
	if err != nil {
		return err
	}
	for _, kb := range builds {
		kb.src.Flags = flags
		start := time.Now()
		p, err := d.Build(kb.src)
		if err != nil {
			return err
		}
		fmt.Printf("\n== %s (%d bytes of source; built in %.0f ms, disk cache %s)\n", kb.title, len(p.Text), float64(time.Since(start).Microseconds())/1000, p.Cache)
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
	if aesErr != nil {
		fmt.Printf("\n== aes.cl, aes_modes.cl: not built on this device: %v\n", aesErr)
	}
	return nil
}
