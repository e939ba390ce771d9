package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/gpucrypto/gpucrypto/kernels"
)

// cmdSource prints the whole source of a kernel file as a program built
// with the given -D options gets it from kernels.Source: every #include
// inlined, the generated code of exactly what the options ask for (for
// reading, and for bug reports).
//
//	gpucrypto source FILE [-D NAME[=VALUE]]...
//
// -DNAME[=VALUE], written as one word as compilers take it, works too.
func cmdSource(args []string) error {
	fs := flag.NewFlagSet("source", flag.ExitOnError)
	defines := defineFlag{}
	fs.Var(defines, "D", "one -D option of the build, `NAME` or NAME=VALUE, as the compiler gets it (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: gpucrypto source FILE [-D NAME[=VALUE]]...")
		fs.PrintDefaults()
	}
	// The flag package stops at the first argument that is not a flag, so
	// FILE is taken out wherever it stands and the rest parsed again.
	args = splitDefines(args)
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(names) != 1 {
		fs.Usage()
		return errors.New("source: want one kernel file (modexp.cl, rsa.cl, x25519.cl, ...)")
	}
	src, err := kernels.Source(names[0], defines)
	if err != nil {
		return err
	}
	_, err = os.Stdout.WriteString(src)
	return err
}

// splitDefines turns each -DNAME[=VALUE] into the two arguments -D and
// NAME[=VALUE] that the flag package reads.
func splitDefines(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if rest, ok := strings.CutPrefix(a, "-D"); ok && rest != "" && rest[0] != '=' {
			out = append(out, "-D", rest)
			continue
		}
		out = append(out, a)
	}
	return out
}

// defineFlag collects the -D options: NAME → VALUE, "" for a bare NAME.
type defineFlag map[string]string

func (d defineFlag) String() string { return "" }

func (d defineFlag) Set(s string) error {
	name, value, _ := strings.Cut(s, "=")
	if name == "" {
		return fmt.Errorf("-D %q: no name", s)
	}
	d[name] = value
	return nil
}
