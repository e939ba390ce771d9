package mlkem

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Parameters is an ML-KEM parameter set of FIPS 203: MLKEM768 or
// MLKEM1024.
type Parameters int

const (
	MLKEM768 Parameters = iota
	MLKEM1024
)

func (p Parameters) String() string {
	switch p {
	case MLKEM768:
		return "ML-KEM-768"
	case MLKEM1024:
		return "ML-KEM-1024"
	}
	return fmt.Sprintf("mlkem.Parameters(%d)", int(p))
}

// Server turns single key generations, encapsulations and decapsulations
// from many goroutines into batches for one or more engines (an Engine
// per device, or a CPU engine); each engine gets its own workers, and a
// batch goes to whichever is free. Each request goes where it finishes
// first (batch.NewWithCPU): while the device's batches would make it wait
// longer than a core takes, it is computed at once with crypto/mlkem;
// under load, requests gather into batches. A Server whose engines all
// compute on the CPU computes each request at once and batches nothing.
//
// Keys held by the Server (DecapsulationKey) implement crypto.Decapsulator,
// so crypto/hpke opens with them (NewMLKEMPrivateKey, and
// NewHybridPrivateKey beside an X25519 or P-256 KeyExchanger of package ecdh
// or ecdsa).
type Server struct {
	shell *engine.Server[*Engine]
	ops   [2]kemOps // by Parameters
}

// kemOps are the batchers of one parameter set.
type kemOps struct {
	keygen *batch.Batcher[[]byte, []byte]
	encap  *batch.Batcher[[]byte, encapsulated]
	decap  *batch.Batcher[decapsulation, []byte]
}

// encapsulated is an encapsulation's outcome.
type encapsulated struct{ shared, ciphertext []byte }

// decapsulation is one decapsulation request: the key's seed and the
// ciphertext, and for a key the Server holds (DecapsulationKey) its
// crypto/mlkem key, which the CPU path uses rather than expanding the
// seed again.
type decapsulation struct {
	seed, ciphertext []byte
	key              decapsulator
}

// NewServer starts a Server over engines with the given batching options.
// It fails without an engine or with a nil one.
func NewServer(opts batch.Options, engines ...*Engine) (*Server, error) {
	shell, err := engine.NewServer("mlkem", opts, engines, CPUEngine(), engine.Defaults{})
	if err != nil {
		return nil, err
	}
	s := &Server{shell: shell}
	for ps := range s.ops {
		p := Parameters(ps)
		cpu := p.params()
		s.ops[ps] = kemOps{
			keygen: engine.OperationCPU(shell, func(e *Engine, seeds [][]byte) ([][]byte, error) { return e.keyGenOf(p, seeds) },
				cpu.keyGenOne),
			encap: engine.OperationCPU(shell, func(e *Engine, eks [][]byte) ([]encapsulated, error) {
				shared, cts, err := e.encapsulateOf(p, eks)
				if shared == nil && err != nil {
					return nil, err
				}
				out := make([]encapsulated, len(eks))
				for i := range out {
					out[i] = encapsulated{shared[i], cts[i]}
				}
				return out, err
			}, cpu.encapsulateOne),
			decap: engine.OperationCPU(shell, func(e *Engine, reqs []decapsulation) ([][]byte, error) {
				seeds, cts := make([][]byte, len(reqs)), make([][]byte, len(reqs))
				for i, r := range reqs {
					seeds[i], cts[i] = r.seed, r.ciphertext
				}
				return e.decapsulateOf(p, seeds, cts)
			}, cpu.decapsulateOne),
		}
	}
	return s, nil
}

// keyGenOne, encapsulateOne and decapsulateOne are one request on the
// CPU, with the Engine's errors for its element.
func (p *params) keyGenOne(seed []byte) ([]byte, error) {
	if err := p.seedError(seed); err != nil {
		return nil, err
	}
	key, err := p.newDecapsulationKey(seed)
	if err != nil {
		return nil, err
	}
	return key.encapsulationKey(), nil
}

func (p *params) encapsulateOne(ek []byte) (encapsulated, error) {
	key, err := p.parse(ek)
	if err != nil {
		return encapsulated{}, err
	}
	shared, ciphertext := key.Encapsulate()
	return encapsulated{shared, ciphertext}, nil
}

func (p *params) decapsulateOne(r decapsulation) ([]byte, error) {
	if r.key == nil {
		if err := p.seedError(r.seed); err != nil {
			return nil, err
		}
	}
	if err := p.ciphertextError(r.ciphertext); err != nil {
		return nil, err
	}
	key := r.key
	if key == nil {
		var err error
		if key, err = p.newDecapsulationKey(r.seed); err != nil {
			return nil, err
		}
	}
	return key.Decapsulate(r.ciphertext)
}

// params are p's parameters (p one of MLKEM768 and MLKEM1024).
func (p Parameters) params() *params {
	if p == MLKEM1024 {
		return mlkem1024
	}
	return mlkem768
}

// keyGenOf, encapsulateOf and decapsulateOf are the Engine's calls of p.
func (e *Engine) keyGenOf(p Parameters, seeds [][]byte) ([][]byte, error) {
	if p == MLKEM1024 {
		return e.KeyGen1024(seeds)
	}
	return e.KeyGen768(seeds)
}

func (e *Engine) encapsulateOf(p Parameters, eks [][]byte) (shared, ciphertexts [][]byte, err error) {
	if p == MLKEM1024 {
		return e.Encapsulate1024(eks)
	}
	return e.Encapsulate768(eks)
}

func (e *Engine) decapsulateOf(p Parameters, seeds, ciphertexts [][]byte) ([][]byte, error) {
	if p == MLKEM1024 {
		return e.Decapsulate1024(seeds, ciphertexts)
	}
	return e.Decapsulate768(seeds, ciphertexts)
}

// opsOf are the batchers of p, or an error for a parameter set that is
// not one.
func (s *Server) opsOf(p Parameters) (*kemOps, error) {
	if p != MLKEM768 && p != MLKEM1024 {
		return nil, fmt.Errorf("mlkem: %v is not a parameter set", p)
	}
	return &s.ops[p], nil
}

// KeyGen returns the encapsulation key of the decapsulation key seed (d ‖
// z), batched with other callers' requests (Engine.KeyGen768,
// KeyGen1024).
func (s *Server) KeyGen(ctx context.Context, p Parameters, seed []byte) ([]byte, error) {
	ops, err := s.opsOf(p)
	if err != nil {
		return nil, err
	}
	return ops.keygen.Do(ctx, seed)
}

// Encapsulate encapsulates a new shared key to the encapsulation key ek
// and returns it and its ciphertext, batched with other callers' requests
// (Engine.Encapsulate768, Encapsulate1024: fresh randomness from
// crypto/rand).
func (s *Server) Encapsulate(ctx context.Context, p Parameters, ek []byte) (shared, ciphertext []byte, err error) {
	ops, err := s.opsOf(p)
	if err != nil {
		return nil, nil, err
	}
	out, err := ops.encap.Do(ctx, ek)
	return out.shared, out.ciphertext, err
}

// Decapsulate returns the shared key of ciphertext under the
// decapsulation key seed, batched with other callers' requests
// (Engine.Decapsulate768, Decapsulate1024: the implicit-rejection key for a
// ciphertext that does not decrypt consistently, as crypto/mlkem).
func (s *Server) Decapsulate(ctx context.Context, p Parameters, seed, ciphertext []byte) ([]byte, error) {
	ops, err := s.opsOf(p)
	if err != nil {
		return nil, err
	}
	return ops.decap.Do(ctx, decapsulation{seed: seed, ciphertext: ciphertext})
}

// Call is one request submitted with Server.Go: its inputs, and once it
// is complete its outcome, after which the Server sends the Call on Done.
// What it asks for is told by the inputs set: Seed and Ciphertext, a
// decapsulation (SharedKey); EncapsulationKey, an encapsulation (SharedKey
// and Ciphertext); Seed alone, a key generation (EncapsulationKey). A Call
// may be reused once it has come back on Done.
type Call struct {
	Parameters       Parameters
	Seed             []byte
	EncapsulationKey []byte
	Ciphertext       []byte
	SharedKey        []byte
	Err              error
	// Done receives the Call when it is complete. It must be buffered,
	// with room for every Call in flight on it: a full Done holds up the
	// answers of the other requests of the Call's batch.
	Done chan *Call
}

var errNoDone = errors.New("mlkem: Go needs a Call with a buffered Done channel")

// Go submits call and returns without waiting for it (the asynchronous
// form of KeyGen, Encapsulate and Decapsulate, for a caller that holds
// many requests): its outcome arrives on call.Done, the context's error
// included if ctx ends before its batch runs. Like the blocking forms, it
// may be computed on the CPU path while few requests are in flight. Its
// own error (a nil or unbuffered Done, no input, a parameter set that is
// not one, a nil or ended context, a closed server) means the Call was
// not submitted and will not arrive on Done.
func (s *Server) Go(ctx context.Context, call *Call) error {
	if call == nil || call.Done == nil || cap(call.Done) == 0 {
		return errNoDone
	}
	ops, err := s.opsOf(call.Parameters)
	if err != nil {
		return err
	}
	call.Err = nil
	switch {
	case call.Seed != nil && call.Ciphertext != nil:
		call.SharedKey = nil
		return ops.decap.Go(ctx, decapsulation{seed: call.Seed, ciphertext: call.Ciphertext}, (*decapsulatedCall)(call))
	case call.EncapsulationKey != nil && call.Seed == nil:
		call.SharedKey, call.Ciphertext = nil, nil
		return ops.encap.Go(ctx, call.EncapsulationKey, (*encapsulatedCall)(call))
	case call.Seed != nil:
		call.EncapsulationKey = nil
		return ops.keygen.Go(ctx, call.Seed, (*keyGenCall)(call))
	}
	return errors.New("mlkem: a Call needs a Seed, an EncapsulationKey, or a Seed and a Ciphertext")
}

// decapsulatedCall, encapsulatedCall and keyGenCall are a Call as the
// batchers complete it.
type (
	decapsulatedCall Call
	encapsulatedCall Call
	keyGenCall       Call
)

func (c *decapsulatedCall) Complete(shared []byte, err error) {
	c.SharedKey, c.Err = shared, err
	c.Done <- (*Call)(c)
}

func (c *encapsulatedCall) Complete(out encapsulated, err error) {
	c.SharedKey, c.Ciphertext, c.Err = out.shared, out.ciphertext, err
	c.Done <- (*Call)(c)
}

func (c *keyGenCall) Complete(ek []byte, err error) {
	c.EncapsulationKey, c.Err = ek, err
	c.Done <- (*Call)(c)
}

// Stats returns the server's counts: its requests, those waiting now,
// their latencies, and the operations of its engines and of its CPU path.
func (s *Server) Stats() batch.Stats { return s.shell.Stats() }

// Close stops the server after finishing queued requests; later requests,
// those of its keys included, fail with batch.ErrClosed. It does not close
// the engines (they may serve others). Calling it again does nothing.
func (s *Server) Close() error { return s.shell.Close() }
