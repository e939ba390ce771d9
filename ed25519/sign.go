package ed25519

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Sign returns the signature of msgs[i] by keys[i] for each i, byte for
// byte what crypto/ed25519 gives (PrivateKey.Sign with opts; nil opts is
// plain Ed25519, as ed25519.Sign): deterministic, as RFC 8032 says, with
// the public key taken from the private key's second half as
// crypto/ed25519 takes it. An element with a private key not of
// PrivateKeySize bytes or an Ed25519ph message not of 64 bytes has its
// error in the returned *batch.Error and a nil signature; options that
// crypto/ed25519 refuses fail the call.
func (e *Engine) Sign(keys []ed25519.PrivateKey, msgs [][]byte, opts *ed25519.Options) ([][]byte, error) {
	if len(msgs) != len(keys) {
		return nil, fmt.Errorf("ed25519: %d private keys but %d messages", len(keys), len(msgs))
	}
	v, err := variantOf(opts)
	if err != nil {
		return nil, err
	}
	// the signatures' bytes are allocated by the batches (outputs), their
	// slice beside the first ones
	j := &signJob{e: e, v: &v, keys: keys, msgs: msgs, out: engine.LaterSlice[[]byte](e.core, len(keys)), errs: engine.NewErrors(len(keys))}
	if err := e.sign(j); err != nil {
		return nil, err
	}
	return j.out.Get(), j.errs.Err()
}

// SignInto is Sign writing the signature of msgs[i] into out[i],
// SignatureSize bytes that the caller owns: a caller that reuses its
// outputs from call to call allocates nothing per element, and a large
// call leaves no garbage behind it. An element that fails has its error
// in the returned *batch.Error and out[i] zeroed; an out[i] not of
// SignatureSize bytes fails its element (ErrOutputLength).
func (e *Engine) SignInto(keys []ed25519.PrivateKey, msgs, out [][]byte, opts *ed25519.Options) error {
	if len(msgs) != len(keys) || len(out) != len(keys) {
		return fmt.Errorf("ed25519: %d private keys, %d messages and %d outputs", len(keys), len(msgs), len(out))
	}
	v, err := variantOf(opts)
	if err != nil {
		return err
	}
	j := &signJob{e: e, v: &v, keys: keys, msgs: msgs, out: engine.Ready(out), into: true, errs: engine.NewErrors(len(keys))}
	if err := e.sign(j); err != nil {
		return err
	}
	return j.errs.Err()
}

func (e *Engine) sign(j *signJob) error {
	j.cuts = newMessageCuts(j.msgs)
	plan := engine.Plan{Op: "Ed25519 sign", N: len(j.keys), Cut: j.cuts.cut, Depth: hostBoundDepth, PackInTurn: true}
	return e.core.Run(plan, j)
}

// outputs hands out consecutive pieces of size bytes of one allocation:
// the results of a range of elements, allocated by the core that fills
// them, beside the device's work on other batches (its zeroing and the
// first touch of its pages spread over the cores), rather than for the
// whole call on one core before its first batch.
type outputs struct {
	rest []byte
	size int
}

// newOutputs returns the outputs of count elements of size bytes.
func newOutputs(count, size int) *outputs {
	return &outputs{rest: make([]byte, count*size), size: size}
}

// next is the next element's output.
func (o *outputs) next() []byte {
	v := o.rest[:o.size:o.size]
	o.rest = o.rest[o.size:]
	return v
}

// signJob is one call of Sign or SignInto (an engine.Job). Sign's out is
// nil for an element until it is signed, and stays nil when it has an
// error; SignInto's (into) is the caller's outputs.
type signJob struct {
	e    *Engine
	v    *variant
	keys []ed25519.PrivateKey
	msgs [][]byte
	out  *engine.Later[[][]byte]
	into bool
	errs *engine.Errors
	cuts *messageCuts
}

// CPU implements engine.Job: crypto/ed25519 on all cores.
func (j *signJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 64, func(a, b int) {
		var sigs *outputs
		if !j.into {
			sigs = newOutputs(b-a, SignatureSize)
		}
		for i := lo + a; i < lo+b; i++ {
			j.signCPU(i, sigs)
		}
	})
}

// output is element i's output: the caller's (SignInto), or the next of
// sigs, else a new one.
func (j *signJob) output(i int, sigs *outputs) []byte {
	switch {
	case j.into:
		return j.out.Get()[i]
	case sigs != nil:
		return sigs.next()
	}
	return make([]byte, SignatureSize)
}

// signCPU signs element i with crypto/ed25519 into its output (of sigs:
// see output).
func (j *signJob) signCPU(i int, sigs *outputs) {
	sig := j.output(i, sigs)
	err := j.v.signOne(sig, j.keys[i], j.msgs[i])
	j.errs.Set(i, err)
	if err != nil {
		clear(sig)
		if !j.into {
			sig = nil
		}
	}
	j.out.Get()[i] = sig
}

// check is the result check of element i: crypto/ed25519's signature.
func (j *signJob) check(i int) bool {
	var want [SignatureSize]byte
	err := j.v.signOne(want[:], j.keys[i], j.msgs[i])
	got := j.out.Get()[i]
	if err == nil && len(got) != SignatureSize {
		err = ErrOutputLength // SignInto's output
	}
	return (err == nil) == (j.errs.Get(i) == nil) && (err != nil || bytes.Equal(want[:], got))
}

// Device implements engine.Job: the seeds, public keys and messages up,
// one kernel, the signatures back. Elements with a message longer than
// DeviceMessageMax are signed on the CPU while the kernel runs, and so
// are those whose signature the kernel's fault check refused (zeros:
// kernels/ed25519.cl), after it.
func (j *signJob) Device(ch *engine.Chunk) error {
	n := ch.Hi - ch.Lo
	faultWords := 0 // the tests' fault injection (Engine.inject)
	if j.e.inject {
		faultWords = n
	}
	words, err := ch.Words(16*n + n + 16*n + faultWords)
	if err != nil {
		return err
	}
	keys, lengths, sigs := device.Uint32Bytes(words[:16*n]), words[16*n:17*n], device.Uint32Bytes(words[17*n:33*n])
	faults := words[33*n:]
	for k := range faults {
		faults[k] = 0
		if j.e.faults != nil {
			faults[k] = j.e.faults(ch.Lo + k)
		}
	}
	end := ch.Step("pack")
	var onHost atomic.Bool // malformed elements and long messages
	msgs, err := packBatch(ch, j.msgs[ch.Lo:ch.Hi], lengths, j.cuts.take(ch.Lo, ch.Hi), func(a, b int) {
		if j.pack(ch, keys, lengths, a, b) {
			onHost.Store(true)
		}
	})
	end()
	if err != nil {
		return err
	}
	kern, err := j.e.prog.Kernel("ed25519_sign")
	if err != nil {
		return err
	}
	ch.ZeroAfterUpload(keys)
	ch.Public(device.Uint32Bytes(words[16*n:])) // the lengths, signatures and faults
	// the host's share (malformed elements, long messages) beside the
	// kernel; it is waited for on every way out of Device, a panic of ch.Run
	// included (the batch's memory is released and recomputed after it),
	// and a panic of its own is raised again here, where the engine's
	// recover sees it
	waitHost := background(func() {
		if onHost.Load() {
			j.signOnHost(ch, lengths)
		}
	})
	defer waitHost()
	// a large batch's signatures come back in two halves, and the first
	// half is unpacked while the second travels (readHalfMin)
	half := 0
	if n >= 2*readHalfMin {
		half = n / 2
	}
	from := 0              // elements whose unpacking has started
	waitFirst := func() {} // the first half's unpacking, once started
	defer func() { waitFirst() }()
	err = ch.Run(func(cmds *device.Commands) error {
		dkeys, err := cmds.Upload(words[:16*n], true)
		if err != nil {
			return err
		}
		margs, err := msgs.args(cmds, j.v.dom)
		if err != nil {
			return err
		}
		dsigs, err := cmds.Buffer(4*16*n, false)
		if err != nil {
			return err
		}
		args := append(append([]any{dsigs, dkeys}, margs...), j.e.table, j.e.check, uint32(n))
		if j.e.inject {
			dfaults, err := cmds.Upload(faults, false)
			if err != nil {
				return err
			}
			args = append(args, dfaults)
		}
		if err := cmds.Launch(kern, n, WorkGroup, args...); err != nil {
			return err
		}
		if half == 0 {
			return cmds.Read(dsigs, sigs)
		}
		if err := cmds.ReadAt(dsigs, 0, sigs[:half*SignatureSize]); err != nil {
			return err
		}
		if err := cmds.ReadAt(dsigs, half*SignatureSize, sigs[half*SignatureSize:]); err != nil {
			return err
		}
		cmds.ReadDone = func(i int) {
			if i == 0 {
				from = half
				waitFirst = background(func() {
					batch.Parallel(half, hostChunk, func(a, b int) { j.unpack(ch, sigs, lengths, a, b) })
				})
			}
		}
		return nil
	})
	waitHost()
	if err != nil {
		return err
	}
	end = ch.Step("unpack")
	batch.Parallel(n-from, hostChunk, func(a, b int) { j.unpack(ch, sigs, lengths, from+a, from+b) })
	waitFirst()
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}

// background runs f on a goroutine of its own and returns what waits for
// it: the first call waits and raises a panic of f's again on the waiting
// goroutine (where the engine's recover sees it), later calls return at
// once.
func background(f func()) (wait func()) {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	waited := false
	return func() {
		if !waited {
			waited = true
			if p := <-done; p != nil {
				panic(p)
			}
		}
	}
}

// pack writes the kernel's keys of the elements [a, b) of the batch ch
// into keys (each private key's 64 bytes as they are, element by element)
// and each element's message length into lengths, or lengthSkip for the
// elements the host signs (a malformed key or message, a message longer
// than DeviceMessageMax), whose keys are zeros; it reports whether there
// are any of those.
func (j *signJob) pack(ch *engine.Chunk, keys []byte, lengths []uint32, a, b int) bool {
	onHost := false
	putRecords(keys, PrivateKeySize, a, b, func(k int) []byte {
		i := ch.Lo + k
		key, msg := j.keys[i], j.msgs[i]
		j.errs.Set(i, nil)
		if len(key) != PrivateKeySize || j.v.checkMessage(msg) != nil || len(msg) > DeviceMessageMax ||
			j.into && len(j.out.Get()[i]) != SignatureSize {
			lengths[k] = lengthSkip
			onHost = true
			return nil
		}
		lengths[k] = uint32(len(msg))
		return key
	})
	return onHost
}

// signOnHost signs the elements of the batch ch that pack left to the
// host (lengths lengthSkip) with crypto/ed25519, on all cores.
func (j *signJob) signOnHost(ch *engine.Chunk, lengths []uint32) {
	batch.Parallel(ch.Hi-ch.Lo, hostChunk, func(a, b int) {
		for k := a; k < b; k++ {
			if lengths[k] == lengthSkip {
				j.signCPU(ch.Lo+k, nil) // few: no slab
			}
		}
	})
}

// unpack gives elements [a, b) of the batch ch the kernel's signatures
// (sigs: 64 bytes each, element by element), but for those the host
// signed: copied into the caller's outputs (SignInto), else into one new
// allocation for the range. An element whose signature the kernel's
// fault check refused is signed with crypto/ed25519 instead, and counted
// (batch.Stats.Faults).
func (j *signJob) unpack(ch *engine.Chunk, sigs []byte, lengths []uint32, a, b int) {
	out := j.out.Get()
	if j.into {
		for k := a; k < b; k++ {
			if lengths[k] == lengthSkip {
				continue
			}
			sig := sigs[k*SignatureSize : (k+1)*SignatureSize]
			if refused(sig) {
				ch.Fault()
				j.signCPU(ch.Lo+k, nil)
				continue
			}
			copy(out[ch.Lo+k], sig)
		}
		return
	}
	slab := newOutputs(b-a, SignatureSize)
	copy(slab.rest, sigs[a*SignatureSize:b*SignatureSize])
	for k := a; k < b; k++ {
		sig := slab.next()
		if lengths[k] == lengthSkip {
			continue
		}
		if refused(sig) {
			ch.Fault()
			j.signCPU(ch.Lo+k, nil)
			continue
		}
		out[ch.Lo+k] = sig
	}
}

// refused reports whether the kernel's fault check refused the signature
// sig: its R is zeros, which no signature has (kernels/ed25519.cl).
func refused(sig []byte) bool { return [32]byte(sig[:32]) == [32]byte{} }
