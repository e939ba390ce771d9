//go:build !unix

package main

import "time"

// processCPU is the CPU time of the process so far; false where the
// system does not say (here).
func processCPU() (time.Duration, bool) { return 0, false }
