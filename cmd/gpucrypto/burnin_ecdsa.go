package main

import (
	"bytes"
	stdecdh "crypto/ecdh"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdsa"
)

var _ = burninOps.add(ecdsaBurninOp("ecdsa", 131072))

// ecdsaTamperEvery: the first signature of each batch and about one in
// this many others are verified on the device a second time with one bit
// changed, and must be refused.
const ecdsaTamperEvery = 8

// ecdsaOddHashEvery: about one hash in this many is not SHA-256's size
// but 20 bytes (shorter than the group order) or 64 (truncated to its
// leftmost 256 bits).
const ecdsaOddHashEvery = 16

// ecdsaKeyCount is the number of P-256 keys of the burn-in, made once per
// run and operation from --seed (generating one per case would bound the
// rate by the host).
const ecdsaKeyCount = 64

// ecdsaBurninOp checks ECDSA over P-256 on the device. A case is one of
// ecdsaKeyCount keys (derived from --seed) and a random hash (32 bytes;
// about one in ecdsaOddHashEvery 20 or 64): the device signs it
// (SignASN1, or SignASN1Into in about half the batches; hedged nonces
// from the batch's random stream) and verifies
// the signature (VerifyASN1), which must be valid (a check of every case
// that needs no CPU: a wrong signature fails it); the first case of each
// batch and about one in ecdsaTamperEvery are verified again with one bit
// of the signature changed, which must be refused. A sample (--cpu-sample)
// is checked with crypto/ecdsa: the device's signature must verify, and
// crypto/ecdsa's verdict on the corrupted copy must be the device's.
// (Signatures are randomized: there is no CPU signature to compare byte
// for byte.) Each case checks ECDH over P-256 too (checkP256ECDH).
func ecdsaBurninOp(name string, gpuBatch int) burninOp {
	return burninOp{name: name, algorithm: "ecdsa", batchGPU: gpuBatch, batchCPU: 256, prepare: func(r *burninRun) (burninCheck, error) {
		e, err := burninEngineOf(r, ecdsa.NewEngine)
		if err != nil {
			return nil, err
		}
		keys, err := ecdsaKeys(r.batchSeed(name+" keys", 0), ecdsaKeyCount)
		if err != nil {
			return nil, err
		}
		return func(b *burninBatch) { checkECDSA(b, e, keys) }, nil
	}}
}

// ecdsaKey is a key of the burn-in: as crypto/ecdsa's key, as
// crypto/ecdh's and its scalar (for ECDH), and its public point,
// uncompressed (04 ‖ X ‖ Y: what a failure record shows of it).
type ecdsaKey struct {
	priv   *stdecdsa.PrivateKey
	ecdh   *stdecdh.PrivateKey
	scalar []byte
	point  []byte
}

// ecdsaKeys derives count P-256 keys from seed: scalars are 32 bytes of a
// ChaCha8 stream, taken by crypto/ecdh (which refuses 0 and those not
// below the group order: the next 32 bytes are taken then), and its
// public point gives the crypto/ecdsa key's X and Y. (crypto/ecdsa's
// GenerateKey reads crypto/rand whatever reader it is given.)
func ecdsaKeys(seed [32]byte, count int) ([]ecdsaKey, error) {
	stream := mrand.NewChaCha8(seed)
	keys := make([]ecdsaKey, count)
	for i := range keys {
		var scalar [32]byte
		var k *stdecdh.PrivateKey
		for tries := 0; k == nil; tries++ {
			if tries == 8 {
				return nil, fmt.Errorf("ecdsa keys: no valid scalar in %d tries", tries)
			}
			stream.Read(scalar[:])
			k, _ = stdecdh.P256().NewPrivateKey(scalar[:])
		}
		point := k.PublicKey().Bytes() // 04 ‖ X ‖ Y
		keys[i] = ecdsaKey{point: point, ecdh: k, scalar: k.Bytes(), priv: &stdecdsa.PrivateKey{
			PublicKey: stdecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(point[1:33]), Y: new(big.Int).SetBytes(point[33:65])},
			D:         new(big.Int).SetBytes(scalar[:]),
		}}
		clear(scalar[:])
	}
	return keys, nil
}

// ecdsaHashLength is a random hash length: 32 bytes, about one in
// ecdsaOddHashEvery 20 or 64.
func (b *burninBatch) ecdsaHashLength() int {
	if b.rng.IntN(ecdsaOddHashEvery) == 0 {
		return []int{20, 64}[b.rng.IntN(2)]
	}
	return 32
}

func checkECDSA(b *burninBatch, e *ecdsa.Engine, pool []ecdsaKey) {
	n := b.n
	keys := make([]*ecdsaKey, n)
	privs := make([]*stdecdsa.PrivateKey, n)
	hashes := make([][]byte, n)
	lengths := make([]int, n)
	total := 0
	for i := range n {
		keys[i] = &pool[b.rng.IntN(len(pool))]
		privs[i] = keys[i].priv
		lengths[i] = b.ecdsaHashLength()
		total += lengths[i]
	}
	slab := b.bytes(total)
	for i, off := 0, 0; i < n; i++ {
		hashes[i] = slab[off : off+lengths[i] : off+lengths[i]]
		off += lengths[i]
	}
	// the nonces' random bytes: a stream from the batch's seed, so that a
	// run's signatures depend on --seed only
	random := mrand.NewChaCha8([32]byte(b.bytes(32)))
	sign, sigs := "SignASN1", [][]byte(nil)
	var err error
	if b.rng.IntN(2) == 0 {
		sigs, err = e.SignASN1(random, privs, hashes)
	} else {
		// into outputs of the caller's, as a server reusing them signs:
		// most written in place, some (nil) made anew
		sign, sigs = "SignASN1Into", make([][]byte, n)
		outs := make([]byte, n*ecdsa.MaxASN1Size)
		for i := range sigs {
			if b.rng.IntN(8) != 0 {
				sigs[i] = outs[i*ecdsa.MaxASN1Size : i*ecdsa.MaxASN1Size : (i+1)*ecdsa.MaxASN1Size]
			}
		}
		err = e.SignASN1Into(random, privs, hashes, sigs)
	}
	signErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll(sign, err)
		return
	}
	b.tamper(sigs)
	// the device's verification: every signature, then a corrupted copy of
	// some (tampered[i]: the index of case i's copy in the call, or -1)
	pubs := make([]*stdecdsa.PublicKey, n, n+n/ecdsaTamperEvery+8)
	vhashes := append(make([][]byte, 0, cap(pubs)), hashes...)
	vsigs := make([][]byte, n, cap(pubs))
	tampered := make([]int, n)
	for i := range n {
		tampered[i] = -1
		pubs[i] = &privs[i].PublicKey
		vsigs[i] = sigs[i]
		if len(vsigs[i]) == 0 {
			vsigs[i] = make([]byte, 72) // verified too, for the shape; refused
		}
		if i == 0 || b.rng.IntN(ecdsaTamperEvery) == 0 {
			s := bytes.Clone(vsigs[i])
			s[b.rng.IntN(len(s))] ^= 1 << b.rng.IntN(8)
			tampered[i] = len(vsigs)
			pubs, vhashes, vsigs = append(pubs, pubs[i]), append(vhashes, hashes[i]), append(vsigs, s)
		}
	}
	verdicts, err := e.VerifyASN1(pubs, vhashes, vsigs)
	verifyErrs, ok := elementErrors(err, len(pubs))
	if !ok {
		b.failAll("VerifyASN1", err)
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
			t := tampered[i]
			what, derr := signatureVerdict(signErrs[i], verifyErrs, verdicts, i, t)
			if what == "" && sample[i] {
				checked++
				switch {
				case !stdecdsa.VerifyASN1(pubs[i], hashes[i], sigs[i]):
					what = "the device's signature does not verify on the CPU"
				case t >= 0 && stdecdsa.VerifyASN1(pubs[i], hashes[i], vsigs[t]) != verdicts[t]:
					what = "the CPU accepts the corrupted signature that the device refused"
				}
			}
			if what != "" {
				b.fail(i, what, ecdsaInput(keys[i], hashes[i], vsigs, t),
					ecdsaOutput(sigs[i], verdicts, i, t), ecdsaReference(pubs[i], hashes[i], sigs[i], vsigs, t), derr)
			}
		}
		cpuChecked.Add(checked)
	})
	b.stats.cpuChecked.Add(cpuChecked.Load())
	checkP256ECDH(b, e, pool, keys, sample)
}

// checkP256ECDH checks ECDH over P-256 on the device with the batch's
// keys: case i's key a and a key c of the pool, at random, give the same
// shared secret both ways (a with c's point, c with a's, in one call: a
// check of every case that needs no CPU), and a's public key from the
// device (PublicKeys) must be the pool's, which crypto/ecdh computed. The
// cases of the signatures' CPU sample (sample[i]) are checked against
// crypto/ecdh's shared secret too.
func checkP256ECDH(b *burninBatch, e *ecdsa.Engine, pool []ecdsaKey, keys []*ecdsaKey, sample []bool) {
	n := len(keys)
	privs, peers, others := make([][]byte, 2*n), make([][]byte, 2*n), make([]*ecdsaKey, n)
	for i, a := range keys {
		c := &pool[b.rng.IntN(len(pool))]
		others[i] = c
		privs[i], peers[i] = a.scalar, c.point
		privs[n+i], peers[n+i] = c.scalar, a.point
	}
	secrets, err := e.ECDH(privs, peers)
	errs, ok := elementErrors(err, 2*n)
	if !ok {
		b.failAll("ECDH", err)
		return
	}
	b.tamper(secrets)
	pubs, err := e.PublicKeys(privs[:n])
	pubErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll("PublicKeys", err)
		return
	}
	batch.Parallel(n, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var what string
			var derr error
			switch {
			case errs[i] != nil || errs[n+i] != nil:
				what, derr = "the device failed the shared secret", errors.Join(errs[i], errs[n+i])
			case pubErrs[i] != nil:
				what, derr = "the device failed the public key", pubErrs[i]
			case !bytes.Equal(secrets[i], secrets[n+i]):
				what = "the shared secret differs from the peer's"
			case !bytes.Equal(pubs[i], keys[i].point):
				what = "the public key differs from crypto/ecdh's"
			}
			var want []byte
			if what != "" || sample[i] {
				want, _ = keys[i].ecdh.ECDH(others[i].ecdh.PublicKey())
				if what == "" && !bytes.Equal(secrets[i], want) {
					what = "the shared secret differs from crypto/ecdh's"
				}
			}
			if what != "" {
				b.fail(i, what, hexMap("public key", keys[i].point, "peer public key", others[i].point),
					hexMap("shared secret", secrets[i], "peer's shared secret", secrets[n+i], "public key", pubs[i]),
					hexMap("shared secret", want, "public key", keys[i].point), derr)
			}
		}
	})
}

// ecdsaInput is a case's inputs for the failures file: the key's public
// point (never its scalar: the keys come from --seed), the hash and the
// corrupted signature verified, if any.
func ecdsaInput(key *ecdsaKey, hash []byte, vsigs [][]byte, t int) map[string]string {
	if t < 0 {
		return hexMap("public key", key.point, "hash", hash)
	}
	return hexMap("public key", key.point, "hash", hash, "corrupted signature", vsigs[t])
}

// ecdsaOutput is the device's results of case i: its signature and its
// verdicts on it and on the corrupted copy.
func ecdsaOutput(sig []byte, verdicts []bool, i, t int) map[string]string {
	m := hexMap("signature", sig, "valid", verdicts[i])
	if t >= 0 {
		m["corrupted valid"] = fmt.Sprint(verdicts[t])
	}
	return m
}

// ecdsaReference is crypto/ecdsa's verdicts on the device's signature of
// a case and on its corrupted copy, as ecdsaOutput.
func ecdsaReference(pub *stdecdsa.PublicKey, hash, sig []byte, vsigs [][]byte, t int) map[string]string {
	m := hexMap("valid", stdecdsa.VerifyASN1(pub, hash, sig))
	if t >= 0 {
		m["corrupted valid"] = fmt.Sprint(stdecdsa.VerifyASN1(pub, hash, vsigs[t]))
	}
	return m
}
