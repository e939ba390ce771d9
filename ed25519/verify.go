package ed25519

import (
	"crypto/ed25519"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Verify reports, for each i, whether sigs[i] is a valid signature of
// msgs[i] by pubs[i]: exactly crypto/ed25519's verdict
// (VerifyWithOptions with opts; nil opts is plain Ed25519, as Verify), for
// every input, non-canonical encodings, S ≥ L and small-order points
// included. An element whose input is malformed in a way crypto/ed25519
// panics on or refuses outright (a public key not of PublicKeySize bytes,
// an Ed25519ph message not of 64 bytes) has its error in the returned
// *batch.Error and the verdict false; a signature of the wrong length is
// simply invalid. Options that crypto/ed25519 refuses fail the call.
func (e *Engine) Verify(pubs []ed25519.PublicKey, msgs, sigs [][]byte, opts *ed25519.Options) ([]bool, error) {
	if len(msgs) != len(pubs) || len(sigs) != len(pubs) {
		return nil, fmt.Errorf("ed25519: %d public keys, %d messages and %d signatures", len(pubs), len(msgs), len(sigs))
	}
	v, err := variantOf(opts)
	if err != nil {
		return nil, err
	}
	end := e.core.Step("outputs")
	j := &verifyJob{e: e, v: &v, pubs: pubs, msgs: msgs, sigs: sigs, out: make([]bool, len(pubs)), errs: engine.NewErrors(len(pubs))}
	end()
	j.cuts = newMessageCuts(msgs)
	plan := engine.Plan{Op: "Ed25519 verify", N: len(pubs), Cut: j.cuts.cut, Depth: pipelineDepth, PackInTurn: true}
	if err := e.core.Run(plan, j); err != nil {
		return nil, err
	}
	return j.out, j.errs.Err()
}

// verifyJob is one call of Verify (an engine.Job).
type verifyJob struct {
	e          *Engine
	v          *variant
	pubs       []ed25519.PublicKey
	msgs, sigs [][]byte
	out        []bool
	errs       *engine.Errors
	cuts       *messageCuts
}

// CPU implements engine.Job: crypto/ed25519 on all cores.
func (j *verifyJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 64, func(a, b int) {
		for i := lo + a; i < lo+b; i++ {
			var err error
			j.out[i], err = j.v.verifyOne(j.pubs[i], j.msgs[i], j.sigs[i])
			j.errs.Set(i, err)
		}
	})
}

// check is the result check of element i: crypto/ed25519's verdict.
func (j *verifyJob) check(i int) bool {
	ok, err := j.v.verifyOne(j.pubs[i], j.msgs[i], j.sigs[i])
	return ok == j.out[i] && (err == nil) == (j.errs.Get(i) == nil)
}

// prejudge settles element i on the host where the inputs alone decide
// it (crypto/ed25519's checks before any curve arithmetic: lengths, the
// signature's unused top bits, S < L); it reports whether the device
// must compute it.
func (j *verifyJob) prejudge(i int) bool {
	j.out[i] = false
	pub, sig := j.pubs[i], j.sigs[i]
	if len(pub) != PublicKeySize {
		j.errs.Set(i, fmt.Errorf("%w: a public key of %d bytes", ErrKeyLength, len(pub)))
		return false
	}
	if err := j.v.checkMessage(j.msgs[i]); err != nil {
		j.errs.Set(i, err)
		return false
	}
	j.errs.Set(i, nil)
	return len(sig) == SignatureSize && sig[63]&0xe0 == 0 && canonicalScalar(sig[32:])
}

// Device implements engine.Job: the public keys, signatures and messages
// (or, for long messages, the challenges k) up, one kernel, the verdicts
// back.
func (j *verifyJob) Device(ch *engine.Chunk) error {
	n := ch.Hi - ch.Lo
	words, err := ch.Words(8*n + 16*n + 8*n + n + n)
	if err != nil {
		return err
	}
	pubs, sigs, ks := words[:8*n], words[8*n:24*n], words[24*n:32*n]
	lengths, verdicts := words[32*n:33*n], words[33*n:]
	end := ch.Step("pack")
	msgs, err := packBatch(ch, j.msgs[ch.Lo:ch.Hi], lengths, j.cuts.take(ch.Lo, ch.Hi), func(a, b int) {
		j.pack(ch, pubs, sigs, ks, lengths, a, b)
	})
	end()
	if err != nil {
		return err
	}
	kern, err := j.e.prog.Kernel("ed25519_verify")
	if err != nil {
		return err
	}
	ch.Public(device.Uint32Bytes(words)) // keys, signatures, challenges, lengths, verdicts
	err = ch.Run(func(cmds *device.Commands) error {
		dpubs, err := cmds.Upload(pubs, false)
		if err != nil {
			return err
		}
		dsigs, err := cmds.Upload(sigs, false)
		if err != nil {
			return err
		}
		dks, err := cmds.Upload(ks, false)
		if err != nil {
			return err
		}
		margs, err := msgs.args(cmds, j.v.dom)
		if err != nil {
			return err
		}
		dverdicts, err := cmds.Buffer(4*n, false)
		if err != nil {
			return err
		}
		args := append(append([]any{dverdicts, dpubs, dsigs, dks}, margs...), j.e.table, uint32(n))
		if err := cmds.Launch(kern, n, WorkGroup, args...); err != nil {
			return err
		}
		return cmds.Read(dverdicts, device.Uint32Bytes(verdicts))
	})
	if err != nil {
		return err
	}
	end = ch.Step("unpack")
	batch.Parallel(n, hostChunk, func(a, b int) {
		for k := a; k < b; k++ {
			if lengths[k] != lengthSkip {
				j.out[ch.Lo+k] = verdicts[k] == 1
			}
		}
	})
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}

// pack writes the kernel's inputs of elements [a, b) of the batch ch:
// each element's public key into pubs, signature into sigs (R's rows,
// then S's: its 64 bytes as they are) and message length into lengths,
// lengthSkip for an element prejudge settles, lengthHashed for one whose
// message is longer than DeviceMessageMax, whose challenge k the host
// computes into ks (zeros for the others). The elements settled get zeros.
func (j *verifyJob) pack(ch *engine.Chunk, pubs, sigs, ks, lengths []uint32, a, b int) {
	n := ch.Hi - ch.Lo
	putValues(pubs, n, a, b, func(k int) []byte {
		i := ch.Lo + k
		switch {
		case !j.prejudge(i):
			lengths[k] = lengthSkip
			return nil
		case len(j.msgs[i]) > DeviceMessageMax:
			lengths[k] = lengthHashed
		default:
			lengths[k] = uint32(len(j.msgs[i]))
		}
		return j.pubs[i]
	})
	putValues(sigs, n, a, b, func(k int) []byte {
		if lengths[k] == lengthSkip {
			return nil
		}
		return j.sigs[ch.Lo+k] // of SignatureSize bytes: prejudge checked
	})
	putValues(ks, n, a, b, func(k int) []byte {
		if lengths[k] != lengthHashed {
			return nil
		}
		i := ch.Lo + k
		c := j.v.challenge(j.sigs[i][:32], j.pubs[i], j.msgs[i])
		return c[:]
	})
}
