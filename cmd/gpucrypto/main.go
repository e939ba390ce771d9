// Command gpucrypto lists devices, checks them with known-answer tests and
// benchmarks gpucrypto's kernels against the CPU.
//
//	gpucrypto version [--json]
//	gpucrypto devices [--backend opencl|cuda] [--json] [--json-out FILE]
//	gpucrypto selftest [--device SPEC] [--backend opencl|cuda] [--json] [--json-out FILE]
//	gpucrypto bench [GROUP] [--device SPEC] [--backend opencl|cuda] [--ops add,...,x25519,modexp,rsa2048] [--bits 256,...] [--batch N,...] [--seconds S] [--json] [--json-out FILE] [--crash-output FILE]
//	gpucrypto bench aes|server|tls [flags]
//	  (a GROUP is arith, rsa, ecdh, ...: "gpucrypto bench -h" lists the subcommands; "gpucrypto bench SUBCOMMAND -h" shows its operations and flags)
//	gpucrypto burnin [--device SPEC|all] [--backend opencl|cuda] [--ops rsa2048,x25519,aes-gcm,...] [--cases N] [--duration D] [--batch N] [--seed S] [--failures FILE] [--strict] [--json] [--json-out FILE] [--crash-output FILE]
//	gpucrypto burnin --soak [--duration D] [--cycle D] [--callers N] [flags]
//	gpucrypto kernelinfo [--device SPEC] [--backend opencl|cuda]
//	gpucrypto source FILE [-D NAME[=VALUE]]...
//	gpucrypto plot [--out DIR] [--prefix NAME] FILE.json...
//
// --device takes an index or a name substring (as GPUCRYPTO_DEVICE does);
// --backend picks the driver (as GPUCRYPTO_BACKEND does). --json prints a
// command's report as one JSON document; the --json-out FILE of bench, bench
// aes, bench tls, burnin and selftest writes it as JSON Lines while the run
// goes, a row at a time. GPUCRYPTO_CRASH_OUTPUT=FILE
// makes every command append the report of a fatal error to FILE as well
// as stderr (runtime/debug.SetCrashOutput; --crash-output on bench and
// burnin does the same).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gpucrypto/gpucrypto/device"
)

// usage is the help of gpucrypto; the subcommands of bench are those of
// its tables (benchSubcommands).
func usage() string {
	return fmt.Sprintf(usageFormat, strings.Join(benchSubcommandNames(), ", "))
}

const usageFormat = `usage: gpucrypto <command> [flags]

commands:
  version    the binary's version, commit, Go version, platform and backends
  devices    list every device of every backend (OpenCL; CUDA with -tags cuda) and its features
  selftest   run known-answer tests on the chosen device (exit 1 on failure)
  bench      measure throughput on the chosen device and on all CPU cores
             (subcommands %s: "gpucrypto bench -h")
  burnin     random cases of every operation on the device, checked against the CPU (exit 1 on a mismatch)
             (--soak: Engines and Servers made and closed under load until --duration, every result checked)
  kernelinfo compiler facts per kernel of every algorithm's programs (arith, modexp, RSA, AES,
             X25519/X448, Ed25519, ECDSA and ECDH over P-256, ML-KEM): registers, spills, private memory
  source     print the full source of a kernel program, as it is compiled
  plot       draw PNG plots from the JSON of bench, bench aes, bench server and bench tls

Run "gpucrypto <command> -h" for a command's flags. --json prints a report as
one JSON document at the end; the --json-out FILE of bench, bench aes, bench
tls, burnin and selftest writes it as JSON Lines as the run goes (a run
stopped early keeps every row it finished).

environment:
  GPUCRYPTO_DEVICE        the default device (index or name substring)
  GPUCRYPTO_BACKEND       the driver: opencl or cuda
  GPUCRYPTO_CRASH_OUTPUT  a file that every command appends the report of a fatal error
                          (panic, fault) to, as well as stderr; with GOTRACEBACK=crash the
                          report holds every goroutine and the process dumps core
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage())
		os.Exit(2)
	}
	if err := crashOutputEnv(); err != nil {
		fmt.Fprintln(os.Stderr, "gpucrypto:", err)
		os.Exit(1)
	}
	var err error
	switch os.Args[1] {
	case "version", "--version":
		err = cmdVersion(os.Args[2:])
	case "devices":
		err = cmdDevices(os.Args[2:])
	case "selftest":
		err = cmdSelftest(os.Args[2:])
	case "bench":
		err = cmdBench(os.Args[2:])
	case "burnin":
		err = cmdBurnin(os.Args[2:])
	case "kernelinfo":
		err = cmdKernelInfo(os.Args[2:])
	case "source":
		err = cmdSource(os.Args[2:])
	case "plot":
		err = cmdPlot(os.Args[2:])
	case "-h", "--help", "help":
		fmt.Print(usage())
		return
	default:
		fmt.Fprintf(os.Stderr, "gpucrypto: unknown command %q\n\n%s", os.Args[1], usage())
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpucrypto:", err)
		os.Exit(1)
	}
}

// deviceFlags adds --device and --backend to a command's flags; the
// function it returns resolves them (or the defaults) to a device. With
// no --device, that is the device Auto computes on (device.Choose:
// GPUCRYPTO_DEVICE's, else the best GPU); where Auto would take the CPU
// engine instead (only CPU devices), the best device of any type
// (device.Any), for every command that takes --device runs or measures
// kernels (selftest, kernelinfo, burnin, the bench rows of the device).
// Either way a line on the flags' output (stderr) says which device and
// why.
func deviceFlags(fs *flag.FlagSet) func() (*device.Device, error) {
	spec := fs.String("device", "", "device index or name substring (default: GPUCRYPTO_DEVICE, else the best GPU, else the best CPU device)")
	backend := fs.String("backend", "", "driver: opencl or cuda (default: GPUCRYPTO_BACKEND, else CUDA for NVIDIA GPUs where built with -tags cuda)")
	return func() (*device.Device, error) {
		if err := setBackend(*backend); err != nil {
			return nil, err
		}
		if *backend != "" {
			// no device of that driver: the error names the flag
			if _, err := device.Devices(); err != nil {
				return nil, fmt.Errorf("--backend %s: %w", *backend, err)
			}
		}
		if *spec != "" {
			d, err := device.Select(*spec)
			if err != nil {
				return nil, fmt.Errorf("--device %q: %w", *spec, err)
			}
			return d, nil
		}
		d, why, err := defaultDevice()
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(fs.Output(), "device: %s: %s\n", d, why)
		return d, nil
	}
}

// defaultDevice is the device of a command given no --device, and why:
// device.Choose's, else device.Any's, which is then a CPU device (Choose
// passed over only CPU devices; where GPUCRYPTO_DEVICE names no device or
// none was found, Any fails as Choose did).
func defaultDevice() (*device.Device, string, error) {
	choice := device.Choose()
	if choice.Device != nil {
		return choice.Device, "the device Auto computes on, " + choice.Reason, nil
	}
	d, err := device.Any()
	if err != nil {
		return nil, "", err
	}
	return d, "a CPU device, taken because this command runs kernels; Auto computes on the CPU engine instead: " + choice.Reason + "; --device names another", nil
}

// setBackend applies --backend (empty: leave GPUCRYPTO_BACKEND as it is).
// A name that is not a driver built into this binary is an error naming
// the flag.
func setBackend(backend string) error {
	if backend == "" {
		return nil
	}
	have := device.Backends()
	if !slices.Contains(have, backend) {
		why := ""
		if backend == "cuda" {
			why = " (this binary was built without -tags cuda)"
		}
		return fmt.Errorf("--backend %q: no such backend%s; have %s", backend, why, strings.Join(have, ", "))
	}
	// read once, at the first enumeration: set it before that
	return os.Setenv(device.EnvBackend, backend)
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
