package aes

import (
	"context"
	"crypto/cipher"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Server gathers AES-GCM Seal and Open requests from many goroutines (one
// per connection, say) into batches for one or more Engines, which may be
// on different devices. Seal and Open requests are batched separately,
// each with one batch worker per Engine (running up to
// batch.Options.Pipeline batches at once): a batch goes to whichever
// engine is free. Use it through the cipher.AEAD values NewGCM makes, or
// through Seal and Open, which take a context.
//
// Each request goes where it finishes first (batch.NewWithCPU): while the
// batches would make it wait longer than a core takes, it is computed at
// once with crypto/cipher's GCM (in the caller's goroutine, or for Go in
// a goroutine of its own); under load, requests gather into batches, and
// each batch runs where its Engine measured it faster (Engine.SetRoute).
// batch.Options.CPUOffload bounds the requests on the CPU at once
// (negative: none). A Server whose engines all compute on the CPU
// computes each request at once with crypto/cipher and batches nothing
// (batch.NewDirectCPU). A Server is safe for concurrent use.
type Server struct {
	shell          *engine.Server[*Engine]
	sealer, opener *batch.Batcher[*request, []byte]
}

// request is one Seal or Open in a batch. Its buffers are the caller's:
// the worker only reads them, and only after taking the request (state),
// so a caller that gave up waiting may reuse them at once.
type request struct {
	key              *Key
	cpu              cipher.AEAD // crypto/cipher's GCM of key
	nonce, aad, data []byte      // data: the plaintext, or the ciphertext and tag
	// out is where the caller's result goes (the tail of its dst): the CPU
	// path writes it there, as crypto/cipher would, with no copy and no
	// allocation; a batch's results are copied into it (sealed, opened).
	out   []byte
	state atomic.Int32
}

// States of a request: the worker moves it from queued to taken before it
// reads the buffers, the caller from queued to abandoned when its context
// ends first. Whoever moves it first decides.
const (
	stateQueued int32 = iota
	stateTaken
	stateAbandoned
)

// NewServer starts a Server over engines with the given batching options
// (batch.Options: zero values pick the defaults). It returns an error when
// engines is empty or holds nil.
//
// Its requests are computed at once with crypto/cipher in the caller's
// goroutine (Go's: in one of its own), as a caller of crypto/cipher would,
// also over device engines: a record of a few kilobytes costs a device its
// copies over the bus and the host its packing, more than the under a
// microsecond that crypto/cipher takes, and the device measured slower at
// every load (docs/BENCHMARKS.md). With opts.CPUOffload negative, every
// request is batched for the engines instead. Messages already in device
// memory, and large batches, are the Engine's (Engine.Seal,
// Engine.SealDevice).
func NewServer(opts batch.Options, engines ...*Engine) (*Server, error) {
	shell, err := engine.NewServer("aes", opts, engines, CPUEngine(), engine.Defaults{OnCPU: true})
	if err != nil {
		return nil, err
	}
	return &Server{
		shell: shell,
		sealer: engine.OperationCPU(shell, func(e *Engine, reqs []*request) ([][]byte, error) { return runRequests(e, false, reqs) },
			func(r *request) ([]byte, error) { return r.onCPU(false) }),
		opener: engine.OperationCPU(shell, func(e *Engine, reqs []*request) ([][]byte, error) { return runRequests(e, true, reqs) },
			func(r *request) ([]byte, error) { return r.onCPU(true) }),
	}, nil
}

// Stats returns the server's counts: its requests (Calls), those waiting
// now, their latencies, the requests its CPU path computed, and its
// engines' operations.
func (s *Server) Stats() batch.Stats { return s.shell.Stats() }

// Close stops the server after finishing the queued requests. Calls
// started afterwards fail with batch.ErrClosed, except the Seal of the
// cipher.AEAD values from NewGCM, which cannot return an error and
// computes on the CPU instead. Close may be called more than once; it
// closes no engine (they may serve others).
func (s *Server) Close() error { return s.shell.Close() }

// NewGCM returns AES-GCM under k with the standard 12-byte nonce and
// 16-byte tag, as crypto/cipher.NewGCM does, whose Seal and Open calls run
// on s. It fails for a nil or destroyed key (ErrNilKey, ErrKeyDestroyed),
// a closed server (batch.ErrClosed), and where crypto/cipher refuses a GCM
// with caller-chosen nonces (FIPS 140-only mode).
//
// Seal and Open follow crypto/cipher's contract: they append their output
// to dst and return the result. The output may overlap the input only
// exactly (in place: Seal(plaintext[:0], ...), Open(ciphertext[:0], ...))
// and must not overlap the additional data. They panic where
// crypto/cipher's GCM panics, with its messages: a nonce that is not 12
// bytes long, a plaintext longer than 2³²−2 blocks (Seal), an invalid
// overlap. Open returns ErrOpen when the tag does not match (or the
// ciphertext is shorter than the tag or too long), releases no plaintext
// and, as crypto/cipher does, zeroes the output where it lies in dst's
// capacity.
//
// Beyond crypto/cipher: Open also returns batch.ErrClosed after the
// Server's Close and ErrKeyDestroyed after k.Close. Seal, which has no
// error to return, computes on the CPU when its batch cannot run (after
// the Server's Close, say), and panics with ErrKeyDestroyed after
// k.Close, having no correct output to give.
func (s *Server) NewGCM(k *Key) (cipher.AEAD, error) {
	if err := s.shell.Err(); err != nil {
		return nil, err
	}
	cpu, err := k.standardGCM()
	if err != nil {
		return nil, err
	}
	return &serverGCM{s: s, k: k, cpu: cpu}, nil
}

// serverGCM is the cipher.AEAD of NewGCM.
type serverGCM struct {
	s   *Server
	k   *Key
	cpu cipher.AEAD
}

var _ cipher.AEAD = (*serverGCM)(nil)

func (g *serverGCM) NonceSize() int { return NonceSize }

func (g *serverGCM) Overhead() int { return TagSize }

func (g *serverGCM) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	ret, out, err := sealArgs(dst, nonce, plaintext, additionalData)
	if err != nil {
		panic(err.(*argError).panicMsg)
	}
	if res, err := g.s.seal(context.Background(), g.k, g.cpu, ret, out, nonce, plaintext, additionalData); err == nil {
		return res
	}
	if err := g.k.live(); err != nil {
		panic(err)
	}
	g.cpu.Seal(out[:0], nonce, plaintext, additionalData)
	return ret
}

func (g *serverGCM) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	ret, out, err := openArgs(dst, nonce, ciphertext, additionalData)
	if err != nil {
		if ae, ok := err.(*argError); ok {
			panic(ae.panicMsg)
		}
		return nil, err
	}
	return g.s.open(context.Background(), g.k, g.cpu, ret, out, nonce, ciphertext, additionalData)
}

// Seal encrypts and authenticates plaintext with AES-GCM under k, appends
// the ciphertext and the 16-byte tag to dst and returns the result, as
// cipher.AEAD's Seal does (exact overlap of plaintext and the output is
// allowed: Seal(ctx, k, plaintext[:0], ...) works in place). Where
// cipher.AEAD panics it returns an error instead: a nonce that is not 12
// bytes long, a plaintext that is too long, ErrOverlap. It also fails with
// ErrNilKey, ErrKeyDestroyed, batch.ErrClosed after Close, and ctx's error
// when ctx ends before the request's batch starts; dst is then not
// written. ctx bounds the wait for the batch, not the batch itself: once
// the request is in a running batch, Seal waits for its result.
func (s *Server) Seal(ctx context.Context, k *Key, dst, nonce, plaintext, aad []byte) ([]byte, error) {
	cpu, err := k.standardGCM()
	if err != nil {
		return nil, err
	}
	ret, out, err := sealArgs(dst, nonce, plaintext, aad)
	if err != nil {
		return nil, err
	}
	return s.seal(ctx, k, cpu, ret, out, nonce, plaintext, aad)
}

// Open checks the tag of ciphertext (the ciphertext followed by its 16-byte
// tag) and decrypts it with AES-GCM under k, appends the plaintext to dst
// and returns the result, as cipher.AEAD's Open does (Open(ctx, k,
// ciphertext[:0], ...) works in place). A tag that does not match, or a
// ciphertext shorter than the tag or too long, gives ErrOpen: no
// plaintext is released, and the part of dst's capacity the plaintext
// would have taken is zeroed. Where cipher.AEAD panics it returns an
// error instead: a nonce that is not 12 bytes long, ErrOverlap. Other
// errors are those of Seal.
func (s *Server) Open(ctx context.Context, k *Key, dst, nonce, ciphertext, aad []byte) ([]byte, error) {
	cpu, err := k.standardGCM()
	if err != nil {
		return nil, err
	}
	ret, out, err := openArgs(dst, nonce, ciphertext, aad)
	if err != nil {
		return nil, err
	}
	return s.open(ctx, k, cpu, ret, out, nonce, ciphertext, aad)
}

// seal computes a checked Seal into out (the tail of ret): with
// crypto/cipher in the caller's goroutine where the Server computes its
// requests on the CPU (NewServer), else through its batches.
func (s *Server) seal(ctx context.Context, k *Key, cpu cipher.AEAD, ret, out, nonce, plaintext, aad []byte) ([]byte, error) {
	if err := s.ready(ctx, k); err != nil {
		return nil, err
	}
	if s.sealer.Direct() {
		return s.sealHere(cpu, ret, out, nonce, plaintext, aad)
	}
	res, err := s.do(ctx, s.sealer, &request{key: k, cpu: cpu, nonce: nonce, aad: aad, data: plaintext, out: out})
	return sealed(ret, out, res, err)
}

// open computes a checked Open into out (the tail of ret), as seal does.
func (s *Server) open(ctx context.Context, k *Key, cpu cipher.AEAD, ret, out, nonce, ciphertext, aad []byte) ([]byte, error) {
	if err := s.ready(ctx, k); err != nil {
		return nil, err
	}
	if s.opener.Direct() {
		return s.openHere(cpu, ret, out, nonce, ciphertext, aad)
	}
	res, err := s.do(ctx, s.opener, &request{key: k, cpu: cpu, nonce: nonce, aad: aad, data: ciphertext, out: out})
	return opened(ret, out, res, err)
}

// sealHere is seal with crypto/cipher in the caller's goroutine, counted
// by the Server's Meter (a Server that computes its requests on the CPU).
func (s *Server) sealHere(cpu cipher.AEAD, ret, out, nonce, plaintext, aad []byte) ([]byte, error) {
	res, err := s.sealer.DoInline(func() ([]byte, error) { return cpu.Seal(out[:0], nonce, plaintext, aad), nil })
	return sealed(ret, out, res, err)
}

// openHere is open as sealHere is seal.
func (s *Server) openHere(cpu cipher.AEAD, ret, out, nonce, ciphertext, aad []byte) ([]byte, error) {
	res, err := s.opener.DoInline(func() ([]byte, error) {
		p, err := cpu.Open(out[:0], nonce, ciphertext, aad)
		if err != nil {
			return nil, ErrOpen
		}
		return p, nil
	})
	return opened(ret, out, res, err)
}

// sealed is Seal's answer from its batch's: res, the ciphertext and tag,
// copied into out (the tail of ret) unless the CPU path wrote it there.
func sealed(ret, out, res []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if len(res) != len(out) {
		return nil, fmt.Errorf("aes: internal error: sealed %d bytes, want %d", len(res), len(out))
	}
	if !sameStart(res, out) {
		copy(out, res)
	}
	return ret, nil
}

// sameStart reports whether x and y begin at the same byte: a result that
// the CPU path wrote into the caller's out itself.
func sameStart(x, y []byte) bool {
	return len(x) > 0 && len(y) > 0 && &x[0] == &y[0]
}

// opened is Open's answer from its batch's: res, the plaintext, copied
// into out (the tail of ret) and cleared; out cleared on ErrOpen.
func opened(ret, out, res []byte, err error) ([]byte, error) {
	if err != nil {
		if errors.Is(err, ErrOpen) {
			clear(out)
			return nil, ErrOpen
		}
		return nil, err
	}
	if len(res) != len(out) {
		clear(res)
		return nil, fmt.Errorf("aes: internal error: opened %d bytes, want %d", len(res), len(out))
	}
	if !sameStart(res, out) {
		copy(out, res)
		clear(res)
	}
	return ret, nil
}

// Call is one Seal or Open submitted with Server.Go: its inputs, and once
// it is complete its Result (Dst with the output appended, as Seal and
// Open return it) or Err, after which the Server sends the Call on Done.
// The Server reads Nonce, Data and AAD and writes Dst's capacity until
// then: the caller must leave them alone while the Call is in flight. A
// Call may be reused once it has come back on Done.
type Call struct {
	Key *Key
	// Open asks for Open (the tag checked, Data decrypted) instead of Seal.
	Open                  bool
	Dst, Nonce, Data, AAD []byte
	Result                []byte
	Err                   error
	// Done receives the Call when it is complete. It must be buffered,
	// with room for every Call in flight on it: a full Done holds up the
	// answers of the other requests of the Call's batch.
	Done chan *Call

	req      request // the batch's request (no allocation per call)
	ret, out []byte  // Result-to-be and the part of it the output fills
}

// Go submits call and returns without waiting for a batch: the
// asynchronous form of Seal and Open, for a caller that holds many requests (a gateway
// that decodes a frame of records, a storage server's queue). Its outcome
// arrives on call.Done: Result, or Err as Seal and Open would return it
// (ErrOpen, ErrKeyDestroyed, the context's error if ctx ends before the
// request's batch runs). Go blocks only while the server's queue is full
// (batch.Options.QueueSize), until ctx ends. Its own error (a nil or
// unbuffered Done, the argument errors of Seal and Open, a nil or
// destroyed key, a nil or ended context, a closed server) means the Call
// was not submitted and will not arrive on Done. Where the Server computes
// its requests on the CPU (NewServer: unless CPUOffload is negative), Go
// computes the Call with crypto/cipher before it returns, as Seal and
// Open do, and sends it on Done: a record costs a core less than handing
// it to another goroutine would.
func (s *Server) Go(ctx context.Context, call *Call) error {
	if call == nil || call.Done == nil || cap(call.Done) == 0 {
		return errors.New("aes: Server.Go needs a Call with a buffered Done channel")
	}
	cpu, err := call.Key.standardGCM()
	if err != nil {
		return err
	}
	args, b := sealArgs, s.sealer
	if call.Open {
		args, b = openArgs, s.opener
	}
	ret, out, err := args(call.Dst, call.Nonce, call.Data, call.AAD)
	if err != nil {
		return err
	}
	if err := s.ready(ctx, call.Key); err != nil {
		return err
	}
	if b.Direct() {
		// a record costs a core less than handing it to another goroutine
		// would: computed here, then delivered
		if call.Open {
			call.Result, call.Err = s.openHere(cpu, ret, out, call.Nonce, call.Data, call.AAD)
		} else {
			call.Result, call.Err = s.sealHere(cpu, ret, out, call.Nonce, call.Data, call.AAD)
		}
		call.deliver()
		return nil
	}
	call.Result, call.Err, call.ret, call.out = nil, nil, ret, out
	call.req = request{key: call.Key, cpu: cpu, nonce: call.Nonce, aad: call.AAD, data: call.Data, out: out}
	if err := b.Go(ctx, &call.req, (*pendingCall)(call)); err != nil {
		call.clearRequest()
		return err
	}
	return nil
}

// clearRequest drops the Call's references to its buffers and key.
func (c *Call) clearRequest() {
	c.req = request{}
	c.ret, c.out = nil, nil
}

// pendingCall is a Call as the batcher completes it.
type pendingCall Call

func (c *pendingCall) Complete(res []byte, err error) {
	call := (*Call)(c)
	if call.Open {
		call.Result, call.Err = opened(call.ret, call.out, res, err)
	} else {
		call.Result, call.Err = sealed(call.ret, call.out, res, err)
	}
	call.clearRequest()
	c.Done <- call
}

// deliver sends c on Done, from a goroutine of its own where Done has no
// room now: Go, having computed c in its caller's goroutine, never blocks
// that caller on a Done it may be the one to drain.
func (c *Call) deliver() {
	select {
	case c.Done <- c:
	default:
		go func() { c.Done <- c }()
	}
}

// ready reports why a request cannot start: s closed, ctx ended, k
// destroyed.
func (s *Server) ready(ctx context.Context, k *Key) error {
	if err := s.shell.Err(); err != nil {
		return err
	}
	if ctx == nil {
		return errors.New("aes: nil context")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return k.live()
}

// do submits r to b and waits for its result. When ctx ends before a
// worker has taken r, r is abandoned (a worker that gets it later skips
// it) and do returns ctx's error; once a worker has taken r, do waits for
// the batch to finish. Either way no worker reads r's buffers after do
// returns.
func (s *Server) do(ctx context.Context, b *batch.Batcher[*request, []byte], r *request) ([]byte, error) {
	if ctx.Done() == nil {
		return b.Do(ctx, r)
	}
	wait, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		if r.state.CompareAndSwap(stateQueued, stateAbandoned) {
			cancel()
		}
	})
	defer stop()
	res, err := b.Do(wait, r)
	if err != nil && r.state.Load() == stateAbandoned {
		return nil, ctx.Err()
	}
	return res, err
}

// runRequests is the batch function of engine e for Seal or Open batches.
func runRequests(e *Engine, open bool, reqs []*request) ([][]byte, error) {
	out := make([][]byte, len(reqs))
	errs := make([]error, len(reqs))
	taken := make([]int, 0, len(reqs))
	for i, r := range reqs {
		if !r.state.CompareAndSwap(stateQueued, stateTaken) {
			errs[i] = context.Canceled // its caller has gone
			continue
		}
		taken = append(taken, i)
	}
	if len(taken) == 0 {
		return out, batch.Collect(errs)
	}
	msgs := make([]Message, len(taken))
	for j, i := range taken {
		r := reqs[i]
		msgs[j] = Message{Key: r.key, Nonce: r.nonce, AAD: r.aad, Data: r.data}
	}
	run := e.Seal
	if open {
		run = e.Open
	}
	res, err := run(msgs)
	var per *batch.Error
	if len(res) != len(msgs) || (err != nil && (!errors.As(err, &per) || len(per.Errs) != len(msgs))) {
		// The whole batch failed (Seal and Open report per element,
		// and a key destroyed while they run waits for them, so this
		// is defensive): each request on its own, so that one
		// caller's failure is not everyone's.
		for _, i := range taken {
			out[i], errs[i] = reqs[i].onCPU(open)
		}
		return out, batch.Collect(errs)
	}
	for j, i := range taken {
		out[i] = res[j]
		if per != nil {
			errs[i] = per.Errs[j]
		}
	}
	return out, batch.Collect(errs)
}

// onCPU computes r with crypto/cipher's GCM into r.out (a new slice where
// r has none).
func (r *request) onCPU(open bool) ([]byte, error) {
	if err := r.key.live(); err != nil {
		return nil, err
	}
	dst := r.out[:0]
	if !open {
		return r.cpu.Seal(dst, r.nonce, r.data, r.aad), nil
	}
	p, err := r.cpu.Open(dst, r.nonce, r.data, r.aad)
	if err != nil {
		return nil, ErrOpen
	}
	return p, nil
}

// argError is an invalid argument of Seal or Open. Server.Seal and
// Server.Open return it; the cipher.AEAD methods panic with panicMsg,
// crypto/cipher's message for the same mistake.
type argError struct {
	err      error
	panicMsg string
}

func (e *argError) Error() string { return e.err.Error() }
func (e *argError) Unwrap() error { return e.err }

var (
	errNonceSize = &argError{
		fmt.Errorf("aes: GCM nonce must be %d bytes long", NonceSize),
		"crypto/cipher: incorrect nonce length given to GCM",
	}
	errTooLarge = &argError{
		fmt.Errorf("aes: GCM plaintext longer than %d bytes", uint64(MaxMessage)),
		"crypto/cipher: message too large for GCM",
	}
	errOverlapInput = &argError{ErrOverlap, "crypto/cipher: invalid buffer overlap of output and input"}
	errOverlapAAD   = &argError{
		fmt.Errorf("%w: output and additional data", ErrOverlap),
		"crypto/cipher: invalid buffer overlap of output and additional data",
	}
)

// sealArgs checks the arguments of a Seal in crypto/cipher's order and
// returns dst extended by the output (ret) and the output itself (out).
func sealArgs(dst, nonce, plaintext, aad []byte) (ret, out []byte, err error) {
	if len(nonce) != NonceSize {
		return nil, nil, errNonceSize
	}
	if uint64(len(plaintext)) > MaxMessage {
		return nil, nil, errTooLarge
	}
	ret, out = appendRegion(dst, len(plaintext)+TagSize)
	if inexactOverlap(out, plaintext) {
		return nil, nil, errOverlapInput
	}
	if anyOverlap(out, aad) {
		return nil, nil, errOverlapAAD
	}
	return ret, out, nil
}

// openArgs is sealArgs for Open: a ciphertext shorter than the tag or
// longer than the longest message and tag gives ErrOpen, as in
// crypto/cipher.
func openArgs(dst, nonce, ciphertext, aad []byte) (ret, out []byte, err error) {
	if len(nonce) != NonceSize {
		return nil, nil, errNonceSize
	}
	if len(ciphertext) < TagSize || uint64(len(ciphertext)) > MaxMessage+TagSize {
		return nil, nil, ErrOpen
	}
	ret, out = appendRegion(dst, len(ciphertext)-TagSize)
	if inexactOverlap(out, ciphertext) {
		return nil, nil, errOverlapInput
	}
	if anyOverlap(out, aad) {
		return nil, nil, errOverlapAAD
	}
	return ret, out, nil
}

// appendRegion extends dst by n bytes, in place when its capacity allows,
// and returns the whole (ret) and the n new bytes (out).
func appendRegion(dst []byte, n int) (ret, out []byte) {
	if total := len(dst) + n; cap(dst) >= total {
		ret = dst[:total]
	} else {
		ret = make([]byte, total)
		copy(ret, dst)
	}
	return ret, ret[len(dst):]
}

// anyOverlap reports whether x and y share any memory.
func anyOverlap(x, y []byte) bool {
	return len(x) > 0 && len(y) > 0 && (&x[0] == &y[0] || inexactOverlap(x, y))
}
