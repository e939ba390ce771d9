package ed25519

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Server turns single signing and verification requests from many
// goroutines into batches for one or more engines (an Engine per device,
// or a CPU engine); each engine gets its own workers, and a batch goes to
// whichever is free. Requests under different Options are batched
// together and computed in groups of the same Options.
//
// Each request goes where it finishes first (batch.NewWithCPU): while the
// device's batches would make it wait longer than a core takes, it is
// computed at once with crypto/ed25519 (in the caller's goroutine, or for
// Go in a goroutine of its own), so a lone request has crypto/ed25519's
// latency; under load, requests gather into batches.
// batch.Options.CPUOffload bounds the requests on the CPU at once
// (negative: none). A Server whose engines all compute on the CPU
// computes each request at once, as crypto/ed25519 would, and batches
// nothing (batch.NewDirect).
type Server struct {
	shell  *engine.Server[*Engine]
	sign   *batch.Batcher[signRequest, []byte]
	verify *batch.Batcher[verifyRequest, bool]
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
	shell, err := engine.NewServer("ed25519", opts, engines, CPUEngine(), engine.Defaults{Pipeline: engine.HostBoundPipeline})
	if err != nil {
		return nil, err
	}
	return &Server{
		shell:  shell,
		sign:   engine.OperationCPU(shell, signRequests, signOnCPU),
		verify: engine.OperationCPU(shell, verifyRequests, verifyOnCPU),
	}, nil
}

// signOnCPU is the Server's CPU path for signatures: the request with
// crypto/ed25519 at once (the CPU engine's per-element work, without its
// batch machinery around one element).
func signOnCPU(r signRequest) ([]byte, error) {
	v, err := variantOf(&r.opts)
	if err != nil {
		return nil, err
	}
	sig := make([]byte, SignatureSize)
	if err := v.signOne(sig, r.key, r.msg); err != nil {
		return nil, err
	}
	return sig, nil
}

// verifyOnCPU is the Server's CPU path for verifications: the request
// with crypto/ed25519 at once.
func verifyOnCPU(r verifyRequest) (bool, error) {
	v, err := variantOf(&r.opts)
	if err != nil {
		return false, err
	}
	return v.verifyOne(r.pub, r.msg, r.sig)
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

// options is *opts, or plain Ed25519's for nil.
func options(opts *ed25519.Options) ed25519.Options {
	if opts == nil {
		return ed25519.Options{}
	}
	return *opts
}

// Sign computes one signature, batched with other callers' requests
// (Engine.Sign; nil opts: plain Ed25519).
func (s *Server) Sign(ctx context.Context, key ed25519.PrivateKey, msg []byte, opts *ed25519.Options) ([]byte, error) {
	return s.sign.Do(ctx, signRequest{key: key, msg: msg, opts: options(opts)})
}

// Verify checks one signature, batched with other callers' requests
// (Engine.Verify; nil opts: plain Ed25519). The verdict is crypto/ed25519's;
// an error says the input was malformed (ErrKeyLength, ErrPrehashLength),
// the options are refused, or the request was not computed.
func (s *Server) Verify(ctx context.Context, pub ed25519.PublicKey, msg, sig []byte, opts *ed25519.Options) (bool, error) {
	return s.verify.Do(ctx, verifyRequest{pub: pub, msg: msg, sig: sig, opts: options(opts)})
}

// Call is one signing or verification submitted with Server.Go (or a
// signing with Signer.Go): its inputs, and once it is complete its
// outcome, after which the Server sends the Call on Done. A Call with a
// Key signs Message (Signature); one without verifies Signature over
// Message under Pub (Valid). A Call may be reused once it has come back
// on Done.
type Call struct {
	Key     ed25519.PrivateKey // signs Message when set
	Pub     ed25519.PublicKey  // verifies Signature when Key is nil
	Message []byte
	Options *ed25519.Options // nil: plain Ed25519
	// Signature is the signature made (signing), or the one to verify.
	Signature []byte
	Valid     bool // the verdict of a verification
	Err       error
	// Done receives the Call when it is complete. It must be buffered,
	// with room for every Call in flight on it: a full Done holds up the
	// answers of the other requests of the Call's batch.
	Done chan *Call
}

// errNoDone is Go's error for a Call that could not come back.
var errNoDone = errors.New("ed25519: Go needs a Call with a buffered Done channel")

// Go submits call and returns without waiting for it (the asynchronous
// form of Sign and Verify, for a caller that holds many requests): its
// outcome arrives on call.Done, the context's error included if ctx ends
// before its batch runs. Like Sign and Verify, it may be computed on the
// CPU path while few requests are in flight. Go blocks only while the
// server's queue is full (batch.Options.QueueSize), until ctx ends. Its
// own error (a nil or unbuffered Done, a nil or ended context, a closed
// server) means the Call was not submitted and will not arrive on Done.
func (s *Server) Go(ctx context.Context, call *Call) error {
	if call == nil || call.Done == nil || cap(call.Done) == 0 {
		return errNoDone
	}
	call.Err, call.Valid = nil, false
	if call.Key != nil {
		return s.sign.Go(ctx, signRequest{key: call.Key, msg: call.Message, opts: options(call.Options)}, (*signedCall)(call))
	}
	return s.verify.Go(ctx, verifyRequest{pub: call.Pub, msg: call.Message, sig: call.Signature, opts: options(call.Options)}, (*verifiedCall)(call))
}

// signedCall and verifiedCall are a Call as the batchers complete it.
type (
	signedCall   Call
	verifiedCall Call
)

func (c *signedCall) Complete(sig []byte, err error) {
	c.Signature, c.Err = sig, err
	c.Done <- (*Call)(c)
}

func (c *verifiedCall) Complete(ok bool, err error) {
	c.Valid, c.Err = ok, err
	c.Done <- (*Call)(c)
}

// Signer returns a crypto.Signer for key whose signatures the server
// computes (crypto/tls and crypto/x509 accept it for Ed25519
// certificates). It fails for a key not of PrivateKeySize bytes and on a
// closed server.
func (s *Server) Signer(key ed25519.PrivateKey) (*Signer, error) {
	if len(key) != PrivateKeySize {
		return nil, fmt.Errorf("%w: a private key of %d bytes", ErrKeyLength, len(key))
	}
	if err := s.shell.Err(); err != nil {
		return nil, err
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
func (g *Signer) Sign(rand io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	return g.SignContext(context.Background(), rand, msg, opts)
}

// SignContext is Sign; ctx bounds the wait for the batch (a nil ctx is an
// error).
func (g *Signer) SignContext(ctx context.Context, _ io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	return g.s.Sign(ctx, g.key, msg, signerOptions(opts))
}

// Go submits the signing of call.Message under the Signer's key (call.Key
// and call.Pub are not used), as Server.Go does: the signature arrives in
// call.Signature.
func (g *Signer) Go(ctx context.Context, call *Call) error {
	if call == nil || call.Done == nil || cap(call.Done) == 0 {
		return errNoDone
	}
	call.Err, call.Valid = nil, false
	return g.s.sign.Go(ctx, signRequest{key: g.key, msg: call.Message, opts: options(call.Options)}, (*signedCall)(call))
}

// signerOptions are a crypto.Signer's options as the Server takes them.
func signerOptions(opts crypto.SignerOpts) *ed25519.Options {
	switch v := opts.(type) {
	case *ed25519.Options:
		return v
	case nil:
		return nil
	default:
		return &ed25519.Options{Hash: v.HashFunc()}
	}
}

// Stats returns the server's counts: its requests, those waiting now,
// their latencies, and the operations of its engines and of its CPU path.
func (s *Server) Stats() batch.Stats { return s.shell.Stats() }

// Close stops the server after finishing queued requests; later requests,
// those of its Signers included, fail with batch.ErrClosed. It does not
// close the engines (they may serve others). Calling it again does
// nothing.
func (s *Server) Close() error { return s.shell.Close() }
