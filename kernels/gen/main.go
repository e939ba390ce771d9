// Command gen writes the unrolled fixed-width limb kernels of the kernel
// tree (arith_gen.h). Run it with `go generate ./kernels`; never edit the
// output by hand. A test in package kernels fails when the file is stale.
package main

import (
	"fmt"
	"os"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

func main() {
	out := "arith_gen.h"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	if err := os.WriteFile(out, []byte(generate.Arith()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
