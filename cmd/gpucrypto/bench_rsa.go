package main

import (
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// The operations of bench rsa: "modexp" (full-width exponentiations,
// every modulus size of --bits) and "rsa2048" ... (private operations:
// PKCS #1 v1.5 SHA-256 signatures with one key).
var _ = benchGroups.add(benchGroup{
	name: "rsa", algorithm: "rsa",
	what:       "modexp (512-4096 bits), RSA-2048/3072/4096 signatures vs crypto/rsa",
	ops:        []string{"modexp", "rsa2048", "rsa3072", "rsa4096"},
	gpuBatches: []int{65536}, cpuBatches: []int{16},
	flags: rsaBenchFlags,
})

// rsaBenchFlags are the flags of bench rsa: --bits, the modulus sizes of
// modexp.
func rsaBenchFlags(fs *flag.FlagSet, alone bool) func() (benchPlan, error) {
	usage := "modulus sizes in bits of modexp (default: all supported; rsa2048, ... take theirs from the name)"
	if !alone {
		usage = plainBitsUsage
	}
	bits := bitsFlag(fs, usage)
	return func() (benchPlan, error) {
		_, modWidths, err := benchWidths(bits())
		if err != nil {
			return nil, err
		}
		return func(r *benchRun, op string, batches []int) []benchCase {
			var cases []benchCase
			if op == "modexp" {
				for _, w := range modWidths {
					for _, n := range batches {
						cases = append(cases, benchCase{op: op, bits: w, batch: n, measure: func() (benchResult, error) {
							e, err := benchEngineOf(r, arith.NewEngine)
							if err != nil {
								return benchResult{}, err
							}
							return benchModExp(e, w, n, r.dur)
						}})
					}
				}
				return cases
			}
			bits, _ := rsaOpBits(op)
			for _, n := range batches {
				cases = append(cases, benchCase{op: op, bits: bits, batch: n, measure: func() (benchResult, error) {
					e, err := benchEngineOf(r, rsa.NewEngine)
					if err != nil {
						return benchResult{}, err
					}
					return benchRSA(e, op, bits, n, r.dur)
				}})
			}
			return cases
		}, nil
	}
}

// rsaOpBits parses "rsa2048" and friends.
func rsaOpBits(op string) (int, bool) {
	s, ok := strings.CutPrefix(op, "rsa")
	if !ok {
		return 0, false
	}
	bits, err := strconv.Atoi(s)
	return bits, err == nil
}

var benchKeys sync.Map // bits → *stdrsa.PrivateKey

func benchKey(bits int) (*stdrsa.PrivateKey, error) {
	if k, ok := benchKeys.Load(bits); ok {
		return k.(*stdrsa.PrivateKey), nil
	}
	k, err := stdrsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		return nil, err
	}
	benchKeys.Store(bits, k)
	return k, nil
}

// benchRSA times batches of n PKCS #1 v1.5 SHA-256 signatures with one
// bits-bit key on the engine (kernel time: the engine's device time), then
// with rsaPipeline such batches signed at once (all their signatures per
// second of wall time), and crypto/rsa on all cores.
func benchRSA(e *rsa.Engine, op string, bits, n int, dur time.Duration) (benchResult, error) {
	k, err := benchKey(bits)
	if err != nil {
		return benchResult{}, err
	}
	keys := make([]*stdrsa.PrivateKey, n)
	digests := make([][]byte, n)
	for i := range n {
		d := sha256.Sum256([]byte(strconv.Itoa(i)))
		keys[i], digests[i] = k, d[:]
	}
	sign := func() (time.Duration, error) {
		t0 := e.Stats().DeviceTime
		if _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); err != nil {
			return 0, err
		}
		return e.Stats().DeviceTime - t0, nil
	}
	e.SetRoute(batch.RouteDevice)
	fallbacks := e.Stats().Fallbacks
	r, err := measure(op, bits, n, dur, sign)
	if err != nil {
		return r, err
	}
	// the auto figure before the pipelined one, whose concurrent calls
	// leave the engine device times that include waiting for each other
	if err := measureAuto(&r, e, dur, sign); err != nil {
		return r, err
	}
	if r.PipeOps, err = pipelined(rsaPipeline, n, dur, sign); err != nil {
		return r, err
	}
	r.Pipeline = rsaPipeline
	if e.Stats().Fallbacks > fallbacks {
		return benchResult{}, fmt.Errorf("device failed; the batch ran on the CPU")
	}
	r.CPUOps = allCores(dur, func(i int) { stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, digests[i%n]) })
	r.Speedup = r.E2EOps / r.CPUOps
	return r, nil
}

// rsaPipeline is the number of callers of the pipelined RSA figure: an
// rsa.Server keeps batch.Options.Pipeline batches (default 2) in flight
// per engine, so that the host work of one (padding, conversions, the
// sample check, encoding) overlaps the device work of another.
const rsaPipeline = 2
