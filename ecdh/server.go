package ecdh

import (
	"context"
	"errors"

	"github.com/gpucrypto/gpucrypto/batch"
)

// Server turns single requests from many goroutines into batches for one or
// more backends (an Engine per device, or a CPU). Each backend gets its own
// worker; a batch goes to whichever is free. Requests for the two curves and
// the two operations are batched separately.
//
// While few requests wait, they are computed on the CPU instead (the CPU
// backend, constant-time), in the caller's goroutine, so a lone request
// does not wait for a device batch: batch.NewWithCPU says when, and
// batch.Options.CPUOffload how many at once (negative: never). A Server
// whose backends are all CPUs batches everything.
type Server struct {
	b [2][2]*batch.Batcher[request, []byte] // [curve][op]
}

type request struct{ priv, peer []byte }

const (
	opPublic = iota
	opShared
)

// NewServer starts a Server over backends with the given batching options.
func NewServer(opts batch.Options, backends ...Backend) (*Server, error) {
	if len(backends) == 0 {
		return nil, errors.New("ecdh: NewServer needs at least one backend")
	}
	s := &Server{}
	allCPU := true
	for _, be := range backends {
		if _, ok := be.(CPU); !ok {
			allCPU = false
		}
	}
	for _, c := range Curves {
		for _, op := range []int{opPublic, opShared} {
			var workers []batch.RunFunc[request, []byte]
			for _, be := range backends {
				workers = append(workers, func(reqs []request) ([][]byte, error) { return runRequests(be, c, op, reqs) })
			}
			var offload batch.RunFunc[request, []byte]
			if !allCPU {
				offload = func(reqs []request) ([][]byte, error) { return runRequests(CPU{}, c, op, reqs) }
			}
			s.b[c][op] = batch.NewWithCPU(opts, offload, workers...)
		}
	}
	return s, nil
}

// runRequests computes a batch of a Server's requests of one curve and
// operation on be.
func runRequests(be Backend, c Curve, op int, reqs []request) ([][]byte, error) {
	privs := make([][]byte, len(reqs))
	for i, r := range reqs {
		privs[i] = r.priv
	}
	if op == opPublic {
		return be.PublicKeys(c, privs)
	}
	peers := make([][]byte, len(reqs))
	for i, r := range reqs {
		peers[i] = r.peer
	}
	return be.SharedSecrets(c, privs, peers)
}

// OnCPU is the number of requests the server has computed on the CPU
// instead of batching them (see Server).
func (s *Server) OnCPU() int64 {
	var n int64
	for _, c := range s.b {
		for _, b := range c {
			n += b.OnCPU()
		}
	}
	return n
}

// PublicKey computes one public key, batched with other callers' requests.
func (s *Server) PublicKey(ctx context.Context, c Curve, priv []byte) ([]byte, error) {
	if err := c.valid(); err != nil {
		return nil, err
	}
	return s.b[c][opPublic].Do(ctx, request{priv: priv})
}

// SharedSecret computes one shared secret, batched with other callers'
// requests. A low-order peer gives ErrLowOrder.
func (s *Server) SharedSecret(ctx context.Context, c Curve, priv, peer []byte) ([]byte, error) {
	if err := c.valid(); err != nil {
		return nil, err
	}
	return s.b[c][opShared].Do(ctx, request{priv: priv, peer: peer})
}

// PublicKeys implements Backend by submitting each element (so a Server can
// stand wherever a Backend is expected).
func (s *Server) PublicKeys(c Curve, privs [][]byte) ([][]byte, error) {
	return s.each(c, len(privs), func(ctx context.Context, i int) ([]byte, error) {
		return s.PublicKey(ctx, c, privs[i])
	})
}

// SharedSecrets implements Backend.
func (s *Server) SharedSecrets(c Curve, privs, peers [][]byte) ([][]byte, error) {
	if err := checkBatch(c, privs, peers, true); err != nil {
		return nil, err
	}
	return s.each(c, len(privs), func(ctx context.Context, i int) ([]byte, error) {
		return s.SharedSecret(ctx, c, privs[i], peers[i])
	})
}

func (s *Server) each(c Curve, n int, f func(context.Context, int) ([]byte, error)) ([][]byte, error) {
	if err := c.valid(); err != nil {
		return nil, err
	}
	out := make([][]byte, n)
	errs := make([]error, n)
	done := make(chan struct{}, n)
	for i := range n {
		go func() {
			out[i], errs[i] = f(context.Background(), i)
			done <- struct{}{}
		}()
	}
	for range n {
		<-done
	}
	return out, batch.Collect(errs)
}

// Close stops the server after finishing queued requests.
func (s *Server) Close() {
	for _, c := range s.b {
		for _, b := range c {
			b.Close()
		}
	}
}
