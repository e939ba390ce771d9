package main

// This file is ML-KEM's part of the CLI: its group of `gpucrypto bench`
// (bench mlkem), its rows of `gpucrypto bench server`, and its operations
// of `gpucrypto burnin` and of its soak (burnin --soak), in that order,
// each added to the tables of tables.go. An algorithm new to the CLI adds
// one such file, named after it.
// mlkem_sets.go holds the parameter sets these use, and mlkem_held*.go and
// mlkem_derandomized*.go what differs before Go 1.26.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

// Its group of `gpucrypto bench`, bench mlkem (benchGroups).

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

// Its rows of `gpucrypto bench server` (serverOps).

var _ = serverOps.add(
	serverOp{name: "mlkem768-encaps", algorithm: "mlkem",
		what:      fmt.Sprintf("mlkem.Server.Encapsulate, ML-KEM-768, to %d keys in turn", serverMLKEMKeys),
		goPackage: "crypto/mlkem", forms: []string{formBlocking, formAsync}, start: startMLKEMEncapsulate},
	serverOp{name: "mlkem768-decaps", algorithm: "mlkem", what: "mlkem.DecapsulationKey.DecapsulateContext (async: the key's Go), ML-KEM-768, one key held by the Server",
		goPackage: "crypto/mlkem", forms: []string{formBlocking, formAsync}, start: startMLKEMDecapsulate},
)

// serverMLKEMKeys is the number of encapsulation keys that the
// encapsulations of bench server go to, each caller (each call in flight)
// taking them in turn from a place of its own: as a TLS server
// encapsulates to the key shares of its clients, consecutive requests
// rarely share a key (and a batch's key checks).
const serverMLKEMKeys = 256

// serverMLKEMSeed is the seed of key i of the ML-KEM operations: the
// decapsulation key (i = 0) and the keys encapsulated to.
func serverMLKEMSeed(i int) []byte {
	d := sha256.Sum256(fmt.Appendf(nil, "gpucrypto bench server mlkem d %d", i))
	z := sha256.Sum256(fmt.Appendf(nil, "gpucrypto bench server mlkem z %d", i))
	return append(d[:], z[:]...)
}

// startMLKEM starts an mlkem.Server for the ML-KEM operations, its device
// engines warmed with warm.
func startMLKEM(devs []*device.Device, opts batch.Options, warm func(*mlkem.Engine) error) (*mlkem.Server, []*mlkem.Engine, error) {
	engines, err := newEngines(devs, warmedOn(mlkem.NewEngine, warm), mlkem.CPUEngine)
	if err != nil {
		return nil, nil, err
	}
	s, err := mlkem.NewServer(opts, engines...)
	if err != nil {
		closeEngines(engines)
		return nil, nil, err
	}
	return s, engines, nil
}

// startMLKEMEncapsulate: ML-KEM-768 encapsulations with fresh randomness
// to the bytes of serverMLKEMKeys encapsulation keys
// (mlkem.Server.Encapsulate; crypto/mlkem's NewEncapsulationKey768 of the
// bytes, as a server receives them, and Encapsulate).
func startMLKEMEncapsulate(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	set := mlkem768Set
	eks := make([][]byte, serverMLKEMKeys)
	dks := make([]stdDecapsulator, serverMLKEMKeys)
	for i := range eks {
		dk, ek, err := set.stdKey(serverMLKEMSeed(i))
		if err != nil {
			return nil, fmt.Errorf("bench server: crypto/mlkem: %w", err)
		}
		eks[i], dks[i] = ek.Bytes(), dk
	}
	s, engines, err := startMLKEM(devs, opts, func(e *mlkem.Engine) error {
		_, _, err := set.encapsulate(e, eks[:1])
		return err
	})
	if err != nil {
		return nil, err
	}
	// places hands each caller, each call of an asynchronous window and
	// each Go goroutine its first key: they take the keys in turn from
	// there
	var places atomic.Int64
	nextKey := func() func() int {
		k := int(places.Add(1) * 37 % serverMLKEMKeys)
		return func() int {
			k = (k + 1) % serverMLKEMKeys
			return k
		}
	}
	return &serverBench{
		newCaller: func() func(context.Context) error {
			next := nextKey()
			return func(ctx context.Context) error {
				_, _, err := s.Encapsulate(ctx, set.params, eks[next()])
				return err
			}
		},
		newSubmitter: func(window int) submitter {
			return newCallSubmitter(window, func(done chan *mlkem.Call) mlkem.Call {
				return mlkem.Call{Parameters: set.params, EncapsulationKey: eks[nextKey()()], Done: done}
			}, s.Go, func(c *mlkem.Call) error { return c.Err })
		},
		newGoCaller: func() func() error {
			next := nextKey()
			return func() error {
				ek, err := set.stdEncapsulationKey(eks[next()])
				if err != nil {
					return err
				}
				ek.Encapsulate()
				return nil
			}
		},
		check: func(ctx context.Context) error {
			shared, ct, err := s.Encapsulate(ctx, set.params, eks[0])
			if err != nil {
				return err
			}
			std, err := dks[0].Decapsulate(ct)
			if err != nil {
				return fmt.Errorf("bench server: mlkem768-encaps: crypto/mlkem refuses the Server's ciphertext: %w", err)
			}
			if !bytes.Equal(shared, std) {
				return fmt.Errorf("bench server: mlkem768-encaps: crypto/mlkem decapsulates the Server's ciphertext to %x, not its shared key %x", std, shared)
			}
			return nil
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// startMLKEMDecapsulate: ML-KEM-768 decapsulations of a ciphertext under
// one key, held by the Server as a server keeps its keys (its
// DecapsulationKey; the async form submits the key's seed, a Call having
// no held key), beside crypto/mlkem's DecapsulationKey768, decoded once,
// and Decapsulate.
func startMLKEMDecapsulate(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	set := mlkem768Set
	seed := serverMLKEMSeed(0)
	dk, ek, err := set.stdKey(seed)
	if err != nil {
		return nil, fmt.Errorf("bench server: crypto/mlkem: %w", err)
	}
	_, ct := ek.Encapsulate()
	s, engines, err := startMLKEM(devs, opts, func(e *mlkem.Engine) error {
		_, err := set.decapsulate(e, [][]byte{seed}, [][]byte{ct})
		return err
	})
	if err != nil {
		return nil, err
	}
	held, submitHeld, closeHeld, err := heldDecapsulation(s, set.params, seed)
	if err != nil {
		closer(s, engines)()
		return nil, fmt.Errorf("bench server: mlkem DecapsulationKey: %w", err)
	}
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := held(ctx, ct)
			return err
		}),
		newSubmitter: func(window int) submitter {
			return newCallSubmitter(window, func(done chan *mlkem.Call) mlkem.Call {
				return mlkem.Call{Ciphertext: ct, Done: done}
			}, submitHeld, func(c *mlkem.Call) error { return c.Err })
		},
		newGoCaller: sameGoCaller(func() error {
			_, err := dk.Decapsulate(ct)
			return err
		}),
		check: func(ctx context.Context) error {
			shared, err := held(ctx, ct)
			if err != nil {
				return err
			}
			std, err := dk.Decapsulate(ct)
			if err != nil {
				return err
			}
			return checkEqual("mlkem768-decaps", shared, std)
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: func() { closeHeld(); closer(s, engines)() },
	}, nil
}

// Its operations of `gpucrypto burnin` (burninOps).

var _ = burninOps.add(mlkemBurninOp(mlkem768Set, 131072), mlkemBurninOp(mlkem1024Set, 131072))

// mlkemCorruptEvery: the first case of each batch and about one in this
// many others have their ciphertext decapsulated a second time with one
// bit changed, which must give the implicit-rejection key.
const mlkemCorruptEvery = 8

// mlkemBurninOp checks ML-KEM of s on the device. A case is a random seed
// d ‖ z and random encapsulation randomness m: the device computes the
// encapsulation key (KeyGen), encapsulates to it with m
// (EncapsulateDerandomized) and decapsulates the ciphertext under the
// seed, which must give the encapsulation's shared key (a check of every
// case that needs no crypto/mlkem: a wrong key, ciphertext or shared key
// breaks the equality). The first case of each batch and about one in
// mlkemCorruptEvery are decapsulated again with one bit of the ciphertext
// changed, right after the original (the two share the key's expansion),
// which must give FIPS 203's implicit-rejection key J(z ‖ c), computed
// here for every one of them. A sample (--cpu-sample) is recomputed
// entirely by crypto/mlkem and compared byte for byte: the encapsulation
// key, the ciphertext and shared key of m (crypto/mlkem/mlkemtest; before
// Go 1.26, which has none, crypto/mlkem's decapsulation of the device's
// ciphertext alone), and the implicit rejection of the corrupted copy.
func mlkemBurninOp(s *mlkemSet, gpuBatch int) burninOp {
	return burninOp{name: s.name, algorithm: "mlkem", batchGPU: gpuBatch, batchCPU: 256, prepare: func(r *burninRun) (burninCheck, error) {
		e, err := burninEngineOf(r, mlkem.NewEngine)
		if err != nil {
			return nil, err
		}
		return func(b *burninBatch) { checkMLKEM(b, e, s) }, nil
	}}
}

// mlkemCase is one case of the burn-in as the device computed it: its
// inputs, its results and their errors, and the corrupted ciphertext and
// its decapsulation where it has one (nil otherwise).
type mlkemCase struct {
	seed, random                           []byte
	ek, ct, shared, decapsulated           []byte
	corrupted, rejected                    []byte
	keyErr, encapsulateErr, decapsulateErr error
}

// slabs are n slices of size bytes each, cut from one random slab.
func (b *burninBatch) slabs(n, size int) [][]byte {
	slab := b.bytes(n * size)
	out := make([][]byte, n)
	for i := range out {
		out[i] = slab[i*size : (i+1)*size : (i+1)*size]
	}
	return out
}

func checkMLKEM(b *burninBatch, e *mlkem.Engine, s *mlkemSet) {
	n := b.n
	seeds, random := b.slabs(n, mlkem.SeedSize), b.slabs(n, mlkem.RandomnessSize)
	eks, err := s.keyGen(e, seeds)
	keyErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll(s.title+" key generation", err)
		return
	}
	shared, cts, err := s.encapsulateDerandomized(e, eks, random)
	encapsulateErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll(s.title+" encapsulation", err)
		return
	}
	b.tamper(shared)
	// the device's decapsulation: each ciphertext, and right after it a
	// corrupted copy of some (corrupted[i]: its index in the call, or -1)
	capacity := n + n/mlkemCorruptEvery + 8
	decapSeeds, decapCTs := make([][]byte, 0, capacity), make([][]byte, 0, capacity)
	at, corrupted := make([]int, n), make([]int, n)
	for i := range n {
		ct := cts[i]
		if ct == nil {
			ct = make([]byte, s.ciphertextSize) // decapsulated too, for the shape
		}
		at[i], corrupted[i] = len(decapSeeds), -1
		decapSeeds, decapCTs = append(decapSeeds, seeds[i]), append(decapCTs, ct)
		if i == 0 || b.rng.IntN(mlkemCorruptEvery) == 0 {
			c := bytes.Clone(ct)
			c[b.rng.IntN(len(c))] ^= 1 << b.rng.IntN(8)
			corrupted[i] = len(decapSeeds)
			decapSeeds, decapCTs = append(decapSeeds, seeds[i]), append(decapCTs, c)
		}
	}
	keys, err := s.decapsulate(e, decapSeeds, decapCTs)
	decapsulateErrs, ok := elementErrors(err, len(decapSeeds))
	if !ok {
		b.failAll(s.title+" decapsulation", err)
		return
	}
	sample := make([]bool, n)
	for i := range n {
		sample[i] = b.sampled(i)
	}
	var cpuChecked atomic.Int64
	batch.Parallel(n, 64, func(lo, hi int) {
		checked := int64(0)
		for i := lo; i < hi; i++ {
			c := mlkemCase{seed: seeds[i], random: random[i], ek: eks[i], ct: cts[i], shared: shared[i],
				decapsulated: keys[at[i]], keyErr: keyErrs[i], encapsulateErr: encapsulateErrs[i], decapsulateErr: decapsulateErrs[at[i]]}
			if t := corrupted[i]; t >= 0 {
				c.corrupted, c.rejected = decapCTs[t], keys[t]
				if c.decapsulateErr == nil {
					c.decapsulateErr = decapsulateErrs[t]
				}
			}
			what, derr := c.verdict()
			var ref *mlkemReference
			if what == "" && sample[i] {
				checked++
				r := s.reference(&c)
				ref, what = &r, s.compare(&c, r)
			}
			if what != "" {
				if ref == nil {
					r := s.reference(&c)
					ref = &r
				}
				b.fail(i, what, c.input(), c.output(), ref.output(), derr)
			}
		}
		cpuChecked.Add(checked)
	})
	b.stats.cpuChecked.Add(cpuChecked.Load())
}

// verdict judges a case from the device's answers alone (and, for a
// corrupted ciphertext, its implicit-rejection key J(z ‖ c)): what is
// empty where they are right.
func (c *mlkemCase) verdict() (what string, err error) {
	switch {
	case c.keyErr != nil:
		return "the device failed the key generation", c.keyErr
	case c.encapsulateErr != nil:
		return "the device failed the encapsulation", c.encapsulateErr
	case c.decapsulateErr != nil:
		return "the device failed the decapsulation", c.decapsulateErr
	case !bytes.Equal(c.decapsulated, c.shared):
		return "the device's decapsulation differs from its encapsulation's shared key", nil
	case c.corrupted != nil && !bytes.Equal(c.rejected, mlkemRejectionKey(c.seed, c.corrupted)):
		return "the device's key for a corrupted ciphertext is not the implicit-rejection key J(z ‖ c)", nil
	}
	return "", nil
}

// mlkemReference is crypto/mlkem's results of a case: the encapsulation
// key of the seed, the ciphertext and shared key of the randomness (nil
// before Go 1.26), its decapsulation of the device's ciphertext, and of
// the corrupted one (nil: none).
type mlkemReference struct {
	ek, ct, shared, decapsulated, rejected []byte
}

// reference is crypto/mlkem's computation of case c.
func (s *mlkemSet) reference(c *mlkemCase) mlkemReference {
	var r mlkemReference
	dk, ek, err := s.stdKey(c.seed)
	if err != nil {
		return r
	}
	r.ek = ek.Bytes()
	if stdEncapsulateDerandomized != nil {
		r.shared, r.ct, _ = stdEncapsulateDerandomized(ek, c.random)
	}
	if c.ct != nil {
		r.decapsulated, _ = dk.Decapsulate(c.ct)
	}
	if c.corrupted != nil {
		r.rejected, _ = dk.Decapsulate(c.corrupted)
	}
	return r
}

// compare compares the device's results of c with crypto/mlkem's, r;
// what is empty where they agree.
func (s *mlkemSet) compare(c *mlkemCase, r mlkemReference) (what string) {
	switch {
	case !bytes.Equal(c.ek, r.ek):
		return "the device's encapsulation key differs from crypto/mlkem's"
	case stdEncapsulateDerandomized != nil && !bytes.Equal(c.ct, r.ct):
		return "the device's ciphertext differs from crypto/mlkem's"
	case stdEncapsulateDerandomized != nil && !bytes.Equal(c.shared, r.shared):
		return "the device's shared key differs from crypto/mlkem's"
	case !bytes.Equal(c.shared, r.decapsulated):
		return "crypto/mlkem decapsulates the device's ciphertext to another shared key"
	case c.corrupted != nil && !bytes.Equal(c.rejected, r.rejected):
		return "the device's implicit rejection of a corrupted ciphertext differs from crypto/mlkem's"
	}
	return ""
}

// input is a case's inputs for the failures file: the seed, the
// randomness and the corrupted ciphertext decapsulated, if any.
func (c *mlkemCase) input() map[string]string {
	kv := []any{"seed", c.seed, "randomness", c.random}
	if c.corrupted != nil {
		kv = append(kv, "corrupted ciphertext", c.corrupted)
	}
	return hexMap(kv...)
}

// output is the device's results of a case, for the failures file.
func (c *mlkemCase) output() map[string]string {
	kv := []any{"encapsulation key", c.ek, "ciphertext", c.ct, "shared key", c.shared, "decapsulated", c.decapsulated}
	if c.corrupted != nil {
		kv = append(kv, "corrupted decapsulated", c.rejected)
	}
	return hexMap(kv...)
}

// output is crypto/mlkem's results of a case as the case's output has
// the device's (those it has: no ciphertext or shared key of the
// randomness before Go 1.26).
func (r mlkemReference) output() map[string]string {
	kv := []any{"encapsulation key", r.ek, "decapsulated", r.decapsulated}
	if r.ct != nil {
		kv = append(kv, "ciphertext", r.ct, "shared key", r.shared)
	}
	if r.rejected != nil {
		kv = append(kv, "corrupted decapsulated", r.rejected)
	}
	return hexMap(kv...)
}

// Its operations of the soak, `gpucrypto burnin --soak` (soakOperations).

var _ = soakOperations.add(
	soakOperation{name: "mlkem768", algorithm: "mlkem", family: mlkemSoakFamily},
	soakOperation{name: "mlkem1024", algorithm: "mlkem", family: mlkemSoakFamily},
)

// mlkemSoakFamily is the soak of ML-KEM-768 or ML-KEM-1024 (name).
func mlkemSoakFamily(_ *soakRun, name string, rng *mrand.Rand) (soakFamily, error) {
	return newMLKEMSoak(mlkemSetOf(name), rng)
}

// mlkemSoak is ML-KEM in the soak: encapsulation keys and decapsulations
// (of valid and of corrupted ciphertexts) compared with crypto/mlkem's,
// and encapsulations, whose randomness is fresh, decapsulated by
// crypto/mlkem, which must give their shared keys.
type mlkemSoak struct {
	set   *mlkemSet
	cases []mlkemSoakCase
}

// mlkemSoakCase is a seed, crypto/mlkem's key of it, an encapsulation to
// it (ciphertext and shared key), and a copy of the ciphertext with one
// bit changed with crypto/mlkem's decapsulation of it (the implicit
// rejection).
type mlkemSoakCase struct {
	seed, ek            []byte
	dk                  stdDecapsulator
	ct, shared          []byte
	corrupted, rejected []byte
}

// newMLKEMSoak makes the cases of s from rng (the encapsulations'
// randomness too, where crypto/mlkem/mlkemtest takes it: Go 1.26).
func newMLKEMSoak(s *mlkemSet, rng *mrand.Rand) (*mlkemSoak, error) {
	c := &soakCheck{rng: rng}
	soak := &mlkemSoak{set: s}
	for range soakCases {
		k := mlkemSoakCase{seed: c.bytes(mlkem.SeedSize)}
		dk, ek, err := s.stdKey(k.seed)
		if err != nil {
			return nil, err
		}
		k.dk, k.ek = dk, ek.Bytes()
		if stdEncapsulateDerandomized != nil {
			if k.shared, k.ct, err = stdEncapsulateDerandomized(ek, c.bytes(mlkem.RandomnessSize)); err != nil {
				return nil, err
			}
		} else {
			k.shared, k.ct = ek.Encapsulate()
		}
		k.corrupted = bytes.Clone(k.ct)
		k.corrupted[rng.IntN(len(k.corrupted))] ^= 1 << rng.IntN(8)
		if k.rejected, err = dk.Decapsulate(k.corrupted); err != nil {
			return nil, err
		}
		soak.cases = append(soak.cases, k)
	}
	return soak, nil
}

func (s *mlkemSoak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := mlkem.NewEngine(d)
	if err != nil {
		return nil, err
	}
	return &mlkemSoakEngine{Engine: e, soak: s}, nil
}

type mlkemSoakEngine struct {
	*mlkem.Engine
	soak *mlkemSoak
}

// pick draws the cases of a call of n elements: one in four the case of
// the element before (the requests of one key, which share its
// expansion), the others at random.
func (s *mlkemSoak) pick(c *soakCheck, n int) []*mlkemSoakCase {
	cases := make([]*mlkemSoakCase, n)
	for i := range cases {
		if i > 0 && c.rng.IntN(4) == 0 {
			cases[i] = cases[i-1]
		} else {
			cases[i] = &s.cases[c.rng.IntN(len(s.cases))]
		}
	}
	return cases
}

// call computes n encapsulation keys (one call in four), n encapsulations
// (one in four) or n decapsulations (one in four of a corrupted
// ciphertext).
func (e *mlkemSoakEngine) call(c *soakCheck, n int) error {
	s := e.soak
	cases := s.pick(c, n)
	seeds, eks := make([][]byte, n), make([][]byte, n)
	for i, k := range cases {
		seeds[i], eks[i] = k.seed, k.ek
	}
	switch c.rng.IntN(4) {
	case 0:
		got, err := s.set.keyGen(e.Engine, seeds)
		if err != nil {
			return err
		}
		for i, k := range cases {
			s.checkKeyGen(c, k, got[i], "Engine")
		}
	case 1:
		shared, cts, err := s.set.encapsulate(e.Engine, eks)
		if err != nil {
			return err
		}
		batch.Parallel(n, 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				s.checkEncapsulate(c, cases[i], shared[i], cts[i], "Engine")
			}
		})
	default:
		cts, corrupted := make([][]byte, n), make([]bool, n)
		for i, k := range cases {
			cts[i] = k.ct
			if c.rng.IntN(4) == 0 {
				cts[i], corrupted[i] = k.corrupted, true
			}
		}
		got, err := s.set.decapsulate(e.Engine, seeds, cts)
		if err != nil {
			return err
		}
		for i, k := range cases {
			s.checkDecapsulate(c, k, corrupted[i], got[i], "Engine")
		}
	}
	return nil
}

func (s *mlkemSoak) checkKeyGen(c *soakCheck, k *mlkemSoakCase, ek []byte, via string) {
	if !bytes.Equal(ek, k.ek) {
		c.mismatch(via+" encapsulation key differs from crypto/mlkem's", hexMap("seed", k.seed), hexMap("encapsulation key", ek), hexMap("encapsulation key", k.ek))
	}
}

// checkEncapsulate checks an encapsulation to k's key: crypto/mlkem
// decapsulates its ciphertext to its shared key.
func (s *mlkemSoak) checkEncapsulate(c *soakCheck, k *mlkemSoakCase, shared, ct []byte, via string) {
	want, err := k.dk.Decapsulate(ct)
	if err != nil || !bytes.Equal(shared, want) {
		c.mismatch(fmt.Sprintf("%s encapsulation: crypto/mlkem decapsulates its ciphertext to another shared key (%v)", via, err),
			hexMap("seed", k.seed, "ciphertext", ct), hexMap("shared key", shared), hexMap("shared key", want))
	}
}

// checkDecapsulate checks the decapsulation of k's ciphertext (or of its
// corrupted copy).
func (s *mlkemSoak) checkDecapsulate(c *soakCheck, k *mlkemSoakCase, corrupted bool, got []byte, via string) {
	ct, want := k.ct, k.shared
	if corrupted {
		ct, want = k.corrupted, k.rejected
	}
	if !bytes.Equal(got, want) {
		c.mismatch(via+" decapsulation differs from crypto/mlkem's", hexMap("seed", k.seed, "ciphertext", ct, "corrupted", corrupted),
			hexMap("shared key", got), hexMap("shared key", want))
	}
}

func (e *mlkemSoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := mlkem.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	return &mlkemSoakServer{Server: srv, soak: e.soak}, nil
}

type mlkemSoakServer struct {
	*mlkem.Server
	soak *mlkemSoak
}

// call computes one encapsulation key (one call in four), one
// encapsulation (one in four) or one decapsulation (one in four of a
// corrupted ciphertext).
func (s *mlkemSoakServer) call(c *soakCheck) error {
	soak := s.soak
	k := &soak.cases[c.rng.IntN(len(soak.cases))]
	ctx, p := context.Background(), soak.set.params
	switch c.rng.IntN(4) {
	case 0:
		ek, err := s.KeyGen(ctx, p, k.seed)
		if err != nil {
			return err
		}
		soak.checkKeyGen(c, k, ek, "Server")
	case 1:
		shared, ct, err := s.Encapsulate(ctx, p, k.ek)
		if err != nil {
			return err
		}
		soak.checkEncapsulate(c, k, shared, ct, "Server")
	default:
		ct, corrupted := k.ct, c.rng.IntN(4) == 0
		if corrupted {
			ct = k.corrupted
		}
		got, err := s.Decapsulate(ctx, p, k.seed, ct)
		if err != nil {
			return err
		}
		soak.checkDecapsulate(c, k, corrupted, got, "Server")
	}
	return nil
}
