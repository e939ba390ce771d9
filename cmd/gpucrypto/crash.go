package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
)

// envCrashOutput names a file that receives, besides stderr, the report
// of a fatal error of any command (an unrecovered panic, a fault in a
// driver): runtime/debug.SetCrashOutput. A long run on a GPU (burnin
// --soak, a bench) then leaves its last words in a file even where its
// stderr is lost; with GOTRACEBACK=crash the report holds every
// goroutine and the process dumps core.
const envCrashOutput = "GPUCRYPTO_CRASH_OUTPUT"

// crashOutputUsage is the help of --crash-output.
const crashOutputUsage = "append the report of a fatal error (panic, fault) to this file as well as stderr (as " + envCrashOutput + "=FILE does for every command; GOTRACEBACK=crash adds every goroutine and a core dump)"

// setCrashOutput makes the runtime write a fatal error's report to the
// file path too, appended to what the file holds. from names where path
// came from, for the error.
func setCrashOutput(path, from string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	// SetCrashOutput keeps a duplicate of the descriptor
	defer f.Close()
	if err := debug.SetCrashOutput(f, debug.CrashOptions{}); err != nil {
		return fmt.Errorf("%s %s: %w", from, path, err)
	}
	return nil
}

// crashOutputEnv applies GPUCRYPTO_CRASH_OUTPUT, if set.
func crashOutputEnv() error {
	if path := os.Getenv(envCrashOutput); path != "" {
		return setCrashOutput(path, envCrashOutput)
	}
	return nil
}

// crashOutputFlag defines --crash-output on fs; the function it returns
// applies the flag, if given (it takes over from GPUCRYPTO_CRASH_OUTPUT).
func crashOutputFlag(fs *flag.FlagSet) func() error {
	path := fs.String("crash-output", "", crashOutputUsage)
	return func() error {
		if *path == "" {
			return nil
		}
		return setCrashOutput(*path, "--crash-output")
	}
}
