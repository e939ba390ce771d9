package ecdh

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Server turns single requests from many goroutines into batches for one or
// more engines (an Engine per device, or a CPU engine). Each engine gets its
// own workers; a batch goes to whichever is free. Requests for the two curves
// and the two operations are batched separately.
//
// Requests are batched as batch.Options say; the ones it leaves zero are
// ecdh's: four batches in flight per engine, not two, and a batch's
// callers answered in pieces of 128.
//
// Each request goes where it finishes first (batch.NewWithCPU): while the
// device's batches would make it wait longer than a core takes, it is
// computed at once on the CPU engine (constant-time), in the caller's
// goroutine or for Go in a goroutine of its own, so a lone request has the
// CPU's latency; under load, requests gather into batches.
// batch.Options.CPUOffload bounds the requests on the CPU at once
// (negative: none). A Server whose engines all compute on the CPU computes
// each request at once and batches nothing (batch.NewDirect).
type Server struct {
	shell    *engine.Server[backend]
	batchers map[*montgomery]*[2]*batch.Batcher[request, []byte] // [opPublic, opShared]
}

// backend is what a Server's workers compute on: an *Engine (tests put
// other backends there).
type backend interface {
	Backend
	Device() *device.Device
	Stats() batch.Stats
	Close() error
}

type request struct{ priv, peer []byte }

// serverPipeline is a Server's batch.Options.Pipeline when the options
// leave it zero: four batches per engine at once. A ladder batch is
// short, so more, smaller batches in flight keep the device fed while the
// host answers the last one's callers. Eight raise the rate of frames
// (Server.GoFrame) but cut blocking and per-call callers' batches smaller
// and slow them: a Server that takes frames alone may set Pipeline 8.
const serverPipeline = 4

// serverAnswerPiece is a Server's batch.Options.AnswerPiece when the
// options leave it zero: a batch's callers are answered 128 at a time,
// each 128 by a goroutine of its own, half of what a core's run queue
// holds (see batch.Options.AnswerPiece).
const serverAnswerPiece = 128

const (
	opPublic = iota
	opShared
)

// NewServer starts a Server over engines with the given batching options.
// It fails without an engine or with a nil one.
func NewServer(opts batch.Options, engines ...*Engine) (*Server, error) {
	if err := engine.CheckEngines("ecdh", engines); err != nil {
		return nil, err
	}
	backends := make([]backend, len(engines))
	for i, e := range engines {
		backends[i] = e
	}
	return newServer(opts, backends)
}

// newServer is NewServer over any backends.
func newServer(opts batch.Options, backends []backend) (*Server, error) {
	shell, err := engine.NewServer[backend]("ecdh", opts, backends, CPUEngine(), engine.Defaults{
		Pipeline:  serverPipeline,
		Answering: func(int) (int, bool) { return serverAnswerPiece, false },
	})
	if err != nil {
		return nil, err
	}
	s := &Server{shell: shell, batchers: map[*montgomery]*[2]*batch.Batcher[request, []byte]{}}
	for _, c := range Curves() {
		m := c.params()
		var ops [2]*batch.Batcher[request, []byte]
		for op := range ops {
			ops[op] = engine.Operation(shell, func(be backend, reqs []request) ([][]byte, error) { return runRequests(be, m, op, reqs) })
		}
		s.batchers[m] = &ops
	}
	return s, nil
}

// runRequests computes a batch of a Server's requests of one curve and
// operation on be.
func runRequests(be Backend, m *montgomery, op int, reqs []request) ([][]byte, error) {
	privs := make([][]byte, len(reqs))
	for i, r := range reqs {
		privs[i] = r.priv
	}
	if op == opPublic {
		return be.PublicKeys(m, privs)
	}
	peers := make([][]byte, len(reqs))
	for i, r := range reqs {
		peers[i] = r.peer
	}
	return be.SharedSecrets(m, privs, peers)
}

// Stats returns the server's counts: its requests (Calls), those waiting
// now, their latencies, and the operations of its engines and of its CPU
// path.
func (s *Server) Stats() batch.Stats { return s.shell.Stats() }

// batcher returns the batcher of c and op, or an error for a nil curve.
func (s *Server) batcher(c Curve, op int) (*batch.Batcher[request, []byte], error) {
	m, err := curveOf(c)
	if err != nil {
		return nil, err
	}
	return s.batchers[m][op], nil
}

// PublicKey computes one public key, batched with other callers' requests.
func (s *Server) PublicKey(ctx context.Context, c Curve, priv []byte) ([]byte, error) {
	b, err := s.batcher(c, opPublic)
	if err != nil {
		return nil, err
	}
	return b.Do(ctx, request{priv: priv})
}

// SharedSecret computes one shared secret, batched with other callers'
// requests. A low-order peer gives ErrLowOrder.
func (s *Server) SharedSecret(ctx context.Context, c Curve, priv, peer []byte) ([]byte, error) {
	b, err := s.batcher(c, opShared)
	if err != nil {
		return nil, err
	}
	return b.Do(ctx, request{priv: priv, peer: peer})
}

// PublicKeys computes the public key of each of privs, each a request of
// its own batched with other callers' (as Engine.PublicKeys: per-element
// errors in a *batch.Error).
func (s *Server) PublicKeys(ctx context.Context, c Curve, privs [][]byte) ([][]byte, error) {
	if _, err := curveOf(c); err != nil {
		return nil, err
	}
	return s.each(ctx, len(privs), func(ctx context.Context, i int) ([]byte, error) {
		return s.PublicKey(ctx, c, privs[i])
	})
}

// SharedSecrets computes the shared secret of each of privs with its peer,
// each a request of its own batched with other callers' (as
// Engine.SharedSecrets).
func (s *Server) SharedSecrets(ctx context.Context, c Curve, privs, peers [][]byte) ([][]byte, error) {
	if _, err := checkBatch(c, privs, peers, true); err != nil {
		return nil, err
	}
	return s.each(ctx, len(privs), func(ctx context.Context, i int) ([]byte, error) {
		return s.SharedSecret(ctx, c, privs[i], peers[i])
	})
}

func (s *Server) each(ctx context.Context, n int, f func(context.Context, int) ([]byte, error)) ([][]byte, error) {
	if ctx == nil {
		return nil, errors.New("ecdh: nil context")
	}
	out := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = f(ctx, i)
		}()
	}
	wg.Wait()
	return out, batch.Collect(errs)
}

// Close stops the server after finishing queued requests; later requests
// fail with batch.ErrClosed. It closes no engine (they may serve others).
// Calling it again does nothing.
func (s *Server) Close() error { return s.shell.Close() }

// Call is one operation submitted with Server.Go: its inputs, and once it
// is complete its Result (a public key or shared secret) or Err, after
// which the Server sends the Call on Done. A Call may be reused once it
// has come back on Done.
type Call struct {
	Curve Curve
	Priv  []byte
	// Peer is the peer's public key of a shared secret; nil asks for the
	// public key of Priv.
	Peer   []byte
	Result []byte
	Err    error
	// Done receives the Call when it is complete. It must be buffered,
	// with room for every Call in flight on it: a full Done holds up the
	// answers of the other requests of the Call's batch.
	Done chan *Call
}

// Go submits call and returns without waiting for it (the asynchronous
// form of PublicKey and SharedSecret, for a caller that holds many
// requests: a gateway, a queue consumer): its outcome arrives on
// call.Done, the context's error included if ctx ends before its batch
// runs. Go blocks only while the server's queue is full
// (batch.Options.QueueSize), until ctx ends. Its own error (a nil or
// unbuffered Done, a nil curve or context, an ended context, a closed
// server) means the Call was not submitted and will not arrive on Done.
// Like SharedSecret, a Call may be computed on the CPU path (in a
// goroutine of its own) while few are in flight and the CPU would finish
// it before a batch.
func (s *Server) Go(ctx context.Context, call *Call) error {
	if call == nil || call.Done == nil || cap(call.Done) == 0 {
		return errors.New("ecdh: Server.Go needs a Call with a buffered Done channel")
	}
	op := opShared
	if call.Peer == nil {
		op = opPublic
	}
	b, err := s.batcher(call.Curve, op)
	if err != nil {
		return err
	}
	call.Result, call.Err = nil, nil
	return b.Go(ctx, request{priv: call.Priv, peer: call.Peer}, (*pendingCall)(call))
}

// Frame is a group of calls submitted together with Server.GoFrame (the
// requests a gateway decodes from one read, a queue consumer's batch):
// the Server sends the Frame on Done once every one of its Calls is
// complete, each with its Result or Err. The Calls' own Done fields are
// not used. A Frame may be reused, with other Calls or as many, once it
// has come back on Done.
type Frame struct {
	Calls []Call
	// Done receives the Frame when all its Calls are complete. It must be
	// buffered, with room for every Frame in flight on it.
	Done chan *Frame

	pending atomic.Int64 // calls not complete, + 1 while GoFrame runs
	slots   []frameSlot  // each call's Completer
	reqs    []request    // GoFrame's, while it submits
	done    []batch.Completer[[]byte]
}

// frameSlot completes call i of its Frame.
type frameSlot struct {
	frame *Frame
	i     int
}

func (c *frameSlot) Complete(result []byte, err error) {
	call := &c.frame.Calls[c.i]
	call.Result, call.Err = result, err
	c.frame.complete(1)
}

// complete counts n of f's calls complete (or GoFrame done with f), and
// sends f on Done after the last one.
func (f *Frame) complete(n int) {
	if f.pending.Add(-int64(n)) == 0 {
		f.Done <- f
	}
}

var errFrameInFlight = errors.New("ecdh: Server.GoFrame: the Frame is in flight (not back on its Done yet)")

// GoFrame submits the calls of f and returns without waiting for them:
// the asynchronous form for a caller that holds many requests at once. They
// enter the server's queue together, with one clock reading, one check of
// the queue's limit and one lock (batch.Batcher.GoMany), and f comes back
// on f.Done once, when all of them are complete, instead of each call on
// a channel of its own: a part of the host cost of as many calls of Go.
// Calls of several curves or operations may be mixed (those of one in a
// row go in together).
//
// GoFrame's own error (a nil or unbuffered Done, a nil or ended context, a
// closed server, a Frame still in flight) means that no call was
// submitted and f will not come back. Else f comes back, and the errors
// are each call's: a nil curve, a bad key, and for calls that GoFrame
// could not submit after others (the context ended, the server closed
// meanwhile) that error. GoFrame blocks only while the server's queue is
// full (batch.Options.QueueSize), until ctx ends. Calls submitted with
// GoFrame always go to the engines' batches: a frame is load.
func (s *Server) GoFrame(ctx context.Context, f *Frame) error {
	if f == nil || f.Done == nil || cap(f.Done) == 0 {
		return errors.New("ecdh: Server.GoFrame needs a Frame with a buffered Done channel")
	}
	if ctx == nil {
		return errors.New("ecdh: Server.GoFrame: nil context")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	n := len(f.Calls)
	if !f.pending.CompareAndSwap(0, int64(n)+1) { // + 1: no completion sends f before GoFrame ends
		return errFrameInFlight
	}
	if cap(f.slots) < n {
		f.slots = make([]frameSlot, n)
		f.reqs = make([]request, n)
		f.done = make([]batch.Completer[[]byte], n)
	}
	f.slots, f.reqs, f.done = f.slots[:n], f.reqs[:n], f.done[:n]
	submitted := false
	// submit puts calls [lo, hi) in, all for b; on an error, the calls
	// from lo on are not submitted
	submit := func(b *batch.Batcher[request, []byte], lo, hi int) error {
		if lo == hi {
			return nil
		}
		if err := b.GoMany(ctx, f.reqs[lo:hi], f.done[lo:hi]); err != nil {
			return err
		}
		submitted = true
		return nil
	}
	var run *batch.Batcher[request, []byte] // the batcher of calls [lo, i)
	lo := 0
	var err error
	for i := range f.Calls {
		c := &f.Calls[i]
		c.Result, c.Err = nil, nil
		f.slots[i] = frameSlot{frame: f, i: i}
		f.reqs[i], f.done[i] = request{priv: c.Priv, peer: c.Peer}, &f.slots[i]
		op := opShared
		if c.Peer == nil {
			op = opPublic
		}
		b, berr := s.batcher(c.Curve, op)
		if berr != nil || b != run {
			if err = submit(run, lo, i); err != nil {
				break
			}
			run, lo = b, i
		}
		if berr != nil { // this call's error; it is complete
			c.Err = berr
			run, lo = nil, i+1
			f.complete(1)
		}
	}
	if err == nil {
		err = submit(run, lo, n)
	}
	// the requests hold keys: no reference kept; and before f can come
	// back (the last complete below), after which its caller may reuse it
	clear(f.reqs)
	if err != nil {
		if !submitted {
			f.pending.Store(0)
			return err
		}
		for i := lo; i < n; i++ {
			f.Calls[i].Err = err
		}
		f.complete(n - lo)
	}
	f.complete(1)
	return nil
}

// pendingCall is a Call as the batcher completes it.
type pendingCall Call

func (c *pendingCall) Complete(result []byte, err error) {
	c.Result, c.Err = result, err
	c.Done <- (*Call)(c)
}
