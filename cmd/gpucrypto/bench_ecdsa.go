package main

import (
	"bytes"
	stdecdh "crypto/ecdh"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"time"

	"github.com/gpucrypto/gpucrypto/ecdsa"
)

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
