// Command gen writes the unrolled fixed-width limb code of the kernel tree
// (arith_gen.h, field_gen.h). Run it with `go generate ./kernels`; never
// edit the output by hand. A test in package kernels fails when a file is
// stale.
package main

import (
	"fmt"
	"os"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

func main() {
	for name, text := range generate.Files() {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
