package main

// This file is Ed25519's part of the CLI: its group of `gpucrypto bench`
// (bench ed25519), its rows of `gpucrypto bench server`, and its operations
// of `gpucrypto burnin` and of its soak (burnin --soak), in that order,
// each added to the tables of tables.go. An algorithm new to the CLI adds
// one such file, named after it.

import (
	"bytes"
	"context"
	stded25519 "crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ed25519"
)

// Its group of `gpucrypto bench`, bench ed25519 (benchGroups).

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

// Its rows of `gpucrypto bench server` (serverOps).

var _ = serverOps.add(
	serverOp{name: "ed25519-sign", algorithm: "ed25519", what: "ed25519.Server, 64-byte messages", goPackage: "crypto/ed25519",
		forms: []string{formBlocking, formAsync}, start: startEd25519Sign},
	serverOp{name: "ed25519-verify", algorithm: "ed25519", what: "ed25519.Server, 64-byte messages", goPackage: "crypto/ed25519",
		forms: []string{formBlocking, formAsync}, start: startEd25519Verify},
)

// serverMessage is the message of the Ed25519 operations, of
// ed25519MessageBytes bytes.
var serverMessage = bytes.Repeat([]byte{0x5a}, ed25519MessageBytes)

// serverEd25519Key is the key of the Ed25519 operations.
var serverEd25519Key = func() stded25519.PrivateKey {
	seed := sha256.Sum256([]byte("gpucrypto bench server ed25519"))
	return stded25519.NewKeyFromSeed(seed[:])
}()

// startEd25519 starts an ed25519.Server for startEd25519Sign and
// startEd25519Verify, its device engines warmed with warm.
func startEd25519(devs []*device.Device, opts batch.Options, warm func(*ed25519.Engine) error) (*ed25519.Server, []*ed25519.Engine, error) {
	engines, err := newEngines(devs, warmedOn(ed25519.NewEngine, warm), ed25519.CPUEngine)
	if err != nil {
		return nil, nil, err
	}
	s, err := ed25519.NewServer(opts, engines...)
	if err != nil {
		closeEngines(engines)
		return nil, nil, err
	}
	return s, engines, nil
}

// startEd25519Sign: Ed25519 signatures (ed25519.Server.Sign,
// crypto/ed25519.Sign).
func startEd25519Sign(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	key, msg := serverEd25519Key, serverMessage
	s, engines, err := startEd25519(devs, opts, func(e *ed25519.Engine) error {
		_, err := e.Sign([]stded25519.PrivateKey{key}, [][]byte{msg}, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := s.Sign(ctx, key, msg, nil)
			return err
		}),
		newGoCaller:  goEd25519Sign(key, msg),
		newSubmitter: func(window int) submitter { return newEd25519Submitter(s, key, nil, msg, nil, window) },
		check: func(ctx context.Context) error {
			sig, err := s.Sign(ctx, key, msg, nil)
			if err != nil {
				return err
			}
			return checkEqual("ed25519-sign", sig, stded25519.Sign(key, msg))
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// startEd25519Verify: verifications of a valid Ed25519 signature
// (ed25519.Server.Verify, crypto/ed25519.Verify).
func startEd25519Verify(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	key, msg := serverEd25519Key, serverMessage
	pub := key.Public().(stded25519.PublicKey)
	sig := stded25519.Sign(key, msg)
	s, engines, err := startEd25519(devs, opts, func(e *ed25519.Engine) error {
		_, err := e.Verify([]stded25519.PublicKey{pub}, [][]byte{msg}, [][]byte{sig}, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	verify := func(ctx context.Context) error {
		ok, err := s.Verify(ctx, pub, msg, sig, nil)
		if err == nil && !ok {
			err = fmt.Errorf("ed25519-verify: %w", errRejected)
		}
		return err
	}
	return &serverBench{
		newCaller:    sameCaller(verify),
		newGoCaller:  goEd25519Verify(pub, msg, sig),
		newSubmitter: func(window int) submitter { return newEd25519Submitter(s, nil, pub, msg, sig, window) },
		check:        verify,
		stats:        s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// newEd25519Submitter submits Ed25519 signings of msg under key, or with
// a nil key verifications of sig under pub, through ed25519.Server.Go.
func newEd25519Submitter(server *ed25519.Server, key stded25519.PrivateKey, pub stded25519.PublicKey, msg, sig []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *ed25519.Call) ed25519.Call {
		return ed25519.Call{Key: key, Pub: pub, Message: msg, Signature: sig, Done: done}
	}, server.Go, func(c *ed25519.Call) error {
		if c.Err == nil && c.Key == nil && !c.Valid {
			return fmt.Errorf("ed25519-verify: %w", errRejected)
		}
		return c.Err
	})
}

// goEd25519Sign: crypto/ed25519's signature of msg.
func goEd25519Sign(key stded25519.PrivateKey, msg []byte) func() func() error {
	return sameGoCaller(func() error {
		stded25519.Sign(key, msg)
		return nil
	})
}

// goEd25519Verify: crypto/ed25519's verification of a valid signature.
func goEd25519Verify(pub stded25519.PublicKey, msg, sig []byte) func() func() error {
	return sameGoCaller(func() error {
		if !stded25519.Verify(pub, msg, sig) {
			return fmt.Errorf("crypto/ed25519: %w", errRejected)
		}
		return nil
	})
}

// Its operations of `gpucrypto burnin` (burninOps).

var _ = burninOps.add(ed25519BurninOp("ed25519", 131072))

// ed25519TamperEvery: the first signature of each batch and about one in
// this many others are verified on the device a second time with one bit
// changed, and must be refused.
const ed25519TamperEvery = 8

// ed25519LongEvery: about one message in this many is longer than
// ed25519.DeviceMessageMax, which the engine signs (and hashes for
// verification) on the host.
const ed25519LongEvery = 1000

// ed25519BurninOp checks Ed25519 on the device. A case is a random seed
// and a random message (0 to 256 bytes; about one in ed25519LongEvery
// longer than ed25519.DeviceMessageMax): the device computes the private
// key (NewKeysFromSeeds), signs the message and verifies the signature,
// which must be valid (a check of every case that needs no CPU: a wrong
// public key or a wrong signature fails it); the first case of each batch
// and about one in ed25519TamperEvery are verified again with one bit of
// the signature changed, which must be refused. A sample (--cpu-sample) is
// recomputed entirely on the CPU with crypto/ed25519 (NewKeyFromSeed,
// Sign, Verify) and compared byte for byte, the verdicts included.
func ed25519BurninOp(name string, gpuBatch int) burninOp {
	return burninOp{name: name, algorithm: "ed25519", batchGPU: gpuBatch, batchCPU: 256, prepare: func(r *burninRun) (burninCheck, error) {
		e, err := burninEngineOf(r, ed25519.NewEngine)
		if err != nil {
			return nil, err
		}
		return func(b *burninBatch) { checkEd25519(b, e) }, nil
	}}
}

// ed25519Length is a random message length: 0 to 256 bytes, about one in
// ed25519LongEvery up to twice ed25519.DeviceMessageMax (beyond it).
func (b *burninBatch) ed25519Length() int {
	if b.rng.IntN(ed25519LongEvery) == 0 {
		return ed25519.DeviceMessageMax + 1 + b.rng.IntN(ed25519.DeviceMessageMax)
	}
	return b.rng.IntN(257)
}

func checkEd25519(b *burninBatch, e *ed25519.Engine) {
	n := b.n
	seeds := make([][]byte, n)
	msgs := make([][]byte, n)
	lengths := make([]int, n)
	total := 0
	for i := range n {
		lengths[i] = b.ed25519Length()
		total += lengths[i]
	}
	seedSlab, msgSlab := b.bytes(n*ed25519.SeedSize), b.bytes(total)
	for i, off := 0, 0; i < n; i++ {
		seeds[i] = seedSlab[i*ed25519.SeedSize : (i+1)*ed25519.SeedSize : (i+1)*ed25519.SeedSize]
		msgs[i] = msgSlab[off : off+lengths[i] : off+lengths[i]]
		off += lengths[i]
	}
	keys, err := e.NewKeysFromSeeds(seeds)
	keyErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll("NewKeysFromSeeds", err)
		return
	}
	sigs, err := e.Sign(keys, msgs, nil)
	signErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll("Sign", err)
		return
	}
	b.tamper(sigs)
	// the device's verification: every signature, then a corrupted copy of
	// some (tampered[i]: the index of case i's copy in the call, or -1)
	pubs := make([]stded25519.PublicKey, n, n+n/ed25519TamperEvery+8)
	vmsgs := append(make([][]byte, 0, cap(pubs)), msgs...)
	vsigs := make([][]byte, n, cap(pubs))
	tampered := make([]int, n)
	for i := range n {
		tampered[i] = -1
		if len(keys[i]) == ed25519.PrivateKeySize {
			pubs[i] = stded25519.PublicKey(keys[i][ed25519.SeedSize:])
		} else {
			pubs[i] = make(stded25519.PublicKey, ed25519.PublicKeySize) // verified too, for the shape
		}
		vsigs[i] = sigs[i]
		if vsigs[i] == nil {
			vsigs[i] = make([]byte, ed25519.SignatureSize)
		}
		if i == 0 || b.rng.IntN(ed25519TamperEvery) == 0 {
			s := bytes.Clone(vsigs[i])
			s[b.rng.IntN(len(s))] ^= 1 << b.rng.IntN(8)
			tampered[i] = len(vsigs)
			pubs, vmsgs, vsigs = append(pubs, pubs[i]), append(vmsgs, msgs[i]), append(vsigs, s)
		}
	}
	verdicts, err := e.Verify(pubs, vmsgs, vsigs, nil)
	verifyErrs, ok := elementErrors(err, len(pubs))
	if !ok {
		b.failAll("Verify", err)
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
			what, derr := "the device failed the public key", keyErrs[i]
			if derr == nil {
				what, derr = signatureVerdict(signErrs[i], verifyErrs, verdicts, i, t)
			}
			if what == "" && sample[i] {
				checked++
				key := stded25519.NewKeyFromSeed(seeds[i])
				switch {
				case !bytes.Equal(key, keys[i]):
					what = "the device's public key differs from the CPU's"
				case !bytes.Equal(stded25519.Sign(key, msgs[i]), sigs[i]):
					what = "the device's signature differs from the CPU's"
				case !stded25519.Verify(pubs[i], msgs[i], sigs[i]):
					what = "the device's signature does not verify on the CPU"
				case t >= 0 && stded25519.Verify(pubs[i], msgs[i], vsigs[t]):
					what = "the CPU accepts the corrupted signature that the device refused"
				}
			}
			if what != "" {
				b.fail(i, what, ed25519Input(seeds[i], msgs[i], vsigs, t),
					ed25519Output(keys[i], sigs[i], verdicts, i, t), ed25519Reference(seeds[i], msgs[i], vsigs, t), derr)
			}
		}
		cpuChecked.Add(checked)
	})
	b.stats.cpuChecked.Add(cpuChecked.Load())
}

// ed25519Input is a case's inputs for the failures file: the seed, the
// message and the corrupted signature verified, if any.
func ed25519Input(seed, msg []byte, vsigs [][]byte, t int) map[string]string {
	if t < 0 {
		return hexMap("seed", seed, "message", msg)
	}
	return hexMap("seed", seed, "message", msg, "corrupted signature", vsigs[t])
}

// ed25519Output is the device's results of case i.
func ed25519Output(key stded25519.PrivateKey, sig []byte, verdicts []bool, i, t int) map[string]string {
	m := hexMap("public key", publicHalf(key), "signature", sig, "valid", verdicts[i])
	if t >= 0 {
		m["corrupted valid"] = fmt.Sprint(verdicts[t])
	}
	return m
}

// ed25519Reference is crypto/ed25519's results of a case, as
// ed25519Output.
func ed25519Reference(seed, msg []byte, vsigs [][]byte, t int) map[string]string {
	key := stded25519.NewKeyFromSeed(seed)
	sig := stded25519.Sign(key, msg)
	pub := key.Public().(stded25519.PublicKey)
	m := hexMap("public key", []byte(pub), "signature", sig, "valid", stded25519.Verify(pub, msg, sig))
	if t >= 0 {
		m["corrupted valid"] = fmt.Sprint(stded25519.Verify(pub, msg, vsigs[t]))
	}
	return m
}

// publicHalf is a private key's public key (nil for a malformed key).
func publicHalf(key stded25519.PrivateKey) []byte {
	if len(key) != ed25519.PrivateKeySize {
		return nil
	}
	return key[ed25519.SeedSize:]
}

// Its operations of the soak, `gpucrypto burnin --soak` (soakOperations).

var _ = soakOperations.add(soakOperation{name: "ed25519", algorithm: "ed25519",
	family: func(_ *soakRun, _ string, rng *mrand.Rand) (soakFamily, error) { return newEd25519Soak(rng) }})

// ed25519Soak is Ed25519 in the soak: signatures compared with
// crypto/ed25519's (deterministic), and verdicts on valid and altered
// signatures compared with crypto/ed25519.Verify's.
type ed25519Soak struct {
	cases []ed25519SoakCase
}

// ed25519SoakCase is a key, a message, its signature and an altered copy
// of the signature with crypto/ed25519's verdict on it.
type ed25519SoakCase struct {
	key          stded25519.PrivateKey
	msg, sig     []byte
	altered      []byte
	alteredValid bool
}

func newEd25519Soak(rng *mrand.Rand) (*ed25519Soak, error) {
	c := &soakCheck{rng: rng}
	s := &ed25519Soak{}
	for range soakCases {
		key := stded25519.NewKeyFromSeed(c.bytes(stded25519.SeedSize))
		msg := c.bytes(rng.IntN(256))
		sig := stded25519.Sign(key, msg)
		altered := bytes.Clone(sig)
		altered[rng.IntN(len(altered))] ^= 1 << rng.IntN(8)
		s.cases = append(s.cases, ed25519SoakCase{key: key, msg: msg, sig: sig, altered: altered,
			alteredValid: stded25519.Verify(key.Public().(stded25519.PublicKey), msg, altered)})
	}
	return s, nil
}

func (s *ed25519Soak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := ed25519.NewEngine(d)
	if err != nil {
		return nil, err
	}
	return &ed25519SoakEngine{Engine: e, soak: s}, nil
}

type ed25519SoakEngine struct {
	*ed25519.Engine
	soak *ed25519Soak
}

// call signs n messages, or verifies n signatures, one in four altered.
func (e *ed25519SoakEngine) call(c *soakCheck, n int) error {
	cases := make([]*ed25519SoakCase, n)
	keys, msgs := make([]stded25519.PrivateKey, n), make([][]byte, n)
	for i := range cases {
		cases[i] = &e.soak.cases[c.rng.IntN(len(e.soak.cases))]
		keys[i], msgs[i] = cases[i].key, cases[i].msg
	}
	if c.rng.IntN(2) == 0 {
		sigs, err := e.Sign(keys, msgs, nil)
		if err != nil {
			return err
		}
		for i, k := range cases {
			e.soak.checkSign(c, k, sigs[i], "Engine")
		}
		return nil
	}
	pubs, sigs, altered := make([]stded25519.PublicKey, n), make([][]byte, n), make([]bool, n)
	for i, k := range cases {
		pubs[i], sigs[i] = k.key.Public().(stded25519.PublicKey), k.sig
		if c.rng.IntN(4) == 0 {
			sigs[i], altered[i] = k.altered, true
		}
	}
	verdicts, err := e.Verify(pubs, msgs, sigs, nil)
	if err != nil {
		return err
	}
	for i, k := range cases {
		e.soak.checkVerify(c, k, altered[i], verdicts[i], "Engine")
	}
	return nil
}

func (s *ed25519Soak) checkSign(c *soakCheck, k *ed25519SoakCase, sig []byte, via string) {
	if !bytes.Equal(sig, k.sig) {
		c.mismatch(via+" signature differs from crypto/ed25519's", hexMap("key", k.key.Seed(), "msg", k.msg), hexMap("signature", sig), hexMap("signature", k.sig))
	}
}

func (s *ed25519Soak) checkVerify(c *soakCheck, k *ed25519SoakCase, altered, verdict bool, via string) {
	sig, want := k.sig, true
	if altered {
		sig, want = k.altered, k.alteredValid
	}
	if verdict != want {
		c.mismatch(via+" verdict differs from crypto/ed25519's", hexMap("key", k.key.Seed(), "msg", k.msg, "signature", sig),
			hexMap("valid", verdict), hexMap("valid", want))
	}
}

func (e *ed25519SoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := ed25519.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	return &ed25519SoakServer{Server: srv, soak: e.soak}, nil
}

type ed25519SoakServer struct {
	*ed25519.Server
	soak *ed25519Soak
}

// call signs one message or verifies one signature (altered one time in
// four).
func (s *ed25519SoakServer) call(c *soakCheck) error {
	k := &s.soak.cases[c.rng.IntN(len(s.soak.cases))]
	if c.rng.IntN(2) == 0 {
		sig, err := s.Sign(context.Background(), k.key, k.msg, nil)
		if err != nil {
			return err
		}
		s.soak.checkSign(c, k, sig, "Server")
		return nil
	}
	sig, altered := k.sig, c.rng.IntN(4) == 0
	if altered {
		sig = k.altered
	}
	verdict, err := s.Verify(context.Background(), k.key.Public().(stded25519.PublicKey), k.msg, sig, nil)
	if err != nil {
		return err
	}
	s.soak.checkVerify(c, k, altered, verdict, "Server")
	return nil
}
