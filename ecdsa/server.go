package ecdsa

import (
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"

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
	shell  *engine.Server[*Engine]
	sign   *batch.Batcher[signRequest, []byte]
	verify *batch.Batcher[verifyRequest, bool]
	ecdh   *batch.Batcher[ecdhRequest, []byte]
}

// signRequest is one signature in form: hedged from random (32 bytes read
// for it from the caller's source), or from bytes that its batch makes
// where fresh (a nil source or crypto/rand's: randomRows, one read of
// crypto/rand for many elements instead of one for each), or with RFC
// 6979's nonce where deterministic.
type signRequest struct {
	key           *ecdsa.PrivateKey
	hash          []byte
	random        [32]byte
	form          Form
	deterministic bool
	fresh         bool
}

// signKind is what one engine call of a batch's signatures shares.
type signKind struct {
	form          Form
	deterministic bool
	fresh         bool
}

type verifyRequest struct {
	pub       *ecdsa.PublicKey
	hash, sig []byte
	form      Form
}

// ecdhRequest is one shared secret of priv and peer (crypto/ecdh's
// encodings, as Engine.ECDH takes them), or with a nil peer the public
// key of priv (Engine.PublicKeys).
type ecdhRequest struct{ priv, peer []byte }

// NewServer starts a Server over engines with the given batching
// options. It fails without an engine or with a nil one.
func NewServer(opts batch.Options, engines ...*Engine) (*Server, error) {
	shell, err := engine.NewServer("ecdsa", opts, engines, CPUEngine(), engine.Defaults{Pipeline: engine.HostBoundPipeline})
	if err != nil {
		return nil, err
	}
	return &Server{
		shell:  shell,
		sign:   engine.OperationCPU(shell, signRequests, signOnCPU),
		verify: engine.OperationCPU(shell, verifyRequests, verifyOnCPU),
		ecdh:   engine.Operation(shell, ecdhRequests),
	}, nil
}

// signOnCPU is the Server's CPU path for signatures: the request with
// crypto/ecdsa at once (the CPU engine's per-element work, without its
// batch machinery around one element; the hedged request's random bytes
// are not read: signOnHost says why).
func signOnCPU(r signRequest) ([]byte, error) {
	return signOnHost(r.key, r.hash, r.form, r.deterministic)
}

// verifyOnCPU is the Server's CPU path for verifications: the request
// with crypto/ecdsa at once.
func verifyOnCPU(r verifyRequest) (bool, error) {
	return verifyCPU(r.pub, r.hash, r.sig, r.form)
}

// signRequests signs a batch of a Server's requests on e: one call per
// form and kind of nonce (hedged, deterministic).
func signRequests(e *Engine, reqs []signRequest) ([][]byte, error) {
	out := make([][]byte, len(reqs))
	errs := make([]error, len(reqs))
	engine.Groups(reqs, func(r signRequest) signKind { return signKind{r.form, r.deterministic, r.fresh} }, func(k signKind, idx []int) {
		keys := make([]*ecdsa.PrivateKey, len(idx))
		hashes := make([][]byte, len(idx))
		var random []byte // nil: the batch makes them (fresh, deterministic)
		if !k.fresh && !k.deterministic {
			random = make([]byte, 32*len(idx))
		}
		for j, i := range idx {
			keys[j], hashes[j] = reqs[i].key, reqs[i].hash
			if random != nil {
				copy(random[32*j:], reqs[i].random[:])
			}
		}
		sigs, sigErrs, err := e.signBatch(k.form, k.deterministic, keys, hashes, random)
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

// ecdhRequests computes a batch of a Server's shared secrets and public
// keys on e: one call each.
func ecdhRequests(e *Engine, reqs []ecdhRequest) ([][]byte, error) {
	out := make([][]byte, len(reqs))
	errs := make([]error, len(reqs))
	engine.Groups(reqs, func(r ecdhRequest) bool { return r.peer == nil }, func(public bool, idx []int) {
		privs := make([][]byte, len(idx))
		peers := make([][]byte, len(idx))
		for k, i := range idx {
			privs[k], peers[k] = reqs[i].priv, reqs[i].peer
		}
		var res [][]byte
		var err error
		if public {
			res, err = e.PublicKeys(privs)
		} else {
			res, err = e.ECDH(privs, peers)
		}
		engine.Scatter(idx, res, err, out, errs)
	})
	return out, batch.Collect(errs)
}

// hedged is the request of a signature of hash in form with a nonce hedged
// from 32 bytes of rand, read now; for nil or crypto/rand.Reader, as the
// Engine takes them, the batch makes its random bytes (fresh).
func hedged(rand io.Reader, key *ecdsa.PrivateKey, hash []byte, form Form) (signRequest, error) {
	r := signRequest{key: key, hash: hash, form: form}
	if rand == nil || rand == cryptoRand {
		r.fresh = true
		return r, nil
	}
	return r, readRandom(rand, r.random[:])
}

// SignASN1 computes one DER signature of hash, batched with other
// callers' requests (Engine.SignASN1: nonces hedged from 32 bytes of rand,
// nil for crypto/rand.Reader).
func (s *Server) SignASN1(ctx context.Context, rand io.Reader, key *ecdsa.PrivateKey, hash []byte) ([]byte, error) {
	return s.signHedged(ctx, rand, key, hash, ASN1)
}

// SignP1363 is SignASN1 for a signature in IEEE P1363's form, r ‖ s of 32
// bytes each (JOSE's ES256; Engine.SignP1363).
func (s *Server) SignP1363(ctx context.Context, rand io.Reader, key *ecdsa.PrivateKey, hash []byte) ([]byte, error) {
	return s.signHedged(ctx, rand, key, hash, P1363)
}

func (s *Server) signHedged(ctx context.Context, rand io.Reader, key *ecdsa.PrivateKey, hash []byte, form Form) ([]byte, error) {
	r, err := hedged(rand, key, hash, form)
	defer clear(r.random[:])
	if err != nil {
		return nil, err
	}
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
	if peer == nil {
		peer = []byte{} // nil asks for the public key (ecdhRequest); Engine.ECDH refuses an empty one
	}
	return s.ecdh.Do(ctx, ecdhRequest{priv: priv, peer: peer})
}

// PublicKey computes the P-256 public key of the private key priv (32
// bytes, as crypto/ecdh's PrivateKey.Bytes) in crypto/ecdh's encoding (65
// bytes, uncompressed), batched with other callers' requests
// (Engine.PublicKeys).
func (s *Server) PublicKey(ctx context.Context, priv []byte) ([]byte, error) {
	return s.ecdh.Do(ctx, ecdhRequest{priv: priv})
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

// Call is one request submitted with Server.Go (or a signature with
// Signer.Go): its inputs, and once it is complete its outcome, after
// which the Server sends the Call on Done. What it asks for is told by
// the key set:
//   - Key: a signature of Hash in Form, its nonce hedged from 32 bytes of
//     Rand (nil: crypto/rand.Reader), or RFC 6979's where Deterministic
//     (Hash a SHA-256 digest), in Result;
//   - Pub: a verification of Signature over Hash in Form, in Valid;
//   - Priv: the shared secret of Priv with Peer (crypto/ecdh's encodings,
//     as ECDH takes them), or with a nil Peer the public key of Priv, in
//     Result.
//
// A Call may be reused once it has come back on Done.
type Call struct {
	Key           *ecdsa.PrivateKey
	Pub           *ecdsa.PublicKey
	Priv, Peer    []byte
	Form          Form
	Rand          io.Reader
	Deterministic bool
	Hash          []byte
	Signature     []byte
	Result        []byte
	Valid         bool
	Err           error
	// Done receives the Call when it is complete. It must be buffered,
	// with room for every Call in flight on it: a full Done holds up the
	// answers of the other requests of the Call's batch.
	Done chan *Call
}

var (
	errNoDone   = errors.New("ecdsa: Go needs a Call with a buffered Done channel")
	errCallKind = errors.New("ecdsa: a Call needs exactly one of Key, Pub and Priv")
)

// Go submits call and returns without waiting for it (the asynchronous
// form of SignASN1, SignP1363, VerifyASN1, VerifyP1363, ECDH and
// PublicKey, for a caller that holds many requests): its outcome arrives
// on call.Done, the context's error included if ctx ends before its batch
// runs. Like the blocking forms, it may be computed on the CPU path while
// few requests are in flight. Go blocks only while the server's queue is
// full (batch.Options.QueueSize), until ctx ends. Its own error (a nil or
// unbuffered Done, not exactly one of Key, Pub and Priv, unreadable
// randomness, a deterministic signature of a hash that is not 32 bytes,
// a nil or ended context, a closed server) means the Call was not
// submitted and will not arrive on Done.
func (s *Server) Go(ctx context.Context, call *Call) error {
	if call == nil || call.Done == nil || cap(call.Done) == 0 {
		return errNoDone
	}
	call.Result, call.Valid, call.Err = nil, false, nil
	switch {
	case call.Key != nil && call.Pub == nil && call.Priv == nil:
		return s.goSign(ctx, call.Key, call, call)
	case call.Pub != nil && call.Key == nil && call.Priv == nil:
		return s.verify.Go(ctx, verifyRequest{pub: call.Pub, hash: call.Hash, sig: call.Signature, form: call.Form}, (*verifiedCall)(call))
	case call.Priv != nil && call.Key == nil && call.Pub == nil:
		return s.ecdh.Go(ctx, ecdhRequest{priv: call.Priv, peer: call.Peer}, (*resultCall)(call))
	}
	return errCallKind
}

// resultCall and verifiedCall are a Call as the batchers complete it.
type (
	resultCall   Call
	verifiedCall Call
)

func (c *resultCall) Complete(res []byte, err error) {
	c.Result, c.Err = res, err
	c.Done <- (*Call)(c)
}

func (c *verifiedCall) Complete(ok bool, err error) {
	c.Valid, c.Err = ok, err
	c.Done <- (*Call)(c)
}

// Signer returns a crypto.Signer for key whose signatures the server
// computes (crypto/tls and crypto/x509 accept it for ECDSA certificates).
// It fails for a nil key and on a closed server.
func (s *Server) Signer(key *ecdsa.PrivateKey) (*Signer, error) {
	if key == nil {
		return nil, ErrNilKey
	}
	if err := s.shell.Err(); err != nil {
		return nil, err
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
	return g.SignContext(context.Background(), rand, digest, opts)
}

// SignContext is Sign; ctx bounds the wait for the batch (a nil ctx is an
// error).
func (g *Signer) SignContext(ctx context.Context, rand io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	if rand != nil {
		return g.s.SignASN1(ctx, rand, g.key, digest)
	}
	if err := checkPrivate(g.key); err != nil {
		return nil, err
	}
	if opts == nil || opts.HashFunc() != crypto.SHA256 || len(digest) != 32 {
		return g.key.Sign(nil, digest, opts)
	}
	return g.s.sign.Do(ctx, signRequest{key: g.key, hash: digest, deterministic: true})
}

// Go submits the signature of call.Hash under the Signer's key (call.Key,
// Pub and Priv are not used), as Server.Go does; as Sign, a nil call.Rand
// asks for RFC 6979's deterministic nonce (call.Hash a SHA-256 digest).
func (g *Signer) Go(ctx context.Context, call *Call) error {
	if call == nil || call.Done == nil || cap(call.Done) == 0 {
		return errNoDone
	}
	call.Result, call.Valid, call.Err = nil, false, nil
	req := *call
	req.Deterministic = call.Rand == nil
	return g.s.goSign(ctx, g.key, &req, call)
}

// goSign submits the signature that req asks for under key, completed on
// call.
func (s *Server) goSign(ctx context.Context, key *ecdsa.PrivateKey, req, call *Call) error {
	if req.Deterministic {
		if len(req.Hash) != 32 {
			return fmt.Errorf("ecdsa: a deterministic signature of a hash of %d bytes; Go takes SHA-256's 32 (Signer.Sign takes others)", len(req.Hash))
		}
		if err := checkPrivate(key); err != nil {
			return err
		}
		return s.sign.Go(ctx, signRequest{key: key, hash: req.Hash, form: req.Form, deterministic: true}, (*resultCall)(call))
	}
	r, err := hedged(req.Rand, key, req.Hash, req.Form)
	defer clear(r.random[:])
	if err != nil {
		return err
	}
	return s.sign.Go(ctx, r, (*resultCall)(call))
}

// Stats returns the server's counts: its requests, those waiting now,
// their latencies, and the operations of its engines and of its CPU path.
func (s *Server) Stats() batch.Stats { return s.shell.Stats() }

// Close stops the server after finishing queued requests; later requests,
// those of its Signers included, fail with batch.ErrClosed. It does not
// close the engines (they may serve others). Calling it again does
// nothing.
func (s *Server) Close() error { return s.shell.Close() }
