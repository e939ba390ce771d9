package main

import (
	stded25519 "crypto/ed25519"
	"encoding/binary"
	"flag"
	"fmt"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ed25519"
)

// The operations of bench ed25519: verification, signing, and public
// keys from seeds (keygen).
var _ = benchGroups.add(benchGroup{
	name: "ed25519", algorithm: "ed25519",
	what:       "Ed25519 verification, signing and public keys vs crypto/ed25519",
	ops:        []string{"ed25519-verify", "ed25519-sign", "ed25519-keygen"},
	gpuBatches: []int{16384, 131072, 1048576}, cpuBatches: []int{1024},
	batchNote: "; messages of 64 bytes",
	flags:     ed25519BenchFlags,
})

// ed25519BenchFlags are the flags of bench ed25519: --ed25519-alloc.
func ed25519BenchFlags(fs *flag.FlagSet, alone bool) func() (benchPlan, error) {
	alloc := fs.Bool("ed25519-alloc", false, "ed25519-sign: signatures in new slices each call (Sign) instead of the caller's reused ones (SignInto)")
	return func() (benchPlan, error) {
		return func(r *benchRun, op string, batches []int) []benchCase {
			var cases []benchCase
			for _, n := range batches {
				cases = append(cases, benchCase{op: op, bits: 255, batch: n, measure: func() (benchResult, error) {
					e, err := benchEngineOf(r, ed25519.NewEngine)
					if err != nil {
						return benchResult{}, err
					}
					return benchEd25519(e, op, n, *alloc, r.dur)
				}})
			}
			return cases
		}, nil
	}
}

// ed25519MessageBytes is the length of the bench's messages: a digest or
// a short token, the common case of servers that sign and verify in bulk.
const ed25519MessageBytes = 64

// benchEd25519 measures op on batches of n elements: 4,096 distinct keys
// (cycled) and n distinct messages of ed25519MessageBytes bytes; the CPU
// figure is crypto/ed25519 on all cores in the same run. Signatures go
// into slices each caller reuses (SignInto), or with alloc into new ones
// each call (Sign).
func benchEd25519(e *ed25519.Engine, op string, n int, alloc bool, dur time.Duration) (benchResult, error) {
	distinct := min(n, 4096)
	keys := make([]stded25519.PrivateKey, n)
	pubs := make([]stded25519.PublicKey, n)
	seeds := make([][]byte, n)
	msgs := make([][]byte, n)
	for i := range n {
		if i < distinct {
			seed := make([]byte, ed25519.SeedSize)
			binary.LittleEndian.PutUint64(seed, uint64(i)+1)
			keys[i] = stded25519.NewKeyFromSeed(seed)
			pubs[i] = keys[i].Public().(stded25519.PublicKey)
		} else {
			keys[i], pubs[i] = keys[i%distinct], pubs[i%distinct]
		}
		seeds[i] = keys[i].Seed()
		msgs[i] = make([]byte, ed25519MessageBytes)
		binary.LittleEndian.PutUint64(msgs[i], uint64(i))
	}
	e.SetRoute(batch.RouteDevice)
	sigs, err := e.Sign(keys, msgs, nil) // checked against crypto/ed25519 by Verify's first verdict below
	if err != nil {
		return benchResult{}, err
	}
	var call func() error
	var cpu func(i int)
	switch op {
	case "ed25519-verify":
		if !stded25519.Verify(pubs[n-1], msgs[n-1], sigs[n-1]) {
			return benchResult{}, fmt.Errorf("the device's signature does not verify under crypto/ed25519")
		}
		call = func() error {
			ok, err := e.Verify(pubs, msgs, sigs, nil)
			if err == nil && (!ok[0] || !ok[n-1]) {
				err = fmt.Errorf("a valid signature was rejected")
			}
			return err
		}
		cpu = func(i int) { stded25519.Verify(pubs[i%n], msgs[i%n], sigs[i%n]) }
	case "ed25519-sign":
		outs := callerOutputs(signaturePipeline+1, n, ed25519.SignatureSize) // the pipelined figure's callers, and one
		call = func() error {
			if alloc {
				_, err := e.Sign(keys, msgs, nil)
				return err
			}
			out := <-outs
			defer func() { outs <- out }()
			return e.SignInto(keys, msgs, out, nil)
		}
		cpu = func(i int) { stded25519.Sign(keys[i%n], msgs[i%n]) }
	case "ed25519-keygen":
		call = func() error { _, err := e.NewKeysFromSeeds(seeds); return err }
		cpu = func(i int) { stded25519.NewKeyFromSeed(seeds[i%n]) }
	default:
		return benchResult{}, fmt.Errorf("unknown op %q", op)
	}
	run := func() (time.Duration, error) {
		t0 := e.Stats().DeviceTime
		if err := call(); err != nil {
			return 0, err
		}
		return e.Stats().DeviceTime - t0, nil
	}
	r, err := measureEngine(e, op, 255, n, dur, run, cpu)
	r.IntoCallerBuffers = op == "ed25519-sign" && !alloc
	return r, err
}
