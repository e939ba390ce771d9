package main

import (
	"bytes"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/x509"
	"errors"
	"sync"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/rsa"
)

var (
	_ = burninOps.add(rsaBurninOp("rsa2048", 2048), rsaBurninOp("rsa3072", 3072), rsaBurninOp("rsa4096", 4096))
	_ = burninOpPatterns.add(burninOpPattern{pattern: "rsaNNNN", algorithm: "rsa", help: "any size from 1024 to 4096, a multiple of 8",
		resolve: func(name string) (burninOp, bool, error) {
			bits, ok := rsaOpBits(name)
			if !ok {
				return burninOp{}, false, nil
			}
			if bits < 1024 || bits > 4096 || bits%8 != 0 {
				return burninOp{}, true, errors.New("RSA sizes are 1024 to 4096 bits, a multiple of 8")
			}
			return rsaBurninOp(name, bits), true, nil
		}})
)

// rsaTamperEvery: one signature in this many is given to the device's
// verification with a bit flipped, and must be refused.
const rsaTamperEvery = 8

// rsaBurninOp checks RSA private and public operations of one size. A case
// is a random SHA-256 digest signed (PKCS #1 v1.5) on the device with one
// of --rsa-keys keys; every signature is verified on the CPU with
// crypto/rsa (through the public key: far cheaper than signing again), and
// verified on the device too (the public operation), where one in
// rsaTamperEvery is altered first and must be refused. A sample
// (--cpu-sample) is also signed on the CPU and compared byte for byte.
func rsaBurninOp(name string, bits int) burninOp {
	gpuBatch := 65536 * 2048 * 2048 / (bits * bits) // the same device time per batch at every size, about
	return burninOp{name: name, algorithm: "rsa", batchGPU: gpuBatch, batchCPU: 16, prepare: func(r *burninRun) (burninCheck, error) {
		e, err := burninEngineOf(r, rsa.NewEngine)
		if err != nil {
			return nil, err
		}
		keys, err := r.keys.get(bits)
		if err != nil {
			return nil, err
		}
		if err := e.Warm(bits); err != nil {
			return nil, err
		}
		return func(b *burninBatch) { checkRSA(b, e, keys) }, nil
	}}
}

func checkRSA(b *burninBatch, e *rsa.Engine, keys []*stdrsa.PrivateKey) {
	n := b.n
	privs := make([]*stdrsa.PrivateKey, n)
	pubs := make([]*stdrsa.PublicKey, n)
	digests := make([][]byte, n)
	for i := range n {
		privs[i] = keys[b.rng.IntN(len(keys))]
		pubs[i] = &privs[i].PublicKey
		digests[i] = b.bytes(32)
	}
	sigs, err := e.SignPKCS1v15(privs, crypto.SHA256, digests)
	signErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll("SignPKCS1v15", err)
		return
	}
	b.tamper(sigs)
	// the device's public operation: every signature, some altered
	tampered := make([]bool, n)
	checked := make([][]byte, n)
	for i := range n {
		checked[i] = sigs[i]
		if signErrs[i] == nil && b.rng.IntN(rsaTamperEvery) == 0 {
			s := bytes.Clone(sigs[i])
			s[len(s)-1-b.rng.IntN(len(s)/2)] ^= 1 << b.rng.IntN(8) // in the lower half: the value stays below the modulus
			checked[i], tampered[i] = s, true
		}
		if signErrs[i] != nil {
			checked[i] = make([]byte, (pubs[i].N.BitLen()+7)/8) // verified too, for the shape; refused
		}
	}
	valid, err := e.VerifyPKCS1v15(pubs, crypto.SHA256, digests, checked)
	verifyErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll("VerifyPKCS1v15", err)
		return
	}
	for i, v := range valid { // a refused signature, as crypto/rsa's error
		if !v && verifyErrs[i] == nil {
			verifyErrs[i] = rsa.ErrVerification
		}
	}
	sample := make([]bool, n)
	for i := range n {
		sample[i] = b.sampled(i)
	}
	var cpuSigned int64
	var mu sync.Mutex
	batch.Parallel(n, 16, func(lo, hi int) {
		signed := 0
		for i := lo; i < hi; i++ {
			what, derr := "", signErrs[i]
			switch {
			case signErrs[i] != nil:
				what = "the device failed the signature"
			case stdrsa.VerifyPKCS1v15(pubs[i], crypto.SHA256, digests[i], sigs[i]) != nil:
				what = "the device's signature does not verify on the CPU"
			case tampered[i] && !errors.Is(verifyErrs[i], rsa.ErrVerification):
				what, derr = "the device accepted an altered signature", verifyErrs[i]
			case !tampered[i] && verifyErrs[i] != nil:
				what, derr = "the device refused a valid signature", verifyErrs[i]
			case sample[i]:
				signed++
				if want, err := stdrsa.SignPKCS1v15(nil, privs[i], crypto.SHA256, digests[i]); err != nil || !bytes.Equal(want, sigs[i]) {
					what = "the device's signature differs from the CPU's"
				}
			}
			if what != "" {
				want, _ := stdrsa.SignPKCS1v15(nil, privs[i], crypto.SHA256, digests[i])
				b.fail(i, what, hexMap("key", x509.MarshalPKCS1PrivateKey(privs[i]), "sha256", digests[i], "verified", checked[i]),
					hexMap("signature", sigs[i]), hexMap("signature", want), derr)
			}
		}
		mu.Lock()
		cpuSigned += int64(signed)
		mu.Unlock()
	})
	b.stats.cpuChecked.Add(cpuSigned)
}

// rsaKeyPool makes the RSA keys of the burn-in, count per size, once.
type rsaKeyPool struct {
	count int
	mu    sync.Mutex
	keys  map[int][]*stdrsa.PrivateKey
}

func (p *rsaKeyPool) get(bits int) ([]*stdrsa.PrivateKey, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k, ok := p.keys[bits]; ok {
		return k, nil
	}
	keys, err := batch.Each(p.count, func(int) (*stdrsa.PrivateKey, error) { return stdrsa.GenerateKey(rand.Reader, bits) })
	if err != nil {
		return nil, err
	}
	if p.keys == nil {
		p.keys = map[int][]*stdrsa.PrivateKey{}
	}
	p.keys[bits] = keys
	return keys, nil
}
