//go:build !unix

package cputime

import "time"

// Process is the CPU time of this process so far; false where the
// system does not say (here).
func Process() (time.Duration, bool) { return 0, false }
