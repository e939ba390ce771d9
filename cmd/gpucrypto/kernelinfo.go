package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/gpucrypto/gpucrypto/cl"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// kernelPrograms are the kernel files and the kernels each defines.
var kernelPrograms = []struct {
	file    string
	kernels []string
}{
	{"x25519.cl", []string{"x25519", "x25519_base"}},
	{"x448.cl", []string{"x448", "x448_base"}},
	{"arith.cl", []string{"arith_mul_256", "arith_mul_1024", "arith_mul_4096", "arith_add_4096"}},
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
	for _, kp := range kernelPrograms {
		src, err := kernels.Source(kp.file)
		if err != nil {
			return err
		}
		p, err := d.Build(src, opts)
		if err != nil {
			return err
		}
		fmt.Printf("\n== %s\n", kp.file)
		for _, name := range kp.kernels {
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
