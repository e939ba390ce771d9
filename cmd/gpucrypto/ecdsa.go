package main

// This file is ECDSA and ECDH on P-256 (ecdsa)'s part of the CLI: its group of `gpucrypto bench`
// (bench ecdsa), its rows of `gpucrypto bench server`, and its operations
// of `gpucrypto burnin` and of its soak (burnin --soak), in that order,
// each added to the tables of tables.go. An algorithm new to the CLI adds
// one such file, named after it.

import (
	"bytes"
	"context"
	"crypto"
	stdecdh "crypto/ecdh"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdsa"
)

// Its group of `gpucrypto bench`, bench ecdsa (benchGroups).

// The operations of bench ecdsa: P-256 verification of ASN.1 DER
// signatures, signing, ECDH shared secrets and public keys.
var _ = benchGroups.add(benchGroup{
	name: "ecdsa", algorithm: "ecdsa",
	what:       "ECDSA P-256 verification and signing vs crypto/ecdsa, P-256 ECDH vs crypto/ecdh",
	ops:        []string{"ecdsa-p256-verify", "ecdsa-p256-sign", "ecdh-p256", "ecdh-p256-keygen"},
	gpuBatches: []int{16384, 131072, 1048576}, cpuBatches: []int{1024},
	batchNote: "; signatures of SHA-256 hashes by 256 keys, ECDH of random key pairs",
	flags:     ecdsaBenchFlags,
})

// ecdsaBenchFlags are the flags of bench ecdsa: --ecdsa-alloc.
func ecdsaBenchFlags(fs *flag.FlagSet, alone bool) func() (benchPlan, error) {
	alloc := fs.Bool("ecdsa-alloc", false, "ecdsa-p256-sign: signatures in new slices each call (SignASN1) instead of the caller's reused ones (SignASN1Into)")
	return func() (benchPlan, error) {
		return func(r *benchRun, op string, batches []int) []benchCase {
			var cases []benchCase
			for _, n := range batches {
				cases = append(cases, benchCase{op: op, bits: 256, batch: n, measure: func() (benchResult, error) {
					e, err := benchEngineOf(r, ecdsa.NewEngine)
					if err != nil {
						return benchResult{}, err
					}
					return benchECDSA(e, op, n, *alloc, r.dur)
				}})
			}
			return cases
		}, nil
	}
}

// benchECDSA measures op (verification or signing) on batches of n
// elements: 256
// distinct keys (cycled), n distinct SHA-256 hashes, crypto/ecdsa's
// signatures of them (512 signed, cycled: signing a million on the CPU
// would take most of a minute); the CPU figure is crypto/ecdsa on all
// cores in the same run. Signatures go into slices each caller reuses
// (SignASN1Into), or with alloc into new ones each call (SignASN1).
func benchECDSA(e *ecdsa.Engine, op string, n int, alloc bool, dur time.Duration) (benchResult, error) {
	if op == "ecdh-p256" || op == "ecdh-p256-keygen" {
		return benchP256ECDH(e, op, n, dur)
	}
	const distinctKeys, distinctSigs = 256, 512
	keys := make([]*stdecdsa.PrivateKey, distinctKeys)
	for i := range keys {
		k, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return benchResult{}, err
		}
		keys[i] = k
	}
	type signed struct {
		pub       *stdecdsa.PublicKey
		hash, sig []byte
	}
	sigs := make([]signed, distinctSigs)
	for i := range sigs {
		var m [8]byte
		binary.LittleEndian.PutUint64(m[:], uint64(i))
		h := sha256.Sum256(m[:])
		k := keys[i%distinctKeys]
		sig, err := stdecdsa.SignASN1(rand.Reader, k, h[:])
		if err != nil {
			return benchResult{}, err
		}
		sigs[i] = signed{&k.PublicKey, h[:], sig}
	}
	pubs := make([]*stdecdsa.PublicKey, n)
	hashes, ders := make([][]byte, n), make([][]byte, n)
	for i := range n {
		s := sigs[i%distinctSigs]
		pubs[i], hashes[i], ders[i] = s.pub, s.hash, s.sig
	}
	privs := make([]*stdecdsa.PrivateKey, n)
	for i := range privs {
		privs[i] = keys[i%distinctKeys]
	}
	sign := op == "ecdsa-p256-sign"
	var outs chan [][]byte
	if sign && !alloc {
		outs = callerOutputs(signaturePipeline+1, n, ecdsa.MaxASN1Size) // the pipelined figure's callers, and one
	}
	run := func() (time.Duration, error) {
		t0 := e.Stats().DeviceTime
		var err error
		if sign {
			var sigs [][]byte
			if alloc {
				sigs, err = e.SignASN1(nil, privs, hashes)
			} else {
				sigs = <-outs
				defer func() { outs <- sigs }()
				err = e.SignASN1Into(nil, privs, hashes, sigs)
			}
			if err == nil && !stdecdsa.VerifyASN1(&privs[n-1].PublicKey, hashes[n-1], sigs[n-1]) {
				err = fmt.Errorf("a signature does not verify under crypto/ecdsa")
			}
		} else {
			var ok []bool
			ok, err = e.VerifyASN1(pubs, hashes, ders)
			if err == nil && (!ok[0] || !ok[n-1]) {
				err = fmt.Errorf("a valid signature was rejected")
			}
		}
		return e.Stats().DeviceTime - t0, err
	}
	r, err := measureEngine(e, op, 256, n, dur, run, func(i int) {
		s := sigs[i%distinctSigs]
		if sign {
			stdecdsa.SignASN1(rand.Reader, keys[i%distinctKeys], s.hash)
			return
		}
		stdecdsa.VerifyASN1(s.pub, s.hash, s.sig)
	})
	r.IntoCallerBuffers = sign && !alloc
	return r, err
}

// benchP256ECDH measures ECDH over P-256 on batches of n elements:
// shared secrets (ecdh-p256, Engine.ECDH) or public keys
// (ecdh-p256-keygen, Engine.PublicKeys), with 256 distinct key pairs,
// cycled (the kernels take the same time for every key). The CPU figure
// is crypto/ecdh on all cores in the same run: PrivateKey.ECDH on keys
// parsed beforehand, and for keygen NewPrivateKey (which computes the
// public key).
func benchP256ECDH(e *ecdsa.Engine, op string, n int, dur time.Duration) (benchResult, error) {
	const distinct = 256
	keys := make([]*stdecdh.PrivateKey, distinct)
	scalars, points := make([][]byte, distinct), make([][]byte, distinct)
	for i := range keys {
		k, err := stdecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return benchResult{}, err
		}
		keys[i], scalars[i], points[i] = k, k.Bytes(), k.PublicKey().Bytes()
	}
	// element i: key i mod distinct, its peer the next key's public key
	privs, peers := make([][]byte, n), make([][]byte, n)
	for i := range n {
		privs[i], peers[i] = scalars[i%distinct], points[(i+1)%distinct]
	}
	keygen := op == "ecdh-p256-keygen"
	last := n - 1
	want := points[last%distinct]
	if !keygen {
		var err error
		if want, err = keys[last%distinct].ECDH(keys[(last+1)%distinct].PublicKey()); err != nil {
			return benchResult{}, err
		}
	}
	run := func() (time.Duration, error) {
		t0 := e.Stats().DeviceTime
		var out [][]byte
		var err error
		if keygen {
			out, err = e.PublicKeys(privs)
		} else {
			out, err = e.ECDH(privs, peers)
		}
		if err == nil && !bytes.Equal(out[last], want) {
			err = fmt.Errorf("%s: element %d differs from crypto/ecdh's", op, last)
		}
		return e.Stats().DeviceTime - t0, err
	}
	return measureEngine(e, op, 256, n, dur, run, func(i int) {
		k := i % distinct
		if keygen {
			stdecdh.P256().NewPrivateKey(scalars[k])
			return
		}
		keys[k].ECDH(keys[(k+1)%distinct].PublicKey())
	})
}

// Its rows of `gpucrypto bench server` (serverOps).

var _ = serverOps.add(
	serverOp{name: "ecdsa-p256-sign", algorithm: "ecdsa", what: "ecdsa.Server.SignASN1, nonces hedged from crypto/rand", goPackage: "crypto/ecdsa",
		forms: []string{formBlocking, formAsync}, start: startECDSASign},
	serverOp{name: "ecdsa-p256-sign-rfc6979", algorithm: "ecdsa", what: "ecdsa.Server's Signer with a nil source: RFC 6979's deterministic nonces", goPackage: "crypto/ecdsa",
		forms: []string{formBlocking, formAsync}, start: startECDSASignDeterministic},
	serverOp{name: "ecdsa-p256-verify", algorithm: "ecdsa", what: "VerifyASN1", goPackage: "crypto/ecdsa",
		forms: []string{formBlocking, formAsync}, start: startECDSAVerify},
	serverOp{name: "ecdh-p256", algorithm: "ecdsa", what: "ecdsa.Server.ECDH", goPackage: "crypto/ecdh",
		forms: []string{formBlocking, formAsync}, start: startP256ECDH},
)

// startECDSA starts an ecdsa.Server for the P-256 operations, its device
// engines warmed with warm.
func startECDSA(devs []*device.Device, opts batch.Options, warm func(*ecdsa.Engine) error) (*ecdsa.Server, []*ecdsa.Engine, error) {
	engines, err := newEngines(devs, warmedOn(ecdsa.NewEngine, warm), ecdsa.CPUEngine)
	if err != nil {
		return nil, nil, err
	}
	s, err := ecdsa.NewServer(opts, engines...)
	if err != nil {
		closeEngines(engines)
		return nil, nil, err
	}
	return s, engines, nil
}

// newECDSAKey is a P-256 key for an ECDSA operation, and the engines'
// warm-up that signs with it.
func newECDSAKey() (*stdecdsa.PrivateKey, func(*ecdsa.Engine) error, error) {
	key, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	return key, func(e *ecdsa.Engine) error {
		_, err := e.SignASN1(rand.Reader, []*stdecdsa.PrivateKey{key}, [][]byte{serverDigest[:]})
		return err
	}, nil
}

// startECDSASign: signatures hedged from crypto/rand (Server.SignASN1,
// crypto/ecdsa.SignASN1).
func startECDSASign(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	key, warm, err := newECDSAKey()
	if err != nil {
		return nil, err
	}
	s, engines, err := startECDSA(devs, opts, warm)
	if err != nil {
		return nil, err
	}
	hash := serverDigest[:]
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := s.SignASN1(ctx, rand.Reader, key, hash)
			return err
		}),
		newGoCaller: goECDSASign(key, hash),
		newSubmitter: func(window int) submitter {
			return newECDSASubmitter(func(done chan *ecdsa.Call) ecdsa.Call {
				return ecdsa.Call{Key: key, Hash: hash, Done: done}
			}, s.Go, window)
		},
		check: func(ctx context.Context) error {
			sig, err := s.SignASN1(ctx, rand.Reader, key, hash)
			if err != nil {
				return err
			}
			if !stdecdsa.VerifyASN1(&key.PublicKey, hash, sig) {
				return fmt.Errorf("bench server: ecdsa-p256-sign: crypto/ecdsa rejects the Server's signature %x", sig)
			}
			return nil
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// startECDSASignDeterministic: RFC 6979's deterministic signatures (the
// Server's Signer and crypto/ecdsa's PrivateKey.Sign, both with a nil
// source of randomness). The Signer's Sign takes no context: the
// callers' is not passed on.
func startECDSASignDeterministic(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	key, warm, err := newECDSAKey()
	if err != nil {
		return nil, err
	}
	s, engines, err := startECDSA(devs, opts, warm)
	if err != nil {
		return nil, err
	}
	signer, err := s.Signer(key)
	if err != nil {
		s.Close()
		closeEngines(engines)
		return nil, err
	}
	hash := serverDigest[:]
	return &serverBench{
		newCaller: sameCaller(func(context.Context) error {
			_, err := signer.Sign(nil, hash, crypto.SHA256)
			return err
		}),
		newGoCaller: goECDSASignDeterministic(key, hash),
		newSubmitter: func(window int) submitter {
			return newECDSASubmitter(func(done chan *ecdsa.Call) ecdsa.Call {
				return ecdsa.Call{Hash: hash, Done: done} // a nil Rand: RFC 6979's nonce
			}, signer.Go, window)
		},
		check: func(context.Context) error {
			sig, err := signer.Sign(nil, hash, crypto.SHA256)
			if err != nil {
				return err
			}
			std, err := key.Sign(nil, hash, crypto.SHA256)
			if err != nil {
				return err
			}
			return checkEqual("ecdsa-p256-sign-rfc6979", sig, std)
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// startECDSAVerify: verifications of a valid DER signature
// (ecdsa.Server.VerifyASN1, crypto/ecdsa.VerifyASN1).
func startECDSAVerify(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	key, _, err := newECDSAKey()
	if err != nil {
		return nil, err
	}
	hash := serverDigest[:]
	sig, err := stdecdsa.SignASN1(rand.Reader, key, hash)
	if err != nil {
		return nil, err
	}
	pub := &key.PublicKey
	s, engines, err := startECDSA(devs, opts, func(e *ecdsa.Engine) error {
		_, err := e.VerifyASN1([]*stdecdsa.PublicKey{pub}, [][]byte{hash}, [][]byte{sig})
		return err
	})
	if err != nil {
		return nil, err
	}
	verify := func(ctx context.Context) error {
		ok, err := s.VerifyASN1(ctx, pub, hash, sig)
		if err == nil && !ok {
			err = fmt.Errorf("ecdsa-p256-verify: %w", errRejected)
		}
		return err
	}
	return &serverBench{
		newCaller:   sameCaller(verify),
		newGoCaller: goECDSAVerify(pub, hash, sig),
		newSubmitter: func(window int) submitter {
			return newECDSASubmitter(func(done chan *ecdsa.Call) ecdsa.Call {
				return ecdsa.Call{Pub: pub, Hash: hash, Signature: sig, Done: done}
			}, s.Go, window)
		},
		check: verify,
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// startP256ECDH: P-256 shared secrets of a private key (32 bytes) and a
// peer's public key (65 bytes, uncompressed), as a TLS server's ECDHE
// over P-256 computes one per handshake.
func startP256ECDH(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	curve := stdecdh.P256()
	mine, err := curve.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	theirs, err := curve.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	priv, peer := mine.Bytes(), theirs.PublicKey().Bytes()
	goCaller, err := goECDH(curve, priv, peer)
	if err != nil {
		return nil, err
	}
	s, engines, err := startECDSA(devs, opts, func(e *ecdsa.Engine) error {
		_, err := e.ECDH([][]byte{priv}, [][]byte{peer})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := s.ECDH(ctx, priv, peer)
			return err
		}),
		newGoCaller: goCaller,
		newSubmitter: func(window int) submitter {
			return newECDSASubmitter(func(done chan *ecdsa.Call) ecdsa.Call {
				return ecdsa.Call{Priv: priv, Peer: peer, Done: done}
			}, s.Go, window)
		},
		check: func(ctx context.Context) error {
			secret, err := s.ECDH(ctx, priv, peer)
			if err != nil {
				return err
			}
			std, err := stdECDH(curve, priv, peer)
			if err != nil {
				return err
			}
			return checkEqual("ecdh-p256", secret, std)
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// newECDSASubmitter submits the calls that call makes (a signing, a
// verification or an ECDH of ecdsa.Server.Go, or through submit a
// Signer's signing) for the P-256 operations.
func newECDSASubmitter(call func(done chan *ecdsa.Call) ecdsa.Call, submit func(context.Context, *ecdsa.Call) error, window int) submitter {
	return newCallSubmitter(window, call, submit, func(c *ecdsa.Call) error {
		if c.Err == nil && c.Pub != nil && !c.Valid {
			return fmt.Errorf("ecdsa-p256-verify: %w", errRejected)
		}
		return c.Err
	})
}

// goECDSASign: crypto/ecdsa's signature of hash hedged from crypto/rand
// (SignASN1).
func goECDSASign(key *stdecdsa.PrivateKey, hash []byte) func() func() error {
	return sameGoCaller(func() error {
		_, err := stdecdsa.SignASN1(rand.Reader, key, hash)
		return err
	})
}

// goECDSASignDeterministic: crypto/ecdsa's RFC 6979 signature of hash
// (PrivateKey.Sign with a nil source of randomness).
func goECDSASignDeterministic(key *stdecdsa.PrivateKey, hash []byte) func() func() error {
	return sameGoCaller(func() error {
		_, err := key.Sign(nil, hash, crypto.SHA256)
		return err
	})
}

// goECDSAVerify: crypto/ecdsa's verification of a valid DER signature.
func goECDSAVerify(pub *stdecdsa.PublicKey, hash, sig []byte) func() func() error {
	return sameGoCaller(func() error {
		if !stdecdsa.VerifyASN1(pub, hash, sig) {
			return fmt.Errorf("crypto/ecdsa: %w", errRejected)
		}
		return nil
	})
}

// Its operations of `gpucrypto burnin` (burninOps).

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

// Its operations of the soak, `gpucrypto burnin --soak` (soakOperations).

var _ = soakOperations.add(soakOperation{name: "ecdsa", algorithm: "ecdsa",
	family: func(_ *soakRun, _ string, rng *mrand.Rand) (soakFamily, error) { return newECDSASoak(rng) }})

// ecdsaSoakKeys is the number of P-256 keys of the ECDSA soak.
const ecdsaSoakKeys = 16

// ecdsaSoak is P-256 in the soak: ECDSA signatures verified by
// crypto/ecdsa (they are randomized), verdicts on valid and altered
// signatures compared with crypto/ecdsa's, and ECDH secrets compared with
// crypto/ecdh's.
type ecdsaSoak struct {
	keys  []*stdecdsa.PrivateKey
	cases []ecdsaSoakCase
}

// ecdsaSoakCase is a hash signed by keys[key] (crypto/ecdsa), an altered
// copy of the signature with crypto/ecdsa's verdict on it, and an ECDH
// case: a private key, a peer's public key and their secret.
type ecdsaSoakCase struct {
	key                int
	hash, sig          []byte
	altered            []byte
	alteredValid       bool
	priv, peer, secret []byte
}

func newECDSASoak(rng *mrand.Rand) (*ecdsaSoak, error) {
	c := &soakCheck{rng: rng}
	s := &ecdsaSoak{}
	for range ecdsaSoakKeys {
		k, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		s.keys = append(s.keys, k)
	}
	for i := range soakCases {
		k := ecdsaSoakCase{key: i % len(s.keys), hash: c.bytes(32)}
		key := s.keys[k.key]
		var err error
		if k.sig, err = stdecdsa.SignASN1(rand.Reader, key, k.hash); err != nil {
			return nil, err
		}
		k.altered = bytes.Clone(k.sig)
		k.altered[len(k.altered)-1-rng.IntN(8)] ^= 1 << rng.IntN(8) // in s: the encoding stays well formed
		k.alteredValid = stdecdsa.VerifyASN1(&key.PublicKey, k.hash, k.altered)
		a, err := stdecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		b, err := stdecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		if k.secret, err = a.ECDH(b.PublicKey()); err != nil {
			return nil, err
		}
		k.priv, k.peer = a.Bytes(), b.PublicKey().Bytes()
		s.cases = append(s.cases, k)
	}
	return s, nil
}

func (s *ecdsaSoak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := ecdsa.NewEngine(d)
	if err != nil {
		return nil, err
	}
	return &ecdsaSoakEngine{Engine: e, soak: s}, nil
}

type ecdsaSoakEngine struct {
	*ecdsa.Engine
	soak *ecdsaSoak
}

// call signs n hashes, verifies n signatures (one in four altered) or
// computes n ECDH secrets.
func (e *ecdsaSoakEngine) call(c *soakCheck, n int) error {
	cases := make([]*ecdsaSoakCase, n)
	keys, hashes := make([]*stdecdsa.PrivateKey, n), make([][]byte, n)
	for i := range cases {
		cases[i] = &e.soak.cases[c.rng.IntN(len(e.soak.cases))]
		keys[i], hashes[i] = e.soak.keys[cases[i].key], cases[i].hash
	}
	switch c.rng.IntN(3) {
	case 0:
		sigs, err := e.SignASN1(nil, keys, hashes)
		if err != nil {
			return err
		}
		batch.Parallel(n, 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				e.soak.checkSign(c, cases[i], sigs[i], "Engine")
			}
		})
	case 1:
		pubs, sigs, altered := make([]*stdecdsa.PublicKey, n), make([][]byte, n), make([]bool, n)
		for i, k := range cases {
			pubs[i], sigs[i] = &keys[i].PublicKey, k.sig
			if c.rng.IntN(4) == 0 {
				sigs[i], altered[i] = k.altered, true
			}
		}
		verdicts, err := e.VerifyASN1(pubs, hashes, sigs)
		if err != nil {
			return err
		}
		for i, k := range cases {
			e.soak.checkVerify(c, k, altered[i], verdicts[i], "Engine")
		}
	default:
		privs, peers := make([][]byte, n), make([][]byte, n)
		for i, k := range cases {
			privs[i], peers[i] = k.priv, k.peer
		}
		secrets, err := e.ECDH(privs, peers)
		if err != nil {
			return err
		}
		for i, k := range cases {
			e.soak.checkECDH(c, k, secrets[i], "Engine")
		}
	}
	return nil
}

// checkSign verifies a signature with crypto/ecdsa. It is safe for
// concurrent use.
func (s *ecdsaSoak) checkSign(c *soakCheck, k *ecdsaSoakCase, sig []byte, via string) {
	key := s.keys[k.key]
	if !stdecdsa.VerifyASN1(&key.PublicKey, k.hash, sig) {
		der, _ := x509.MarshalECPrivateKey(key)
		c.mismatch(via+" signature does not verify with crypto/ecdsa", hexMap("key", der, "hash", k.hash), hexMap("signature", sig), nil)
	}
}

func (s *ecdsaSoak) checkVerify(c *soakCheck, k *ecdsaSoakCase, altered, verdict bool, via string) {
	sig, want := k.sig, true
	if altered {
		sig, want = k.altered, k.alteredValid
	}
	if verdict != want {
		pub, _ := x509.MarshalPKIXPublicKey(&s.keys[k.key].PublicKey)
		c.mismatch(via+" verdict differs from crypto/ecdsa's", hexMap("public", pub, "hash", k.hash, "signature", sig),
			hexMap("valid", verdict), hexMap("valid", want))
	}
}

func (s *ecdsaSoak) checkECDH(c *soakCheck, k *ecdsaSoakCase, secret []byte, via string) {
	if !bytes.Equal(secret, k.secret) {
		c.mismatch(via+" P-256 ECDH secret differs from crypto/ecdh's", hexMap("priv", k.priv, "peer", k.peer), hexMap("secret", secret), hexMap("secret", k.secret))
	}
}

func (e *ecdsaSoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := ecdsa.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	return &ecdsaSoakServer{Server: srv, soak: e.soak}, nil
}

type ecdsaSoakServer struct {
	*ecdsa.Server
	soak *ecdsaSoak
}

// call signs one hash, verifies one signature (altered one time in four)
// or computes one ECDH secret.
func (s *ecdsaSoakServer) call(c *soakCheck) error {
	k := &s.soak.cases[c.rng.IntN(len(s.soak.cases))]
	key := s.soak.keys[k.key]
	switch c.rng.IntN(3) {
	case 0:
		sig, err := s.SignASN1(context.Background(), rand.Reader, key, k.hash)
		if err != nil {
			return err
		}
		s.soak.checkSign(c, k, sig, "Server")
	case 1:
		sig, altered := k.sig, c.rng.IntN(4) == 0
		if altered {
			sig = k.altered
		}
		verdict, err := s.VerifyASN1(context.Background(), &key.PublicKey, k.hash, sig)
		if err != nil {
			return err
		}
		s.soak.checkVerify(c, k, altered, verdict, "Server")
	default:
		secret, err := s.ECDH(context.Background(), k.priv, k.peer)
		if err != nil {
			return err
		}
		s.soak.checkECDH(c, k, secret, "Server")
	}
	return nil
}
