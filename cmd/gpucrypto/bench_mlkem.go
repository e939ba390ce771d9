package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

// The operations of bench mlkem: encapsulation keys from seeds (keygen),
// encapsulation and decapsulation, of ML-KEM-768 and ML-KEM-1024.
var _ = benchGroups.add(benchGroup{
	name: "mlkem", algorithm: "mlkem",
	what: "ML-KEM-768 and ML-KEM-1024 key generation, encapsulation and decapsulation vs crypto/mlkem",
	ops: []string{"mlkem768-keygen", "mlkem768-encaps", "mlkem768-decaps",
		"mlkem1024-keygen", "mlkem1024-encaps", "mlkem1024-decaps"},
	gpuBatches: []int{16384, 131072, 1048576}, cpuBatches: []int{256},
	batchNote: fmt.Sprintf("; %d distinct keys (cycled), a distinct ciphertext per element", mlkemBenchKeys),
	flags:     mlkemBenchFlags,
})

// mlkemBenchFlags are the flags of bench mlkem: none of its own.
func mlkemBenchFlags(fs *flag.FlagSet, alone bool) func() (benchPlan, error) {
	return func() (benchPlan, error) {
		return func(r *benchRun, op string, batches []int) []benchCase {
			s := mlkemSetOf(op)
			var cases []benchCase
			for _, n := range batches {
				cases = append(cases, benchCase{op: op, bits: s.size, batch: n, measure: func() (benchResult, error) {
					e, err := benchEngineOf(r, mlkem.NewEngine)
					if err != nil {
						return benchResult{}, err
					}
					return benchMLKEM(e, s, op, n, r.dur)
				}})
			}
			return cases
		}, nil
	}
}

// mlkemBenchKeys is the number of distinct keys of bench mlkem, cycled
// through a batch: consecutive elements never share a key, so that the
// engine expands (or checks) every element's key, as for requests under
// many keys.
const mlkemBenchKeys = 4096

// benchMLKEM measures op of s on batches of n elements: mlkemBenchKeys
// distinct keys (cycled; made by crypto/mlkem) and, for decapsulation, n
// distinct ciphertexts the device encapsulated first (checked by
// crypto/mlkem). The CPU figure is crypto/mlkem on all cores in the same
// run, from the same inputs as the engine's call: a seed's encapsulation
// key (NewDecapsulationKey), an encapsulation to the bytes of an
// encapsulation key (NewEncapsulationKey, its modulus check included,
// then Encapsulate), a decapsulation under a seed (NewDecapsulationKey,
// then Decapsulate; a server holding its keys expanded does less per
// request: bench server's mlkem768-decaps measures that).
func benchMLKEM(e *mlkem.Engine, s *mlkemSet, op string, n int, dur time.Duration) (benchResult, error) {
	distinct := min(n, mlkemBenchKeys)
	seeds, eks := make([][]byte, n), make([][]byte, n)
	decapsulators := make([]stdDecapsulator, distinct)
	errs := make([]error, distinct)
	batch.Parallel(distinct, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			seed := make([]byte, mlkem.SeedSize)
			binary.LittleEndian.PutUint64(seed, uint64(i)+1)                    // d
			binary.LittleEndian.PutUint64(seed[mlkem.SeedSize/2:], uint64(i)+1) // z
			dk, ek, err := s.stdKey(seed)
			seeds[i], decapsulators[i], errs[i] = seed, dk, err
			if err == nil {
				eks[i] = ek.Bytes()
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return benchResult{}, fmt.Errorf("crypto/mlkem: %w", err)
		}
	}
	for i := distinct; i < n; i++ {
		seeds[i], eks[i] = seeds[i%distinct], eks[i%distinct]
	}
	e.SetRoute(batch.RouteDevice)
	// encapsulated checks that crypto/mlkem decapsulates element i of an
	// encapsulation to its shared key
	encapsulated := func(shared, cts [][]byte, i int) error {
		if got, err := decapsulators[i%distinct].Decapsulate(cts[i]); err != nil || !bytes.Equal(got, shared[i]) {
			return fmt.Errorf("crypto/mlkem decapsulates the device's ciphertext %d to another shared key (%v)", i, err)
		}
		return nil
	}
	var call func() error
	var cpu func(i int)
	switch strings.TrimPrefix(op, s.name+"-") {
	case "keygen":
		call = func() error {
			got, err := s.keyGen(e, seeds)
			if err == nil && (!bytes.Equal(got[0], eks[0]) || !bytes.Equal(got[n-1], eks[n-1])) {
				err = fmt.Errorf("the device's encapsulation key differs from crypto/mlkem's")
			}
			return err
		}
		cpu = func(i int) {
			if _, ek, err := s.stdKey(seeds[i%n]); err == nil {
				ek.Bytes()
			}
		}
	case "encaps":
		call = func() error {
			shared, cts, err := s.encapsulate(e, eks)
			if err == nil {
				err = encapsulated(shared, cts, n-1)
			}
			return err
		}
		cpu = func(i int) {
			if ek, err := s.stdEncapsulationKey(eks[i%n]); err == nil {
				ek.Encapsulate()
			}
		}
	case "decaps":
		shared, cts, err := s.encapsulate(e, eks)
		if err != nil {
			return benchResult{}, err
		}
		for _, i := range []int{0, n - 1} {
			if err := encapsulated(shared, cts, i); err != nil {
				return benchResult{}, err
			}
		}
		call = func() error {
			got, err := s.decapsulate(e, seeds, cts)
			if err == nil && (!bytes.Equal(got[0], shared[0]) || !bytes.Equal(got[n-1], shared[n-1])) {
				err = fmt.Errorf("the device's decapsulation differs from its encapsulation's shared key")
			}
			return err
		}
		cpu = func(i int) {
			if dk, _, err := s.stdKey(seeds[i%n]); err == nil {
				dk.Decapsulate(cts[i%n])
			}
		}
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
	return measureEngine(e, op, s.size, n, dur, run, cpu)
}
