// Command gpucrypto lists OpenCL devices, checks them with known-answer
// tests and benchmarks gpucrypto's kernels against the CPU.
//
//	gpucrypto devices [--json]
//	gpucrypto selftest [--device SPEC] [--json]
//	gpucrypto bench [arith|ecdh|rsa] [--device SPEC] [--ops add,...,x25519,modexp,rsa2048] [--bits 256,...] [--batch N,...] [--seconds S] [--json]
//	gpucrypto kernelinfo [--device SPEC]
//
// --device takes an index or a name substring (as GPUCRYPTO_DEVICE does).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/gpucrypto/gpucrypto/cl"
)

const usage = `usage: gpucrypto <command> [flags]

commands:
  devices    list every OpenCL device and its features
  selftest   run known-answer tests on the chosen device (exit 1 on failure)
  bench      measure throughput on the chosen device and on all CPU cores
  kernelinfo compiler facts per kernel: registers, spills, private memory

Run "gpucrypto <command> -h" for a command's flags. GPUCRYPTO_DEVICE picks
the default device (index or name substring).
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "devices":
		err = cmdDevices(os.Args[2:])
	case "selftest":
		err = cmdSelftest(os.Args[2:])
	case "bench":
		err = cmdBench(os.Args[2:])
	case "kernelinfo":
		err = cmdKernelInfo(os.Args[2:])
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "gpucrypto: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpucrypto:", err)
		os.Exit(1)
	}
}

// pickDevice resolves --device (or the default) and explains a failure.
func pickDevice(spec string) (*cl.Device, error) {
	var d *cl.Device
	var err error
	if spec != "" {
		d, err = cl.Select(spec)
	} else {
		d, err = cl.Default()
	}
	if err != nil {
		if h := cl.ICDHint(); h != "" {
			err = fmt.Errorf("%w\n%s", err, h)
		}
		return nil, err
	}
	return d, nil
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
