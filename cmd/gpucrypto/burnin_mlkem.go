package main

import (
	"bytes"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

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
