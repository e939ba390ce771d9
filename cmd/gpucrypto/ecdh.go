package main

// This file is X25519 and X448 (ecdh)'s part of the CLI: its group of `gpucrypto bench`
// (bench ecdh), its rows of `gpucrypto bench server`, and its operations
// of `gpucrypto burnin` and of its soak (burnin --soak), in that order,
// each added to the tables of tables.go. An algorithm new to the CLI adds
// one such file, named after it.

import (
	"bytes"
	"cmp"
	"context"
	stdecdh "crypto/ecdh"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/cloudflare/circl/dh/x448"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
)

// Its group of `gpucrypto bench`, bench ecdh (benchGroups).

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

// Its rows of `gpucrypto bench server` (serverOps).

var _ = serverOps.add(serverOp{name: "x25519", algorithm: "ecdh", what: "ecdh.Server.SharedSecret", goPackage: "crypto/ecdh",
	forms: []string{formBlocking, formAsync, formAsyncFrames}, start: startX25519})

// startX25519: X25519 shared secrets (ecdh.Server.SharedSecret,
// crypto/ecdh).
func startX25519(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	// a private key and the peer's public key (u = 9, the base point)
	priv, peer := make([]byte, 32), make([]byte, 32)
	priv[0], peer[0] = 7, 9
	goCaller, err := goECDH(stdecdh.X25519(), priv, peer)
	if err != nil {
		return nil, err
	}
	engines, err := newEngines(devs, warmedOn(ecdh.NewEngine, func(e *ecdh.Engine) error {
		_, err := e.SharedSecrets(ecdh.X25519(), [][]byte{priv}, [][]byte{peer})
		return err
	}), ecdh.CPUEngine)
	if err != nil {
		return nil, err
	}
	backends := make([]*ecdh.Engine, len(engines))
	for i, e := range engines {
		backends[i] = e
	}
	s, err := ecdh.NewServer(opts, backends...)
	if err != nil {
		closeEngines(engines)
		return nil, err
	}
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := s.SharedSecret(ctx, ecdh.X25519(), priv, peer)
			return err
		}),
		newSubmitter:      func(window int) submitter { return newECDHSubmitter(s, priv, peer, window) },
		newFrameSubmitter: func(window int) submitter { return newFrameSubmitter(s, priv, peer, window) },
		newGoCaller:       goCaller,
		check: func(ctx context.Context) error {
			secret, err := s.SharedSecret(ctx, ecdh.X25519(), priv, peer)
			if err != nil {
				return err
			}
			std, err := stdECDH(stdecdh.X25519(), priv, peer)
			if err != nil {
				return err
			}
			return checkEqual("x25519", secret, std)
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// newECDHSubmitter submits X25519 shared secrets through Server.Go.
func newECDHSubmitter(server *ecdh.Server, priv, peer []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *ecdh.Call) ecdh.Call {
		return ecdh.Call{Curve: ecdh.X25519(), Priv: priv, Peer: peer, Done: done}
	}, server.Go, func(c *ecdh.Call) error { return c.Err })
}

// frameSubmitter submits X25519 shared secrets in frames of frameSize
// calls through Server.GoFrame.
type frameSubmitter struct {
	server *ecdh.Server
	frames []ecdh.Frame
	done   chan *ecdh.Frame
}

// newFrameSubmitter makes a window of frames, about window calls in all.
func newFrameSubmitter(server *ecdh.Server, priv, peer []byte, window int) submitter {
	s := &frameSubmitter{server: server, frames: make([]ecdh.Frame, max(1, (window+frameSize/2)/frameSize))}
	s.done = make(chan *ecdh.Frame, len(s.frames))
	for i := range s.frames {
		f := &s.frames[i]
		f.Calls, f.Done = make([]ecdh.Call, frameSize), s.done
		for k := range f.Calls {
			f.Calls[k] = ecdh.Call{Curve: ecdh.X25519(), Priv: priv, Peer: peer}
		}
	}
	return s
}

func (s *frameSubmitter) units() int { return len(s.frames) }
func (s *frameSubmitter) size() int  { return frameSize }

func (s *frameSubmitter) submit(ctx context.Context, u int) error {
	return s.server.GoFrame(ctx, &s.frames[u])
}

func (s *frameSubmitter) next() (int, error) {
	f := <-s.done
	for _, c := range f.Calls {
		if c.Err != nil {
			return indexOf(s.frames, f), c.Err
		}
	}
	return indexOf(s.frames, f), nil
}

// goECDH: crypto/ecdh's shared secret of priv with peer, the private key
// decoded once (as a server holds it) and the peer's public key decoded in
// each operation (as a server receives it), as the Servers take it.
func goECDH(curve stdecdh.Curve, priv, peer []byte) (func() func() error, error) {
	key, err := curve.NewPrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("bench server: crypto/ecdh: %w", err)
	}
	if _, err := curve.NewPublicKey(peer); err != nil {
		return nil, fmt.Errorf("bench server: crypto/ecdh: %w", err)
	}
	return sameGoCaller(func() error {
		pub, err := curve.NewPublicKey(peer)
		if err != nil {
			return err
		}
		_, err = key.ECDH(pub)
		return err
	}), nil
}

// stdECDH is crypto/ecdh's shared secret of priv with peer (the
// reference of the ECDH operations' check).
func stdECDH(curve stdecdh.Curve, priv, peer []byte) ([]byte, error) {
	key, err := curve.NewPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pub, err := curve.NewPublicKey(peer)
	if err != nil {
		return nil, err
	}
	return key.ECDH(pub)
}

// Its operations of `gpucrypto burnin` (burninOps).

var _ = burninOps.add(ecdhBurninOp("x25519", ecdh.X25519(), 262144), ecdhBurninOp("x448", ecdh.X448(), 65536))

// ecdhBurninOp checks X25519 or X448 on the device. A case is a pair of
// random private keys a and b: the device computes the public keys A and B
// and the shared secrets X(a, B) and X(b, A), which must be equal (a check
// of every case that needs no CPU: a wrong public key or a wrong secret
// breaks the equality); a sample of the cases (--cpu-sample) is
// recomputed entirely on the CPU (ecdh.CPUEngine: circl) and compared, public
// keys included.
func ecdhBurninOp(name string, c ecdh.Curve, gpuBatch int) burninOp {
	return burninOp{name: name, algorithm: "ecdh", batchGPU: gpuBatch, batchCPU: 256, prepare: func(r *burninRun) (burninCheck, error) {
		e, err := burninEngineOf(r, ecdh.NewEngine)
		if err != nil {
			return nil, err
		}
		var pool sync.Pool // *ecdhBuffers of finished batches
		return func(b *burninBatch) {
			buf, _ := pool.Get().(*ecdhBuffers)
			if buf == nil || len(buf.privs) < 2*b.n {
				buf = newECDHBuffers(c, 2*b.n)
			}
			defer pool.Put(buf)
			checkECDH(b, e, c, buf)
		}, nil
	}}
}

// ecdhBuffers are the strings of a batch: kept from batch to batch so that
// the host does not allocate per case.
type ecdhBuffers struct {
	privs, pubs, peers, secrets [][]byte
}

func newECDHBuffers(c ecdh.Curve, n int) *ecdhBuffers {
	size := c.Size()
	slab := make([]byte, 3*n*size)
	buf := &ecdhBuffers{privs: make([][]byte, n), pubs: make([][]byte, n), peers: make([][]byte, n), secrets: make([][]byte, n)}
	for i := range n {
		buf.privs[i] = slab[(3*i)*size : (3*i+1)*size : (3*i+1)*size]
		buf.pubs[i] = slab[(3*i+1)*size : (3*i+2)*size : (3*i+2)*size]
		buf.secrets[i] = slab[(3*i+2)*size : (3*i+3)*size : (3*i+3)*size]
	}
	return buf
}

// checkECDH runs one batch: a_i is privs[i] and b_i privs[n+i], so one
// device call computes every public key and one every shared secret.
func checkECDH(b *burninBatch, e *ecdh.Engine, c ecdh.Curve, buf *ecdhBuffers) {
	n := b.n
	privs, pubs, peers, secrets := buf.privs[:2*n], buf.pubs[:2*n], buf.peers[:2*n], buf.secrets[:2*n]
	for i := range privs {
		for j := 0; j < len(privs[i]); j += 8 {
			v := b.rng.Uint64()
			for k := j; k < min(j+8, len(privs[i])); k++ {
				privs[i][k] = byte(v)
				v >>= 8
			}
		}
	}
	err := e.PublicKeysInto(c, privs, pubs)
	pubErrs, ok := elementErrors(err, 2*n)
	if !ok {
		b.failAll("PublicKeysInto", err)
		return
	}
	for i := range n {
		peers[i], peers[n+i] = pubs[n+i], pubs[i] // a_i with B_i, b_i with A_i
	}
	err = e.SharedSecretsInto(c, privs, peers, secrets)
	secretErrs, ok := elementErrors(err, 2*n)
	if !ok {
		b.failAll("SharedSecretsInto", err)
		return
	}
	b.tamper(secrets)
	record := func(i int, what string, err error) {
		want := map[string]string{}
		if cpu, cerr := ecdhReference(c, privs[i], privs[n+i]); cerr == nil {
			want = hexMap("A", cpu[0], "B", cpu[1], "X(a,B)", cpu[2], "X(b,A)", cpu[3])
		}
		b.fail(i, what, hexMap("a", privs[i], "b", privs[n+i]),
			hexMap("A", pubs[i], "B", pubs[n+i], "X(a,B)", secrets[i], "X(b,A)", secrets[n+i]), want, err)
	}
	var sample []int
	for i := range n {
		if err := cmp.Or(pubErrs[i], pubErrs[n+i], secretErrs[i], secretErrs[n+i]); err != nil {
			record(i, "the device failed the case", err)
		} else if !bytes.Equal(secrets[i], secrets[n+i]) {
			record(i, "X(a, B) and X(b, A) differ on the device", nil)
		} else if b.sampled(i) {
			sample = append(sample, i)
		}
	}
	batch.Parallel(len(sample), 1, func(lo, hi int) {
		for _, i := range sample[lo:hi] {
			cpu, err := ecdhReference(c, privs[i], privs[n+i])
			if err != nil || !bytes.Equal(cpu[0], pubs[i]) || !bytes.Equal(cpu[1], pubs[n+i]) ||
				!bytes.Equal(cpu[2], secrets[i]) || !bytes.Equal(cpu[3], secrets[n+i]) {
				record(i, "the device's keys or secrets differ from the CPU's", err)
			}
		}
	})
	b.stats.cpuChecked.Add(int64(len(sample)))
}

// ecdhReference is a case computed on the CPU: A, B, X(a, B) and X(b, A).
func ecdhReference(c ecdh.Curve, a, b []byte) ([4][]byte, error) {
	pair := [][]byte{a, b}
	pubs, err := ecdh.CPUEngine().PublicKeys(c, pair)
	if err != nil {
		return [4][]byte{}, err
	}
	secrets, err := ecdh.CPUEngine().SharedSecrets(c, pair, [][]byte{pubs[1], pubs[0]})
	if err != nil {
		return [4][]byte{}, err
	}
	return [4][]byte{pubs[0], pubs[1], secrets[0], secrets[1]}, nil
}

// Its operations of the soak, `gpucrypto burnin --soak` (soakOperations).

var _ = soakOperations.add(
	soakOperation{name: "x25519", algorithm: "ecdh", family: ecdhSoakFamily},
	soakOperation{name: "x448", algorithm: "ecdh", family: ecdhSoakFamily},
)

// ecdhSoakFamily is the soak of X25519 or X448 (name).
func ecdhSoakFamily(_ *soakRun, name string, rng *mrand.Rand) (soakFamily, error) {
	return newECDHSoak(name, rng)
}

// soakCases is the number of cases each operation of the soak computes
// on the CPU at the start and draws its calls' inputs from (with their
// answers): the checks of a large batch then cost a comparison per
// element.
const soakCases = 256

// ecdhSoak is X25519 or X448 in the soak: shared secrets and public keys
// of random private keys, against crypto/ecdh (X25519) and circl (X448).
type ecdhSoak struct {
	curve ecdh.Curve
	cases []ecdhSoakCase
}

// ecdhSoakCase is a private key, its public key, a peer's public key and
// the shared secret of the two.
type ecdhSoakCase struct {
	priv, pub, peer, secret []byte
}

func newECDHSoak(name string, rng *mrand.Rand) (*ecdhSoak, error) {
	s := &ecdhSoak{curve: ecdh.X25519()}
	if name == "x448" {
		s.curve = ecdh.X448()
	}
	c := &soakCheck{rng: rng}
	for range soakCases {
		var k ecdhSoakCase
		var err error
		if name == "x448" {
			var priv, peerPriv, pub, peer, secret x448.Key
			copy(priv[:], c.bytes(x448.Size))
			copy(peerPriv[:], c.bytes(x448.Size))
			x448.KeyGen(&pub, &priv)
			x448.KeyGen(&peer, &peerPriv)
			x448.Shared(&secret, &priv, &peer)
			k = ecdhSoakCase{priv: priv[:], pub: pub[:], peer: peer[:], secret: secret[:]}
		} else {
			k, err = x25519Case(c.bytes(32), c.bytes(32))
			if err != nil {
				return nil, err
			}
		}
		s.cases = append(s.cases, k)
	}
	return s, nil
}

// x25519Case is the case of private keys priv and peerPriv, computed by
// crypto/ecdh.
func x25519Case(priv, peerPriv []byte) (ecdhSoakCase, error) {
	a, err := stdecdh.X25519().NewPrivateKey(priv)
	if err != nil {
		return ecdhSoakCase{}, err
	}
	b, err := stdecdh.X25519().NewPrivateKey(peerPriv)
	if err != nil {
		return ecdhSoakCase{}, err
	}
	secret, err := a.ECDH(b.PublicKey())
	if err != nil {
		return ecdhSoakCase{}, err
	}
	return ecdhSoakCase{priv: priv, pub: a.PublicKey().Bytes(), peer: b.PublicKey().Bytes(), secret: secret}, nil
}

func (s *ecdhSoak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := ecdh.NewEngine(d)
	if err != nil {
		return nil, err
	}
	return &ecdhSoakEngine{Engine: e, soak: s}, nil
}

type ecdhSoakEngine struct {
	*ecdh.Engine
	soak *ecdhSoak
}

// call computes n shared secrets or n public keys of random cases.
func (e *ecdhSoakEngine) call(c *soakCheck, n int) error {
	cases := make([]*ecdhSoakCase, n)
	privs, peers := make([][]byte, n), make([][]byte, n)
	for i := range cases {
		cases[i] = &e.soak.cases[c.rng.IntN(len(e.soak.cases))]
		privs[i], peers[i] = cases[i].priv, cases[i].peer
	}
	keygen := c.rng.IntN(4) == 0
	var got [][]byte
	var err error
	if keygen {
		got, err = e.PublicKeys(e.soak.curve, privs)
	} else {
		got, err = e.SharedSecrets(e.soak.curve, privs, peers)
	}
	if err != nil {
		return err
	}
	for i, k := range cases {
		e.soak.check(c, k, keygen, got[i], "Engine")
	}
	return nil
}

// check compares one result with the case's answer.
func (s *ecdhSoak) check(c *soakCheck, k *ecdhSoakCase, keygen bool, got []byte, via string) {
	want, what := k.secret, via+" shared secret differs from the CPU's"
	if keygen {
		want, what = k.pub, via+" public key differs from the CPU's"
	}
	if !bytes.Equal(got, want) {
		c.mismatch(what, hexMap("priv", k.priv, "peer", k.peer), hexMap("result", got), hexMap("result", want))
	}
}

func (e *ecdhSoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := ecdh.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	return &ecdhSoakServer{Server: srv, soak: e.soak}, nil
}

type ecdhSoakServer struct {
	*ecdh.Server
	soak *ecdhSoak
}

// call computes one shared secret (or, one in four, one public key).
func (s *ecdhSoakServer) call(c *soakCheck) error {
	k := &s.soak.cases[c.rng.IntN(len(s.soak.cases))]
	keygen := c.rng.IntN(4) == 0
	var got []byte
	var err error
	if keygen {
		got, err = s.PublicKey(context.Background(), s.soak.curve, k.priv)
	} else {
		got, err = s.SharedSecret(context.Background(), s.soak.curve, k.priv, k.peer)
	}
	if err != nil {
		return err
	}
	s.soak.check(c, k, keygen, got, "Server")
	return nil
}
