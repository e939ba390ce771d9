package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/cl"
	"github.com/gpucrypto/gpucrypto/kernels"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// kernelPrograms are the kernel files and the kernels each defines.
var kernelPrograms = []struct {
	file    string
	kernels []string
}{
	{"x25519.cl", []string{"x25519", "x25519_base", "x25519_base_comb", "x25519_xz", "x25519_base_comb_xz", "x25519_invert_batch"}},
	{"x448.cl", []string{"x448", "x448_base", "x448_base_comb", "x448_xz", "x448_base_comb_xz", "x448_invert_batch"}},
	{"arith.cl", []string{"arith_mul_256", "arith_mul_1024", "arith_mul_4096", "arith_add_4096"}},
}

// modexpConfigs are the modexp builds kernelinfo reports on: the default
// configuration at every modulus width (and one thread per number where
// the default is the multi-thread form), every variant and form at 1024
// bits, and the fp64 variant at each of its widths (with and without its
// squaring at 1024 bits).
func modexpConfigs(d *cl.Device) []arith.Mont {
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

// cmdKernelInfo prints what the compiler reports about each kernel:
// registers and spills (NVIDIA, -cl-nv-verbose) and private memory.
func cmdKernelInfo(args []string) error {
	fs := flag.NewFlagSet("kernelinfo", flag.ExitOnError)
	devSpec := fs.String("device", "", "device index or name substring")
	fs.Parse(args)
	d, err := pickDevice(*devSpec)
	if err != nil {
		return err
	}
	opts := cl.BuildOptions{}
	if d.Class == cl.VendorNVIDIA {
		opts.Flags = []string{"-cl-nv-verbose"}
	}
	fmt.Printf("kernel info on %s (inline PTX: %v)\n", d, d.InlinePTX())
	type build struct {
		file, title string
		kernels     []string
		defines     map[string]string
	}
	var builds []build
	for _, kp := range kernelPrograms {
		builds = append(builds, build{kp.file, kp.file, kp.kernels, nil})
	}
	for _, m := range modexpConfigs(d) {
		if m.Buildable(d) != nil { // not built on this device (no fp64; see Mont.Buildable)
			continue
		}
		builds = append(builds, build{m.KernelFile(), fmt.Sprintf("%s %d-bit %s", m.KernelFile(), 32*m.N, m), []string{"modexp"}, m.Defines()})
	}
	for _, bits := range []int{2048, 4096} {
		defs, desc, err := rsa.KernelBuild(bits)
		if err != nil {
			return err
		}
		builds = append(builds, build{"rsa.cl", "rsa.cl " + desc, []string{"rsa_split", "rsa_combine", "rsa_public"}, defs})
	}
	for _, kb := range builds {
		src, err := kernels.Source(kb.file)
		if err != nil {
			return err
		}
		o := opts
		o.Defines = kb.defines
		p, err := d.Build(src, o)
		if err != nil {
			return err
		}
		fmt.Printf("\n== %s\n", kb.title)
		for _, name := range kb.kernels {
			k, err := p.Kernel(name)
			if err != nil {
				return err
			}
			wg, priv, err := k.WorkGroupInfo()
			if err != nil {
				return err
			}
			fmt.Printf("%-16s max work-group %4d, private memory %d bytes/work-item\n", name, wg, priv)
		}
		for _, line := range strings.Split(p.BuildLog(), "\n") {
			if strings.Contains(line, "ptxas") || strings.Contains(line, "registers") || strings.Contains(line, "spill") {
				fmt.Println("  " + strings.TrimSpace(line))
			}
		}
	}
	return nil
}
