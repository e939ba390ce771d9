package ed25519

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"slices"

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
	end := e.core.Step("outputs")
	j := &signJob{e: e, v: &v, keys: keys, msgs: msgs, out: outputStrings(len(keys), SignatureSize), errs: make([]error, len(keys))}
	end()
	plan := engine.Plan{Op: "Ed25519 sign", N: len(keys), Cut: cutByMessages(msgs), Depth: pipelineDepth}
	if err := e.core.Run(plan, j); err != nil {
		return nil, err
	}
	defer e.core.Step("collect")()
	for i, err := range j.errs {
		if err != nil {
			j.out[i] = nil
		}
	}
	return j.out, batch.Collect(j.errs)
}

// outputStrings returns n strings of size bytes, one allocation per core.
func outputStrings(n, size int) [][]byte {
	out := make([][]byte, n)
	batch.Parallel(n, 4*hostChunk, func(lo, hi int) {
		slab := make([]byte, (hi-lo)*size)
		for i := lo; i < hi; i++ {
			k := i - lo
			out[i] = slab[k*size : (k+1)*size : (k+1)*size]
		}
	})
	return out
}

// signJob is one call of Sign (an engine.Job).
type signJob struct {
	e    *Engine
	v    *variant
	keys []ed25519.PrivateKey
	msgs [][]byte
	out  [][]byte
	errs []error
}

// CPU implements engine.Job: crypto/ed25519 on all cores.
func (j *signJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 64, func(a, b int) {
		for i := lo + a; i < lo+b; i++ {
			j.signCPU(i)
		}
	})
}

func (j *signJob) signCPU(i int) {
	j.errs[i] = j.v.signOne(j.out[i], j.keys[i], j.msgs[i])
	if j.errs[i] != nil {
		clear(j.out[i])
	}
}

// check is the result check of element i: crypto/ed25519's signature.
func (j *signJob) check(i int) bool {
	var want [SignatureSize]byte
	err := j.v.signOne(want[:], j.keys[i], j.msgs[i])
	return (err == nil) == (j.errs[i] == nil) && (err != nil || bytes.Equal(want[:], j.out[i]))
}

// Device implements engine.Job: the seeds, public keys and messages up,
// one kernel, the signatures back. Elements with a message longer than
// DeviceMessageMax are signed on the CPU while the kernel runs.
func (j *signJob) Device(ch *engine.Chunk) error {
	n := ch.Hi - ch.Lo
	words, err := ch.Words(8*n + 8*n + n + 16*n)
	if err != nil {
		return err
	}
	seeds, pubs, lengths, sigs := words[:8*n], words[8*n:16*n], words[16*n:17*n], words[17*n:]
	end := ch.Step("pack")
	batch.Parallel(n, hostChunk, func(a, b int) {
		for k := a; k < b; k++ {
			i := ch.Lo + k
			key, msg := j.keys[i], j.msgs[i]
			j.errs[i] = nil
			lengths[k] = lengthSkip
			if len(key) == PrivateKeySize && j.v.checkMessage(msg) == nil && len(msg) <= DeviceMessageMax {
				lengths[k] = uint32(len(msg))
			}
		}
		// the keys of the elements the kernel signs, zeros for the others
		key := func(k int) []byte {
			if lengths[k] == lengthSkip {
				return nil
			}
			return j.keys[ch.Lo+k]
		}
		putValues(seeds, n, a, b, func(k int) []byte {
			if v := key(k); v != nil {
				return v[:SeedSize]
			}
			return nil
		})
		putValues(pubs, n, a, b, func(k int) []byte {
			if v := key(k); v != nil {
				return v[SeedSize:]
			}
			return nil
		})
	})
	onHost := slices.Contains(lengths, lengthSkip) // malformed elements and long messages
	end()
	end = ch.Step("pack messages")
	msgs, err := packMessages(ch, j.msgs[ch.Lo:ch.Hi], lengths)
	end()
	if err != nil {
		return err
	}
	kern, err := j.e.prog.Kernel("ed25519_sign")
	if err != nil {
		return err
	}
	ch.ZeroAfterUpload(device.Uint32Bytes(seeds))
	// the host's share (malformed elements, long messages) beside the
	// kernel; it is waited for on every way out of Device, a panic of ch.Run
	// included (the batch's memory is released and recomputed after it),
	// and a panic of its own is raised again here, where the engine's
	// recover sees it
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		if !onHost {
			return
		}
		batch.Parallel(n, hostChunk, func(a, b int) {
			for k := a; k < b; k++ {
				if lengths[k] == lengthSkip {
					j.signCPU(ch.Lo + k)
				}
			}
		})
	}()
	hostDone := false
	waitHost := func() {
		if !hostDone {
			hostDone = true
			if p := <-done; p != nil {
				panic(p)
			}
		}
	}
	defer waitHost()
	err = ch.Run(func(cmds *device.Commands) error {
		dseeds, err := cmds.Upload(seeds, true)
		if err != nil {
			return err
		}
		dpubs, err := cmds.Upload(pubs, false)
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
		args := append(append([]any{dsigs, dseeds, dpubs}, margs...), j.e.table, uint32(n))
		if err := cmds.Launch(kern, n, WorkGroup, args...); err != nil {
			return err
		}
		return cmds.Read(dsigs, device.Uint32Bytes(sigs))
	})
	waitHost()
	if err != nil {
		return err
	}
	end = ch.Step("unpack")
	batch.Parallel(n, hostChunk, func(a, b int) {
		for half, rows := range [][]uint32{sigs[:8*n], sigs[8*n:]} { // R, then S
			getValues(rows, n, a, b, func(k int) []byte {
				if lengths[k] == lengthSkip {
					return nil
				}
				return j.out[ch.Lo+k][32*half : 32*half+32]
			})
		}
	})
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}
