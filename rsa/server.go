package rsa

import (
	"context"
	stdrsa "crypto/rsa"

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
// Each request goes where it finishes first (batch.NewWithCPU): while the
// device's batches would make it wait longer than a core takes, it is
// computed at once on the CPU, in constant time (filippo.io/bigmod, as
// CPUEngine; blinded when the first engine blinds), in the caller's
// goroutine or for Go in a goroutine of its own, so a lone signature has
// the CPU's latency; under load, requests gather into batches.
// batch.Options.CPUOffload bounds the requests on the CPU at once
// (negative: none). A Server whose engines all compute on the CPU computes
// each request at once and batches nothing (batch.NewDirect).
//
// A zero batch.Options.AnswerPiece answers a batch's callers, over one
// engine, in pieces of 128 (serverAnswerPiece) that the batch's worker
// takes too (batch.Options.AnswerAlongside), and over several engines on
// all cores with batch.Parallel, as a negative one does.
type Server struct {
	shell *engine.Server[*Engine]
	b     *batch.Batcher[privateRequest, []byte]
}

// serverAnswerPiece is a one-engine Server's batch.Options.AnswerPiece
// when the options leave it zero, with AnswerAlongside: the checks of a
// batch's results keep every core busy, so the worker answers the pieces
// that no goroutine has come for yet (see batch.Options.AnswerAlongside).
// Over several engines batch.Parallel answers as fast or faster, and its
// batches stay full where every caller is in a batch.
const serverAnswerPiece = 128

// serverAnswering is how a Server answers a batch's callers when
// batch.Options leaves it zero (see Server).
func serverAnswering(engines int) (piece int, alongside bool) {
	if engines > 1 {
		return -1, false // batch.Parallel
	}
	return serverAnswerPiece, true
}

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
	shell, err := engine.NewServer("rsa", opts, engines, CPUEngine(), engine.Defaults{Answering: serverAnswering})
	if err != nil {
		return nil, err
	}
	first, cpu := engines[0], shell.CPU()
	return &Server{shell: shell, b: engine.Operation(shell, func(e *Engine, reqs []privateRequest) ([][]byte, error) {
		if e == cpu {
			e.SetBlinding(first.Blinding()) // the CPU path blinds where the first engine does
		}
		return e.runRequests(reqs)
	})}, nil
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
func (s *Server) Stats() batch.Stats { return s.shell.Stats() }

// Signer validates key and returns a crypto.Signer and crypto.Decrypter
// for it whose operations run on s. The key must not be modified
// afterwards. After Close it fails with an error wrapping
// batch.ErrClosed.
func (s *Server) Signer(key *stdrsa.PrivateKey) (*Signer, error) {
	if err := s.shell.Err(); err != nil {
		return nil, err
	}
	k, err := preparePrivate(key)
	if err != nil {
		return nil, err
	}
	return &Signer{s: s, key: key, prepared: k}, nil
}

// Close stops the server after finishing queued requests; operations
// started afterwards, and Signer, fail with batch.ErrClosed. It closes no
// engine (they may serve others). Calling it again does nothing.
func (s *Server) Close() error { return s.shell.Close() }

// private computes one raw private-key operation in a batch (in: see
// privateRequest).
func (s *Server) private(ctx context.Context, k *privateKey, in []byte) ([]byte, error) {
	return s.b.Do(ctx, privateRequest{key: k, in: in})
}
