package main

// This file is RSA's part of the CLI: its group of `gpucrypto bench`
// (bench rsa), its rows of `gpucrypto bench server`, and its operations
// of `gpucrypto burnin` and of its soak (burnin --soak), in that order,
// each added to the tables of tables.go. An algorithm new to the CLI adds
// one such file, named after it.

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// Its group of `gpucrypto bench`, bench rsa (benchGroups).

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

// Its rows of `gpucrypto bench server` (serverOps).

var _ = serverOps.add(serverOp{name: "rsa2048", algorithm: "rsa", what: "rsa.Server's Signer, PKCS #1 v1.5 SHA-256", goPackage: "crypto/rsa",
	forms: []string{formBlocking, formAsync}, start: startRSA})

// startRSA: PKCS #1 v1.5 signatures of a SHA-256 digest with one
// RSA-2048 key (rsa.Server's Signer, crypto/rsa.SignPKCS1v15).
func startRSA(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	engines, err := newEngines(devs, func(d *device.Device) (*rsa.Engine, error) {
		e, err := rsa.NewEngine(d)
		if err != nil {
			return nil, err
		}
		// as a server does at start-up: every kernel a batch size may use
		if err := e.Warm(2048); err != nil {
			e.Close()
			return nil, err
		}
		return e, nil
	}, rsa.CPUEngine)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*serverBench, error) { closeEngines(engines); return nil, err }
	key, err := benchKey(2048)
	if err != nil {
		return fail(err)
	}
	s, err := rsa.NewServer(opts, engines...)
	if err != nil {
		return fail(err)
	}
	signer, err := s.Signer(key)
	if err != nil {
		s.Close()
		return fail(err)
	}
	digest := serverDigest[:]
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := signer.SignContext(ctx, nil, digest, crypto.SHA256)
			return err
		}),
		newSubmitter: func(window int) submitter { return newRSASubmitter(signer, digest, window) },
		newGoCaller:  goRSASign(key, digest),
		check: func(ctx context.Context) error {
			sig, err := signer.SignContext(ctx, nil, digest, crypto.SHA256)
			if err != nil {
				return err
			}
			std, err := key.Sign(nil, digest, crypto.SHA256)
			if err != nil {
				return err
			}
			return checkEqual("rsa2048", sig, std)
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// newRSASubmitter submits signatures of digest through Signer.Go.
func newRSASubmitter(signer *rsa.Signer, digest []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *rsa.Call) rsa.Call {
		return rsa.Call{Digest: digest, Opts: crypto.SHA256, Done: done}
	}, signer.Go, func(c *rsa.Call) error { return c.Err })
}

// goRSASign: crypto/rsa's PKCS #1 v1.5 signature of a SHA-256 digest.
func goRSASign(key *stdrsa.PrivateKey, digest []byte) func() func() error {
	return sameGoCaller(func() error {
		_, err := stdrsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest)
		return err
	})
}

// Its operations of `gpucrypto burnin` (burninOps).

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

// Its operations of the soak, `gpucrypto burnin --soak` (soakOperations).

// The RSA soak: rsa2048 by default, any size burnin takes (rsaNNNN)
// with --ops.
var _ = soakOperations.add(soakOperation{name: "rsa2048", algorithm: "rsa", pattern: "rsaNNNN", patternHelp: "any RSA size burnin takes",
	family: func(r *soakRun, name string, _ *mrand.Rand) (soakFamily, error) {
		bits, _ := rsaOpBits(name)
		keys, err := r.keys.get(bits)
		if err != nil {
			return nil, err
		}
		return newRSASoak(keys)
	}})

// rsaSoakCases is the number of PKCS #1 v1.5 signatures the RSA soak
// makes with crypto/rsa at the start (fewer than soakCases: each costs a
// private-key operation on the CPU).
const rsaSoakCases = 64

// rsaSoak is RSA signing and verification in the soak: PKCS #1 v1.5
// signatures compared with crypto/rsa's (deterministic), PSS signatures
// verified by crypto/rsa, and the device's verification of valid and
// altered signatures.
type rsaSoak struct {
	keys  []*stdrsa.PrivateKey
	cases []rsaSoakCase
}

type rsaSoakCase struct {
	key       int // index in keys
	digest    []byte
	signature []byte // PKCS #1 v1.5, crypto/rsa's
}

func newRSASoak(keys []*stdrsa.PrivateKey) (*rsaSoak, error) {
	s := &rsaSoak{keys: keys}
	for i := range rsaSoakCases {
		digest := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
		sig, err := stdrsa.SignPKCS1v15(nil, keys[i%len(keys)], crypto.SHA256, digest[:])
		if err != nil {
			return nil, err
		}
		s.cases = append(s.cases, rsaSoakCase{key: i % len(keys), digest: digest[:], signature: sig})
	}
	return s, nil
}

func (s *rsaSoak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := rsa.NewEngine(d)
	if err != nil {
		return nil, err
	}
	return &rsaSoakEngine{Engine: e, soak: s}, nil
}

type rsaSoakEngine struct {
	*rsa.Engine
	soak *rsaSoak
}

// pss is the PSS setting of the soak: the salt as long as the hash, as
// TLS 1.3 signs.
var pss = &stdrsa.PSSOptions{SaltLength: stdrsa.PSSSaltLengthEqualsHash, Hash: crypto.SHA256}

// call signs n digests (PKCS #1 v1.5 or PSS) or verifies n signatures,
// one in eight altered.
func (e *rsaSoakEngine) call(c *soakCheck, n int) error {
	cases := make([]*rsaSoakCase, n)
	keys, pubs, digests := make([]*stdrsa.PrivateKey, n), make([]*stdrsa.PublicKey, n), make([][]byte, n)
	for i := range cases {
		cases[i] = &e.soak.cases[c.rng.IntN(len(e.soak.cases))]
		keys[i] = e.soak.keys[cases[i].key]
		pubs[i], digests[i] = &keys[i].PublicKey, cases[i].digest
	}
	switch c.rng.IntN(3) {
	case 0:
		sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
		if err != nil {
			return err
		}
		for i, k := range cases {
			e.soak.checkPKCS1(c, k, sigs[i], "Engine")
		}
	case 1:
		sigs, err := e.SignPSS(nil, keys, crypto.SHA256, digests, pss)
		if err != nil {
			return err
		}
		batch.Parallel(n, 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				e.soak.checkPSS(c, cases[i], sigs[i], "Engine")
			}
		})
	default:
		sigs := make([][]byte, n)
		altered := make([]bool, n)
		for i, k := range cases {
			sigs[i] = k.signature
			if c.rng.IntN(8) == 0 {
				sigs[i] = bytes.Clone(k.signature)
				sigs[i][len(sigs[i])-1-c.rng.IntN(len(sigs[i])/2)] ^= 1 << c.rng.IntN(8) // the lower half: still below the modulus
				altered[i] = true
			}
		}
		valid, err := e.VerifyPKCS1v15(pubs, crypto.SHA256, digests, sigs)
		errs, ok := elementErrors(err, n)
		if !ok {
			return err
		}
		for i, v := range valid { // a refused signature, as crypto/rsa's error
			if !v && errs[i] == nil {
				errs[i] = rsa.ErrVerification
			}
		}
		for i, k := range cases {
			switch {
			case altered[i] && !errors.Is(errs[i], rsa.ErrVerification):
				c.mismatch("the Engine accepted an altered signature", e.soak.input(k, sigs[i]), hexMap("error", errs[i]), hexMap("error", rsa.ErrVerification))
			case !altered[i] && errs[i] != nil:
				c.mismatch("the Engine refused a valid signature", e.soak.input(k, sigs[i]), hexMap("error", errs[i]), nil)
			}
		}
	}
	return nil
}

// input is a case for the failures file: the key, the digest, and the
// signature checked.
func (s *rsaSoak) input(k *rsaSoakCase, sig []byte) map[string]string {
	return hexMap("key", x509.MarshalPKCS1PrivateKey(s.keys[k.key]), "sha256", k.digest, "signature", sig)
}

// checkPKCS1 compares a PKCS #1 v1.5 signature with crypto/rsa's.
func (s *rsaSoak) checkPKCS1(c *soakCheck, k *rsaSoakCase, sig []byte, via string) {
	if !bytes.Equal(sig, k.signature) {
		c.mismatch(via+" PKCS #1 v1.5 signature differs from crypto/rsa's", s.input(k, nil), hexMap("signature", sig), hexMap("signature", k.signature))
	}
}

// checkPSS verifies a PSS signature with crypto/rsa. It is safe for
// concurrent use.
func (s *rsaSoak) checkPSS(c *soakCheck, k *rsaSoakCase, sig []byte, via string) {
	if err := stdrsa.VerifyPSS(&s.keys[k.key].PublicKey, crypto.SHA256, k.digest, sig, pss); err != nil {
		c.mismatch(via+" PSS signature does not verify with crypto/rsa", s.input(k, sig), hexMap("error", err), nil)
	}
}

func (e *rsaSoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := rsa.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	s := &rsaSoakServer{Server: srv, soak: e.soak}
	for _, k := range e.soak.keys {
		signer, err := srv.Signer(k)
		if err != nil {
			srv.Close()
			return nil, err
		}
		s.signers = append(s.signers, signer)
	}
	return s, nil
}

type rsaSoakServer struct {
	*rsa.Server
	soak    *rsaSoak
	signers []*rsa.Signer // one per key
}

// call signs one digest through a Signer: PKCS #1 v1.5 (crypto.Signer's
// Sign with crypto.SHA256) or, one in four, PSS.
func (s *rsaSoakServer) call(c *soakCheck) error {
	k := &s.soak.cases[c.rng.IntN(len(s.soak.cases))]
	if c.rng.IntN(4) == 0 {
		sig, err := s.signers[k.key].Sign(rand.Reader, k.digest, pss)
		if err != nil {
			return err
		}
		s.soak.checkPSS(c, k, sig, "Server")
		return nil
	}
	sig, err := s.signers[k.key].Sign(rand.Reader, k.digest, crypto.SHA256)
	if err != nil {
		return err
	}
	s.soak.checkPKCS1(c, k, sig, "Server")
	return nil
}
