// Command lists prints the Makefile's lists of the algorithms' packages
// and fuzz targets from the registry (package registry), so that an
// algorithm is registered in one place:
//
//	go run ./internal/registry/lists packages      ./arith ./rsa ...
//	go run ./internal/registry/lists fuzz-targets  rsa:FuzzDecryptOAEP ...
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/gpucrypto/gpucrypto/internal/registry"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: lists packages|fuzz-targets")
		os.Exit(2)
	}
	var out []string
	switch os.Args[1] {
	case "packages":
		for _, a := range registry.All {
			out = append(out, "./"+a.Name)
		}
	case "fuzz-targets":
		for _, a := range registry.All {
			for _, f := range a.Fuzz {
				out = append(out, a.Name+":"+f)
			}
		}
	default:
		fmt.Fprintf(os.Stderr, "lists: unknown list %q (have packages, fuzz-targets)\n", os.Args[1])
		os.Exit(2)
	}
	fmt.Println(strings.Join(out, " "))
}
