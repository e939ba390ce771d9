package ecdsa

import (
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Server turns single signing, verification and ECDH requests from many
// goroutines into batches for one or more engines (an Engine per device,
// or a CPU engine); each engine gets its own workers, and a batch goes to
// whichever is free.
//
// While few requests wait, they are computed on the CPU instead, with
// crypto/ecdsa, in the caller's goroutine, so a lone request does not
// wait for a device batch (batch.NewWithCPU says when,
// batch.Options.CPUOffload how many at once; negative: never). A Server
// whose engines all compute on the CPU computes each request at once, as
// crypto/ecdsa would, and batches nothing (batch.NewDirect).
type Server struct {
	sign    *batch.Batcher[signRequest, []byte]
	verify  *batch.Batcher[verifyRequest, bool]
	ecdh    *batch.Batcher[ecdhRequest, []byte]
	engines []*Engine
	meter   batch.Meter
	cpu     *Engine // the offload's
	closed  atomic.Bool
}

// signRequest is one signature: hedged from random (32 bytes read for
// it), or with RFC 6979's nonce where deterministic.
type signRequest struct {
	key           *ecdsa.PrivateKey
	hash          []byte
	random        [32]byte
	deterministic bool
}

type verifyRequest struct {
	pub       *ecdsa.PublicKey
	hash, sig []byte
	form      Form
}

// ecdhRequest is one shared secret of priv and peer (crypto/ecdh's
// encodings, as Engine.ECDH takes them).
type ecdhRequest struct{ priv, peer []byte }

// NewServer starts a Server over engines with the given batching
// options. It fails without an engine or with a nil one.
func NewServer(opts batch.Options, engines ...*Engine) (*Server, error) {
	if err := engine.CheckEngines("ecdsa", engines); err != nil {
		return nil, err
	}
	s := &Server{engines: engines, cpu: CPUEngine()}
	opts.Meter = &s.meter
	s.sign = engine.NewBatcher(opts, engines, s.cpu, signRequests)
	s.verify = engine.NewBatcher(opts, engines, s.cpu, verifyRequests)
	s.ecdh = engine.NewBatcher(opts, engines, s.cpu, ecdhRequests)
	return s, nil
}

// signRequests signs a batch of a Server's requests on e: one call per
// kind of nonce (hedged, deterministic), in DER.
func signRequests(e *Engine, reqs []signRequest) ([][]byte, error) {
	out := make([][]byte, len(reqs))
	errs := make([]error, len(reqs))
	engine.Groups(reqs, func(r signRequest) bool { return r.deterministic }, func(deterministic bool, idx []int) {
		keys := make([]*ecdsa.PrivateKey, len(idx))
		hashes := make([][]byte, len(idx))
		random := make([]byte, 32*len(idx))
		for k, i := range idx {
			keys[k], hashes[k] = reqs[i].key, reqs[i].hash
			copy(random[32*k:], reqs[i].random[:])
		}
		sigs, sigErrs, err := e.signBatch(ASN1, deterministic, keys, hashes, random)
		clear(random)
		engine.Scatter(idx, sigs, cmp.Or(err, sigErrs.Err()), out, errs)
	})
	return out, batch.Collect(errs)
}

// verifyRequests verifies a batch of a Server's requests on e: one call
// per signature form.
func verifyRequests(e *Engine, reqs []verifyRequest) ([]bool, error) {
	out := make([]bool, len(reqs))
	errs := make([]error, len(reqs))
	engine.Groups(reqs, func(r verifyRequest) Form { return r.form }, func(form Form, idx []int) {
		pubs := make([]*ecdsa.PublicKey, len(idx))
		hashes := make([][]byte, len(idx))
		sigs := make([][]byte, len(idx))
		for k, i := range idx {
			pubs[k], hashes[k], sigs[k] = reqs[i].pub, reqs[i].hash, reqs[i].sig
		}
		ok, okErrs, err := e.verifyBatch(form, pubs, hashes, sigs)
		engine.Scatter(idx, ok, cmp.Or(err, okErrs.Err()), out, errs)
	})
	return out, batch.Collect(errs)
}

// ecdhRequests computes a batch of a Server's shared secrets on e.
func ecdhRequests(e *Engine, reqs []ecdhRequest) ([][]byte, error) {
	privs := make([][]byte, len(reqs))
	peers := make([][]byte, len(reqs))
	for i, r := range reqs {
		privs[i], peers[i] = r.priv, r.peer
	}
	return e.ECDH(privs, peers)
}

// SignASN1 computes one DER signature of hash, batched with other
// callers' requests (Engine.SignASN1: nonces hedged from 32 bytes of rand,
// nil for crypto/rand.Reader).
func (s *Server) SignASN1(ctx context.Context, rand io.Reader, key *ecdsa.PrivateKey, hash []byte) ([]byte, error) {
	r := signRequest{key: key, hash: hash}
	if err := readRandom(rand, r.random[:]); err != nil {
		return nil, err
	}
	defer clear(r.random[:])
	return s.sign.Do(ctx, r)
}

// VerifyASN1 checks one DER signature, batched with other callers'
// requests: crypto/ecdsa.VerifyASN1's verdict; an error only for a nil
// key or a request that was not computed.
func (s *Server) VerifyASN1(ctx context.Context, pub *ecdsa.PublicKey, hash, sig []byte) (bool, error) {
	return s.verify.Do(ctx, verifyRequest{pub: pub, hash: hash, sig: sig, form: ASN1})
}

// VerifyP1363 is VerifyASN1 for a signature in IEEE P1363's form, r ‖ s
// (JOSE's ES256): crypto/ecdsa.Verify's verdict on those r and s, batched
// with other callers' requests of either form.
func (s *Server) VerifyP1363(ctx context.Context, pub *ecdsa.PublicKey, hash, sig []byte) (bool, error) {
	return s.verify.Do(ctx, verifyRequest{pub: pub, hash: hash, sig: sig, form: P1363})
}

// ECDH computes one P-256 shared secret, batched with other callers'
// requests: crypto/ecdh's PrivateKey.ECDH of the private key priv (32
// bytes, as PrivateKey.Bytes) with the public key peer (65 bytes, as
// PublicKey.Bytes), or crypto/ecdh's error for inputs it refuses (see
// Engine.ECDH). A TLS server's ECDHE over P-256 is one such request per
// handshake.
func (s *Server) ECDH(ctx context.Context, priv, peer []byte) ([]byte, error) {
	return s.ecdh.Do(ctx, ecdhRequest{priv: priv, peer: peer})
}

func readRandom(rand io.Reader, b []byte) error {
	if rand == nil {
		rand = cryptoRand
	}
	if _, err := io.ReadFull(rand, b); err != nil {
		return fmt.Errorf("ecdsa: reading randomness: %w", err)
	}
	return nil
}

// Signer returns a crypto.Signer for key whose signatures the server
// computes (crypto/tls and crypto/x509 accept it for ECDSA certificates).
// It fails for a nil key and on a closed server.
func (s *Server) Signer(key *ecdsa.PrivateKey) (*Signer, error) {
	if key == nil {
		return nil, ErrNilKey
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("ecdsa: Signer: %w", batch.ErrClosed)
	}
	return &Signer{s: s, key: key}, nil
}

// Signer is a crypto.Signer over a Server.
type Signer struct {
	s   *Server
	key *ecdsa.PrivateKey
}

// Public returns the key's *ecdsa.PublicKey.
func (g *Signer) Public() crypto.PublicKey { return &g.key.PublicKey }

// Sign signs digest as ecdsa.PrivateKey.Sign does: a DER signature, with
// a nonce hedged from rand, or, for a nil rand, RFC 6979's deterministic
// nonce (computed on the device for SHA-256 digests, by crypto/ecdsa
// otherwise, which also checks that the digest's length is the hash's).
// A key on another curve than P-256 is an error (ErrCurve).
func (g *Signer) Sign(rand io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	if rand != nil {
		return g.s.SignASN1(context.Background(), rand, g.key, digest)
	}
	if err := checkPrivate(g.key); err != nil {
		return nil, err
	}
	if opts == nil || opts.HashFunc() != crypto.SHA256 || len(digest) != 32 {
		return g.key.Sign(nil, digest, opts)
	}
	return g.s.sign.Do(context.Background(), signRequest{key: g.key, hash: digest, deterministic: true})
}

// Stats returns the server's counts: its requests, those waiting now,
// their latencies, and the operations of its engines and of its CPU path.
func (s *Server) Stats() batch.Stats {
	st := s.meter.Stats()
	engine.AddDistinct(&st, s.engines)
	return st
}

// Close stops the server after finishing queued requests; later requests
// fail with batch.ErrClosed. It does not close the engines (they may
// serve others). Calling it again does nothing.
func (s *Server) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.sign.Close()
	s.verify.Close()
	s.ecdh.Close()
	return s.cpu.Close()
}
