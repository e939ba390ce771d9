package main

import (
	stdecdh "crypto/ecdh"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"time"

	"github.com/cloudflare/circl/dh/x448"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
)

// The operations of bench ecdh: x*-keygen is the public-key path of the
// library (the fixed-base comb). x25519-binv and x448-keygen-binv, ...
// are x25519 and x448-keygen, ... with the final inversion shared by
// groups of K elements (--binv K,...; ecdh.Engine.SetBatchInversion)
// instead of one Fermat inversion each.
var _ = benchGroups.add(benchGroup{
	name: "ecdh", algorithm: "ecdh",
	what: "X25519 and X448 shared secrets and public keys (keygen)",
	ops: []string{"x25519", "x25519-keygen", "x448", "x448-keygen",
		"x25519-binv", "x25519-keygen-binv", "x448-binv", "x448-keygen-binv"},
	gpuBatches: []int{16384, 131072, 524288}, cpuBatches: []int{4096},
	flags: ecdhBenchFlags,
})

// ecdhBenchFlags are the flags of bench ecdh: --binv, --pipeline and
// --ecdh-alloc.
func ecdhBenchFlags(fs *flag.FlagSet, alone bool) func() (benchPlan, error) {
	binv := fs.String("binv", "16", "group sizes K of the *-binv ops (X25519/X448 with one field inversion per K elements; 0: one per element)")
	pipeline := fs.Int("pipeline", 2, "ecdh ops: batches in flight for the pipelined figure (like batch.Options.Pipeline)")
	alloc := fs.Bool("ecdh-alloc", false, "ecdh ops: results in new strings each call (SharedSecrets, PublicKeys) instead of the caller's reused ones (SharedSecretsInto, PublicKeysInto)")
	return func() (benchPlan, error) {
		binvGroups, err := flagInts("binv", *binv, 0)
		if err != nil {
			return nil, err
		}
		if err := atLeast("pipeline", *pipeline, 1); err != nil {
			return nil, err
		}
		return func(r *benchRun, op string, batches []int) []benchCase {
			curve, keygen, _ := ecdhOp(op)
			groups := []int{ecdh.BatchInversionAuto}
			if strings.HasSuffix(op, "-binv") {
				groups = binvGroups
			}
			var cases []benchCase
			for _, k := range groups {
				label := op
				if strings.HasSuffix(op, "-binv") {
					label += fmt.Sprintf(" k=%d", k)
				}
				for _, n := range batches {
					cases = append(cases, benchCase{op: op, bits: curveBits(curve), batch: n, label: label, measure: func() (benchResult, error) {
						e, err := benchEngineOf(r, ecdh.NewEngine)
						if err != nil {
							return benchResult{}, err
						}
						return benchECDH(e, curve, keygen, op, n, k, *pipeline, *alloc, r.dur)
					}})
				}
			}
			return cases
		}, nil
	}
}

// ecdhOp parses "x25519", "x448-keygen", "x25519-binv",
// "x448-keygen-binv", ...
func ecdhOp(op string) (c ecdh.Curve, keygen bool, ok bool) {
	op = strings.TrimSuffix(op, "-binv")
	name, keygen := strings.CutSuffix(op, "-keygen")
	switch name {
	case "x25519":
		return ecdh.X25519(), keygen, true
	case "x448":
		return ecdh.X448(), keygen, true
	}
	return nil, false, false
}

// benchECDH measures op with batch inversion in groups of group elements
// (0: per element; ecdh.BatchInversionAuto: the library's default rule,
// whose choice is reported), one batch at a time and with pipeline
// batches in flight. The results go into strings that each caller reuses
// (SharedSecretsInto, PublicKeysInto), or with alloc into new ones each
// call (SharedSecrets, PublicKeys).
func benchECDH(e *ecdh.Engine, c ecdh.Curve, keygen bool, op string, n, group, pipeline int, alloc bool, dur time.Duration) (benchResult, error) {
	privs, peers := make([][]byte, n), make([][]byte, n)
	rng := mrand.New(mrand.NewPCG(uint64(n), uint64(c.Size())))
	for i := range n {
		privs[i], peers[i] = make([]byte, c.Size()), make([]byte, c.Size())
		for j := range privs[i] {
			privs[i][j], peers[i][j] = byte(rng.Uint32()), byte(rng.Uint32())
		}
	}
	if keygen {
		peers = nil
	} else { // real public keys as peers, so no element fails as low-order
		pubs, err := ecdh.CPUEngine().PublicKeys(c, peers[:min(n, 4096)])
		if err != nil {
			return benchResult{}, err
		}
		for i := range peers {
			peers[i] = pubs[i%len(pubs)]
		}
	}
	e.SetBatchInversion(group)
	defer e.SetBatchInversion(ecdh.BatchInversionAuto)
	// one set of result strings per caller in flight
	outs := callerOutputs(pipeline+1, n, c.Size())
	run := func() (time.Duration, error) { // the kernel time of one batch (one caller at a time)
		before := e.Stats().DeviceTime
		var err error
		out := <-outs
		switch {
		case alloc && keygen:
			_, err = e.PublicKeys(c, privs)
		case alloc:
			_, err = e.SharedSecrets(c, privs, peers)
		case keygen:
			err = e.PublicKeysInto(c, privs, out)
		default:
			err = e.SharedSecretsInto(c, privs, peers, out)
		}
		outs <- out
		return e.Stats().DeviceTime - before, err
	}
	e.SetRoute(batch.RouteDevice)
	fallbacks := e.Stats().Fallbacks
	r, err := measure(op, curveBits(c), n, dur, run)
	if err != nil {
		return r, err
	}
	// the auto figure before the pipelined one, whose concurrent calls
	// leave the engine device times that include waiting for each other
	if err := measureAuto(&r, e, dur, run); err != nil {
		return r, err
	}
	if r.PipeOps, err = pipelined(pipeline, n, dur, run); err != nil {
		return r, err
	}
	r.Pipeline = pipeline
	r.IntoCallerBuffers = !alloc
	if e.Stats().Fallbacks > fallbacks {
		return benchResult{}, fmt.Errorf("device failed; the batch ran on the CPU")
	}
	r.BinvGroup = group
	if group < 0 {
		r.BinvGroup, r.BinvAuto = e.BatchInversionGroup(c, !keygen, n), true
	}
	r.CPUOps = cpuECDH(c, keygen, privs[:min(n, 4096)], dur)
	r.Speedup = r.E2EOps / r.CPUOps
	e.ReleaseBuffers() // the next measurement may use other sizes
	return r, nil
}

// ecdhLabel is the table's name of r: the op, and for ecdh ops the batch
// inversion group ("k=16", "k=16 auto" where the library chose it).
func ecdhLabel(r benchResult) string {
	switch {
	case r.BinvAuto && r.BinvGroup > 0:
		return fmt.Sprintf("%s k=%d auto", r.Op, r.BinvGroup)
	case strings.HasSuffix(r.Op, "-binv"):
		return fmt.Sprintf("%s k=%d", r.Op, r.BinvGroup)
	}
	return r.Op
}

// cpuECDH measures the same operation on the CPU: one goroutine per core,
// each repeating it over up to 256 keys, and only the operation itself is
// timed. For X25519 shared secrets that is PrivateKey.ECDH on keys that
// crypto/ecdh parsed beforehand: NewPrivateKey derives the public key with
// a full scalar multiplication, so crypto/ecdh on raw keys (as the CPU
// engine would, were it built on crypto/ecdh), parsing them per element, pays about
// twice this per shared secret. X25519 public keys time NewPrivateKey,
// which is exactly that derivation; X448 times circl's Shared and KeyGen
// (one scalar multiplication each).
func cpuECDH(c ecdh.Curve, keygen bool, privs [][]byte, dur time.Duration) float64 {
	privs = privs[:min(len(privs), 256)]
	var peers [][]byte
	if !keygen {
		peers, _ = ecdh.CPUEngine().PublicKeys(c, privs)
	}
	op, err := cpuOp(c, privs, peers)
	if err != nil {
		return 0
	}
	return allCores(dur, func(i int) { op(i % len(privs)) })
}

// cpuOp returns the CPU operation on key i that cpuECDH times (a shared
// secret when peers is not nil, else a public key), with the keys parsed
// once beforehand.
func cpuOp(c ecdh.Curve, privs, peers [][]byte) (func(i int), error) {
	if c == ecdh.X448() {
		ks, ps := make([]x448.Key, len(privs)), make([]x448.Key, len(peers))
		for i := range privs {
			copy(ks[i][:], privs[i])
		}
		for i := range peers {
			copy(ps[i][:], peers[i])
		}
		if peers == nil {
			return func(i int) {
				var out x448.Key
				x448.KeyGen(&out, &ks[i])
			}, nil
		}
		return func(i int) {
			var out x448.Key
			x448.Shared(&out, &ks[i], &ps[i])
		}, nil
	}
	x := stdecdh.X25519()
	if peers == nil {
		return func(i int) { x.NewPrivateKey(privs[i]) }, nil
	}
	ks, ps := make([]*stdecdh.PrivateKey, len(privs)), make([]*stdecdh.PublicKey, len(peers))
	for i := range privs {
		var err error
		if ks[i], err = x.NewPrivateKey(privs[i]); err != nil {
			return nil, err
		}
		if ps[i], err = x.NewPublicKey(peers[i]); err != nil {
			return nil, err
		}
	}
	return func(i int) { ks[i].ECDH(ps[i]) }, nil
}

func curveBits(c ecdh.Curve) int {
	if c == ecdh.X25519() {
		return 255
	}
	return 448
}
