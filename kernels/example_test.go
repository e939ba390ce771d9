package kernels_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/gpucrypto/gpucrypto/kernels"
)

// A program's source as the compiler receives it: its #include lines
// resolved into one string, the same for either backend (OpenCL C or
// CUDA C) that builds it.
func ExampleSource() {
	src, err := kernels.Source("arith.cl", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Contains(src, "#include"), strings.Contains(src, "arith_mul_256"))
	// Output: false true
}
