package ed25519

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Server turns single signing and verification requests from many
// goroutines into batches for one or more engines (an Engine per device,
// or a CPU engine); each engine gets its own workers, and a batch goes to
// whichever is free. Requests under different Options are batched
// together and computed in groups of the same Options.
//
// While few requests wait, they are computed on the CPU instead, with
// crypto/ed25519, in the caller's goroutine, so a lone request does not
// wait for a device batch (batch.NewWithCPU says when,
// batch.Options.CPUOffload how many at once; negative: never). A Server
// whose engines all compute on the CPU computes each request at once, as
// crypto/ed25519 would, and batches nothing (batch.NewDirect).
type Server struct {
	sign    *batch.Batcher[signRequest, []byte]
	verify  *batch.Batcher[verifyRequest, bool]
	engines []*Engine
	meter   batch.Meter
	cpu     *Engine // the offload's
	closed  atomic.Bool
}

type signRequest struct {
	key  ed25519.PrivateKey
	msg  []byte
	opts ed25519.Options
}

type verifyRequest struct {
	pub      ed25519.PublicKey
	msg, sig []byte
	opts     ed25519.Options
}

// NewServer starts a Server over engines with the given batching
// options. It fails without an engine or with a nil one.
func NewServer(opts batch.Options, engines ...*Engine) (*Server, error) {
	if err := engine.CheckEngines("ed25519", engines); err != nil {
		return nil, err
	}
	s := &Server{engines: engines, cpu: CPUEngine()}
	opts.Meter = &s.meter
	s.sign = engine.NewBatcher(opts, engines, s.cpu, signRequests)
	s.verify = engine.NewBatcher(opts, engines, s.cpu, verifyRequests)
	return s, nil
}

// signRequests signs a batch of a Server's requests on e.
func signRequests(e *Engine, reqs []signRequest) ([][]byte, error) {
	out := make([][]byte, len(reqs))
	errs := make([]error, len(reqs))
	engine.Groups(reqs, func(r signRequest) ed25519.Options { return r.opts }, func(o ed25519.Options, idx []int) {
		keys := make([]ed25519.PrivateKey, len(idx))
		msgs := make([][]byte, len(idx))
		for k, i := range idx {
			keys[k], msgs[k] = reqs[i].key, reqs[i].msg
		}
		sigs, err := e.Sign(keys, msgs, &o)
		engine.Scatter(idx, sigs, err, out, errs)
	})
	return out, batch.Collect(errs)
}

// verifyRequests verifies a batch of a Server's requests on e.
func verifyRequests(e *Engine, reqs []verifyRequest) ([]bool, error) {
	out := make([]bool, len(reqs))
	errs := make([]error, len(reqs))
	engine.Groups(reqs, func(r verifyRequest) ed25519.Options { return r.opts }, func(o ed25519.Options, idx []int) {
		pubs := make([]ed25519.PublicKey, len(idx))
		msgs := make([][]byte, len(idx))
		sigs := make([][]byte, len(idx))
		for k, i := range idx {
			pubs[k], msgs[k], sigs[k] = reqs[i].pub, reqs[i].msg, reqs[i].sig
		}
		ok, err := e.Verify(pubs, msgs, sigs, &o)
		engine.Scatter(idx, ok, err, out, errs)
	})
	return out, batch.Collect(errs)
}

// Sign computes one signature, batched with other callers' requests
// (Engine.Sign; nil opts: plain Ed25519).
func (s *Server) Sign(ctx context.Context, key ed25519.PrivateKey, msg []byte, opts *ed25519.Options) ([]byte, error) {
	r := signRequest{key: key, msg: msg}
	if opts != nil {
		r.opts = *opts
	}
	return s.sign.Do(ctx, r)
}

// Verify checks one signature, batched with other callers' requests
// (Engine.Verify; nil opts: plain Ed25519). The verdict is crypto/ed25519's;
// an error says the input was malformed (ErrKeyLength, ErrPrehashLength),
// the options are refused, or the request was not computed.
func (s *Server) Verify(ctx context.Context, pub ed25519.PublicKey, msg, sig []byte, opts *ed25519.Options) (bool, error) {
	r := verifyRequest{pub: pub, msg: msg, sig: sig}
	if opts != nil {
		r.opts = *opts
	}
	return s.verify.Do(ctx, r)
}

// Signer returns a crypto.Signer for key whose signatures the server
// computes (crypto/tls and crypto/x509 accept it for Ed25519
// certificates). It fails for a key not of PrivateKeySize bytes and on a
// closed server.
func (s *Server) Signer(key ed25519.PrivateKey) (*Signer, error) {
	if len(key) != PrivateKeySize {
		return nil, fmt.Errorf("%w: a private key of %d bytes", ErrKeyLength, len(key))
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("ed25519: Signer: %w", batch.ErrClosed)
	}
	return &Signer{s: s, key: key}, nil
}

// Signer is a crypto.Signer over a Server.
type Signer struct {
	s   *Server
	key ed25519.PrivateKey
}

// Public returns the key's ed25519.PublicKey.
func (g *Signer) Public() crypto.PublicKey {
	return ed25519.PublicKey(append([]byte(nil), g.key[SeedSize:]...))
}

// Sign signs msg as ed25519.PrivateKey.Sign does: opts.HashFunc() zero
// for Ed25519 (msg is the message) or crypto.SHA512 for Ed25519ph (msg
// is its hash), an *ed25519.Options for a context. rand is not used:
// Ed25519 signatures are deterministic.
func (g *Signer) Sign(_ io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	var o *ed25519.Options
	switch v := opts.(type) {
	case *ed25519.Options:
		o = v
	case nil:
	default:
		o = &ed25519.Options{Hash: v.HashFunc()}
	}
	return g.s.Sign(context.Background(), g.key, msg, o)
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
	return s.cpu.Close()
}
