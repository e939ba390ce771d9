package rsa

import (
	"context"
	stdrsa "crypto/rsa"

	"github.com/gpucrypto/gpucrypto/batch"
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
type Server struct {
	b *batch.Batcher[privateRequest, []byte]
}

// privateRequest is one raw private-key operation: in^d mod n under key, in a
// big-endian string of the modulus's size, below the modulus.
type privateRequest struct {
	key *privateKey
	in  []byte
}

// NewServer starts a Server over engines with the given batching options.
// It panics when engines is empty or holds nil.
func NewServer(opts batch.Options, engines ...*Engine) *Server {
	if len(engines) == 0 {
		panic("rsa.NewServer: no engines")
	}
	var workers []batch.RunFunc[privateRequest, []byte]
	for _, e := range engines {
		if e == nil {
			panic("rsa.NewServer: nil engine")
		}
		workers = append(workers, e.runRequests)
	}
	cpu := CPUEngine()
	first := engines[0]
	offload := func(reqs []privateRequest) ([][]byte, error) {
		cpu.SetBlinding(first.Blinding())
		return cpu.runRequests(reqs)
	}
	return &Server{b: batch.NewWithCPU(opts, offload, workers...)}
}

// runRequests computes a batch of a Server's requests on e: each result
// in a string of the modulus's size, resultSlab of them cut from one
// allocation, made on all cores.
func (e *Engine) runRequests(reqs []privateRequest) ([][]byte, error) {
	keys := make([]*privateKey, len(reqs))
	in := make([][]byte, len(reqs))
	out := make([][]byte, len(reqs))
	for i, r := range reqs {
		keys[i], in[i] = r.key, r.in
	}
	errs := make([]error, len(reqs))
	batch.Parallel(len(reqs), resultSlab, func(lo, hi int) {
		for a := lo; a < hi; a += resultSlab {
			b := min(a+resultSlab, hi)
			copy(out[a:b], valueSlab(keys[a:b], errs[a:b]))
		}
	})
	e.private(keys, in, out, errs)
	for i, err := range errs {
		if err != nil {
			out[i] = nil
		}
	}
	return out, batch.Collect(errs)
}

// resultSlab is the number of a Server's results that share one
// allocation (64 KB for RSA-2048): a result kept long keeps no more alive.
const resultSlab = 256

// OnCPU is the number of operations the server has computed on the CPU
// instead of batching them (see NewServer).
func (s *Server) OnCPU() int64 { return s.b.OnCPU() }

// Signer validates key and returns a crypto.Signer and crypto.Decrypter
// for it whose operations run on s. The key must not be modified
// afterwards.
func (s *Server) Signer(key *stdrsa.PrivateKey) (*Signer, error) {
	k, err := preparePrivate(key)
	if err != nil {
		return nil, err
	}
	return &Signer{s: s, key: key, prepared: k}, nil
}

// Close stops the server after finishing queued requests; operations
// started afterwards fail with batch.ErrClosed.
func (s *Server) Close() { s.b.Close() }

// private computes one raw private-key operation in a batch (in: see
// privateRequest).
func (s *Server) private(ctx context.Context, k *privateKey, in []byte) ([]byte, error) {
	return s.b.Do(ctx, privateRequest{key: k, in: in})
}
