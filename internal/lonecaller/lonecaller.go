// Package lonecaller is the helper of the lone-caller tests: each
// algorithm's test checks with Compare that a lone caller of its Server
// over CPU engines alone (no GPU) waits about what crypto/* takes: a
// Server of CPU engines computes each request at once (batch.NewDirect),
// and must not hold it for a batch. The bound is generous (timing on a
// shared machine); the figures themselves are `gpucrypto bench server`'s.
// The package's own test covers the Servers of ed25519, ecdsa, ecdh, aes
// and rsa; mlkem's is in the mlkem package (lonecaller_test.go). It is for
// tests only: no package of the library imports it.
package lonecaller

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// median is the median time of n runs of f.
func median(n int, f func()) time.Duration {
	times := make([]time.Duration, n)
	for i := range times {
		start := time.Now()
		f()
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	return times[n/2]
}

// Compare checks that a lone caller's median of n calls through the
// Server (server) is within 2× crypto/*'s (std) + 1 ms (a batch's
// MaxDelay alone is 2 ms). name names the operation in the log and the
// failure.
func Compare(t testing.TB, name string, n int, server, std func()) {
	t.Helper()
	server() // first uses build tables
	std()
	ours, theirs := median(n, server), median(n, std)
	t.Logf("%s: Server %v, crypto/* %v", name, ours, theirs)
	require.LessOrEqual(t, ours, 2*theirs+time.Millisecond, "%s: a lone caller of a Server of CPU engines waits %v; crypto/* takes %v", name, ours, theirs)
}
