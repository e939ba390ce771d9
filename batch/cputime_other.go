//go:build !unix

package batch

import "time"

// processCPU is the CPU time of this process so far; false where the
// system does not say (here: the CPU path then does not look at it).
func processCPU() (time.Duration, bool) { return 0, false }
