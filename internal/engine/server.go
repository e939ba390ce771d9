package engine

import (
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// Placed is an engine as a Server sees it: on a device, or on the CPU
// (nil Device), with its counts and its end.
type Placed interface {
	comparable
	Device() *device.Device
	Stats() batch.Stats
	Close() error
}

// Server is the shell under every package's Server: its engines, the CPU
// engine of its CPU path, one Meter shared by the batchers of its
// operations (Operation), its Stats and its Close. A package's Server
// holds one and adds its typed operations; the scheduling (where each
// request runs, how batches form and are answered) is the batch
// package's, the same for every algorithm.
type Server[E Placed] struct {
	pkg     string
	engines []E
	cpu     E // the CPU path's engine, the Server's own (closed by Close)
	opts    batch.Options
	onCPU   bool // Defaults.OnCPU
	meter   batch.Meter
	closed  atomic.Bool
	ops     []interface{ Close() }
}

// Answering is how an algorithm's Server answers a batch's callers when
// batch.Options leaves it to the Server (AnswerPiece zero): as
// batch.Options.AnswerPiece and AnswerAlongside would, given the number
// of engines.
type Answering func(engines int) (piece int, alongside bool)

// HostBoundPipeline is the Pipeline of an algorithm's Defaults whose
// batches' host work (packing the requests, answering the callers) takes
// about as long as their kernels under many calls in flight (Ed25519,
// ECDSA): with batch's two, one batch's host work and the next one's
// kernels alternate and the device idles meanwhile; a third keeps it fed.
// A fourth helped some of the operations and slowed the others.
const HostBoundPipeline = 3

// Defaults are an algorithm's choices for the batch.Options that a user
// leaves zero: the batches in flight per engine (Pipeline; 0: batch's
// default) and the answering (nil: batch's default, batch.Parallel); and
// OnCPU, for an algorithm whose requests are computed on the CPU path at
// once even over device engines (OperationCPU), unless the options'
// CPUOffload is negative: where the device has not measured faster for
// one request than crypto/* (aes: a record of a few kilobytes costs the
// device its copies over the bus, and the CPU less than a microsecond).
type Defaults struct {
	Pipeline  int
	Answering Answering
	OnCPU     bool
}

// NewServer returns the shell of package pkg's Server over engines, with
// the CPU engine cpu for its CPU path and the algorithm's defaults for
// what opts leaves zero. It fails without an engine or with a nil one
// (an interface holding a nil pointer included).
func NewServer[E Placed](pkg string, opts batch.Options, engines []E, cpu E, d Defaults) (*Server[E], error) {
	if err := CheckEngines(pkg, engines); err != nil {
		return nil, err
	}
	s := &Server[E]{pkg: pkg, engines: engines, cpu: cpu, onCPU: d.OnCPU}
	if opts.Pipeline == 0 {
		opts.Pipeline = d.Pipeline
	}
	if opts.AnswerPiece == 0 && d.Answering != nil {
		opts.AnswerPiece, opts.AnswerAlongside = d.Answering(len(engines))
	}
	opts.Meter = &s.meter
	s.opts = opts
	return s, nil
}

// CheckEngines is the error of a Server's NewServer (package pkg) over
// engines: none, or a nil one.
func CheckEngines[E comparable](pkg string, engines []E) error {
	if len(engines) == 0 {
		return fmt.Errorf("%s: NewServer needs at least one engine", pkg)
	}
	var none E
	for i, e := range engines {
		if e == none || isNilPointer(e) {
			return fmt.Errorf("%s: NewServer: engine %d is nil", pkg, i)
		}
	}
	return nil
}

// isNilPointer reports whether e is a nil pointer, also one held by an
// interface (a typed nil), which a comparison with the zero E misses.
func isNilPointer(e any) bool {
	v := reflect.ValueOf(e)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// Operation adds an operation to s: a batcher of its requests whose
// workers run run on each engine and whose CPU path runs run on the
// Server's CPU engine (NewBatcher). Close closes it.
func Operation[E Placed, Q, R any](s *Server[E], run func(E, []Q) ([]R, error)) *batch.Batcher[Q, R] {
	b := NewBatcher(s.opts, s.engines, s.cpu, run)
	s.ops = append(s.ops, b)
	return b
}

// OperationCPU is Operation with a CPU path of its own, cpu (crypto/*
// called for each request, cheaper than an engine call for one): the
// requests that the CPU finishes first, and every request of a Server
// whose engines all compute on the CPU or whose Defaults say OnCPU
// (counted in the Server's Stats as operations on the CPU), run there.
func OperationCPU[E Placed, Q, R any](s *Server[E], run func(E, []Q) ([]R, error), cpu batch.OneFunc[Q, R]) *batch.Batcher[Q, R] {
	workers := make([]batch.RunFunc[Q, R], len(s.engines))
	allCPU := true
	for i, e := range s.engines {
		workers[i] = func(reqs []Q) ([]R, error) { return run(e, reqs) }
		allCPU = allCPU && e.Device() == nil
	}
	var b *batch.Batcher[Q, R]
	switch {
	case (allCPU || s.onCPU) && s.opts.CPUOffload >= 0:
		b = batch.NewDirectCPU(s.opts, cpu)
	case allCPU:
		b = batch.New(s.opts, workers...)
	default:
		b = batch.NewWithCPUOne(s.opts, cpu, workers...)
	}
	s.ops = append(s.ops, b)
	return b
}

// NewBatcher is a Server's batcher of one operation: a worker per engine
// running run on it, and the CPU path of the requests that the CPU
// finishes first running run on cpu (batch.NewWithCPU). Where every
// engine computes on the CPU, it batches nothing: each request is
// computed at once on the first engine, as crypto/* would
// (batch.NewDirect), unless opts.CPUOffload is negative (every request
// batched).
func NewBatcher[E Placed, Q, R any](opts batch.Options, engines []E, cpu E, run func(E, []Q) ([]R, error)) *batch.Batcher[Q, R] {
	workers := make([]batch.RunFunc[Q, R], len(engines))
	allCPU := true
	for i, e := range engines {
		workers[i] = func(reqs []Q) ([]R, error) { return run(e, reqs) }
		allCPU = allCPU && e.Device() == nil
	}
	if allCPU {
		if opts.CPUOffload >= 0 {
			return batch.NewDirect(opts, workers[0])
		}
		return batch.New(opts, workers...)
	}
	return batch.NewWithCPU(opts, func(reqs []Q) ([]R, error) { return run(cpu, reqs) }, workers...)
}

// Engines are the Server's engines, as given to NewServer.
func (s *Server[E]) Engines() []E { return s.engines }

// CPU is the engine of the Server's CPU path.
func (s *Server[E]) CPU() E { return s.cpu }

// Err is nil while the Server is open, and after Close an error wrapping
// batch.ErrClosed (for the Signers, keys and AEADs made from it).
func (s *Server[E]) Err() error {
	if s.closed.Load() {
		return fmt.Errorf("%s: server closed: %w", s.pkg, batch.ErrClosed)
	}
	return nil
}

// Stats returns the Server's counts: its requests (Calls), those waiting
// now, their latencies, the requests its CPU path computed, and the
// operations of its engines, each engine once.
func (s *Server[E]) Stats() batch.Stats {
	st := s.meter.Stats()
	AddDistinct(&st, s.engines)
	return st
}

// Close stops the Server after finishing the queued requests; later
// requests fail with batch.ErrClosed. It closes no engine (they may serve
// others) but its own CPU engine. Calling it again does nothing.
func (s *Server[E]) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	for _, op := range s.ops {
		op.Close()
	}
	return s.cpu.Close()
}

// Groups calls run once for each distinct key of reqs (in the order the
// keys first appear), with the indices of the requests that have it: a
// Server's batch mixes requests that need different engine calls (options,
// signature forms, kinds of nonce). A batch of one key, the common one,
// costs no map.
func Groups[Q any, K comparable](reqs []Q, keyOf func(Q) K, run func(key K, idx []int)) {
	if len(reqs) == 0 {
		return
	}
	first := keyOf(reqs[0])
	same := true
	for _, r := range reqs[1:] {
		if keyOf(r) != first {
			same = false
			break
		}
	}
	if same {
		idx := make([]int, len(reqs))
		for i := range idx {
			idx[i] = i
		}
		run(first, idx)
		return
	}
	byKey := map[K][]int{}
	var order []K
	for i, r := range reqs {
		k := keyOf(r)
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	for _, k := range order {
		run(k, byKey[k])
	}
}

// Scatter puts the results of an engine call on the requests idx of a
// batch (Groups) into out, and its errors into errs, at those indices: a
// *batch.Error's per element, any other error to each of them, whose
// results stay zero.
func Scatter[R any](idx []int, res []R, err error, out []R, errs []error) {
	var per *batch.Error
	if err != nil && !errors.As(err, &per) {
		for _, i := range idx {
			errs[i] = err
		}
		return
	}
	for k, i := range idx {
		out[i] = res[k]
		if per != nil {
			errs[i] = per.Errs[k]
		}
	}
}
