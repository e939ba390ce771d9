package rsa

import (
	"context"
	stdrsa "crypto/rsa"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Server turns single private-key operations from many goroutines (one per
// TLS handshake, say) into batches for one or more Engines, one worker per
// engine: a batch goes to whichever engine is free. Use it through the
// Signers it makes.
//
// Signatures and decryptions share batches: both are the same raw
// private-key operation, so a batch holds whatever is waiting. Padding is
// encoded and decoded in the caller's goroutine, so it runs in parallel and
// does not delay the batch.
//
// While few requests wait, they are computed on the CPU instead, in the
// caller's goroutine, in constant time (filippo.io/bigmod, as CPUEngine;
// blinded when the first engine blinds), so a lone signature does not wait
// for a device batch: batch.NewWithCPU says when, and
// batch.Options.CPUOffload how many at once (negative: never).
//
// A zero batch.Options.AnswerPiece answers a batch's callers, over one
// engine, in pieces of 128 (serverAnswerPiece) that the batch's worker
// takes too (batch.Options.AnswerAlongside), and over several engines on
// all cores with batch.Parallel, as a negative one does.
type Server struct {
	b       *batch.Batcher[privateRequest, []byte]
	engines []*Engine
	cpu     *Engine // the offload's
	meter   batch.Meter
	closed  atomic.Bool
}

// serverAnswerPiece is a one-engine Server's batch.Options.AnswerPiece
// when the options leave it zero, with AnswerAlongside: the checks of a
// batch's results keep every core busy, so the worker answers the pieces
// that no goroutine has come for yet (see batch.Options.AnswerAlongside).
// Over several engines batch.Parallel answers as fast or faster, and its
// batches stay full where every caller is in a batch: RSA-2048 at 65,536
// callers over two GPUs (docs/BENCHMARKS.md, twenty-eighth session).
const serverAnswerPiece = 128

// privateRequest is one raw private-key operation: in^d mod n under key, in a
// big-endian string of the modulus's size, below the modulus.
type privateRequest struct {
	key *privateKey
	in  []byte
}

// NewServer starts a Server over engines with the given batching options
// (its Meter is the server's own: Stats). It fails without an engine or
// with a nil one.
func NewServer(opts batch.Options, engines ...*Engine) (*Server, error) {
	if len(engines) == 0 {
		return nil, errors.New("rsa: NewServer needs at least one engine")
	}
	var workers []batch.RunFunc[privateRequest, []byte]
	for i, e := range engines {
		if e == nil {
			return nil, fmt.Errorf("rsa: NewServer: engine %d is nil", i)
		}
		workers = append(workers, e.runRequests)
	}
	s := &Server{engines: engines, cpu: CPUEngine()}
	first := engines[0]
	offload := func(reqs []privateRequest) ([][]byte, error) {
		s.cpu.SetBlinding(first.Blinding())
		return s.cpu.runRequests(reqs)
	}
	opts.Meter = &s.meter
	switch {
	case opts.AnswerPiece != 0:
	case len(engines) > 1:
		opts.AnswerPiece = -1 // batch.Parallel
	default:
		opts.AnswerPiece, opts.AnswerAlongside = serverAnswerPiece, true
	}
	s.b = batch.NewWithCPU(opts, offload, workers...)
	return s, nil
}

// runRequests computes a batch of a Server's requests on e: each result
// in a string of the modulus's size, resultSlab of them cut from one
// allocation, made on all cores.
func (e *Engine) runRequests(reqs []privateRequest) ([][]byte, error) {
	keys := make([]*privateKey, len(reqs))
	for i, r := range reqs {
		keys[i] = r.key
	}
	errs := make([]error, len(reqs))
	out := make([][]byte, len(reqs))
	batch.Parallel(len(reqs), resultSlab, func(lo, hi int) {
		for a := lo; a < hi; a += resultSlab {
			b := min(a+resultSlab, hi)
			copy(out[a:b], valueSlab(keys[a:b]))
		}
	})
	return e.private(&call[*privateKey]{keys: keys, errs: errs, out: out,
		input: func(i int, _ []byte) ([]byte, error) { return reqs[i].in, nil }})
}

// resultSlab is the number of a Server's results that share one
// allocation (64 KB for RSA-2048): a result kept long keeps no more alive.
const resultSlab = 256

// Stats returns the server's counts: its requests (Calls), those waiting
// now, their latencies, the operations of its CPU path (CPUOps) and those
// of its engines.
func (s *Server) Stats() batch.Stats {
	st := s.meter.Stats() // the CPU path's operations too
	engine.AddDistinct(&st, s.engines)
	return st
}

// Signer validates key and returns a crypto.Signer and crypto.Decrypter
// for it whose operations run on s. The key must not be modified
// afterwards. After Close it fails with an error wrapping
// batch.ErrClosed.
func (s *Server) Signer(key *stdrsa.PrivateKey) (*Signer, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("rsa: server closed: %w", batch.ErrClosed)
	}
	k, err := preparePrivate(key)
	if err != nil {
		return nil, err
	}
	return &Signer{s: s, key: key, prepared: k}, nil
}

// Close stops the server after finishing queued requests; operations
// started afterwards, and Signer, fail with batch.ErrClosed. It closes
// neither the engines (they may serve others) nor does it fail: its error
// is for the Close of every type being alike. Calling it again does
// nothing.
func (s *Server) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.b.Close()
	return s.cpu.Close()
}

// private computes one raw private-key operation in a batch (in: see
// privateRequest).
func (s *Server) private(ctx context.Context, k *privateKey, in []byte) ([]byte, error) {
	return s.b.Do(ctx, privateRequest{key: k, in: in})
}
