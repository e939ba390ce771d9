package ecdsa

import (
	"crypto/ecdsa"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// VerifyASN1 reports, for each i, whether sigs[i] (ASN.1 DER) is a valid
// signature of hashes[i] by pubs[i]: exactly crypto/ecdsa.VerifyASN1's
// verdict, for every input (malformed or non-minimal DER, r or s out of
// range, keys off the curve or with coordinates not below p, a sum at the
// point at infinity). A nil key (ErrNilKey; crypto/ecdsa panics) and a key
// on another curve than P-256 (ErrCurve) fail their element, in a
// *batch.Error, with the verdict false.
func (e *Engine) VerifyASN1(pubs []*ecdsa.PublicKey, hashes, sigs [][]byte) ([]bool, error) {
	return e.verify(pubs, hashes, sigs, ASN1)
}

// VerifyP1363 is VerifyASN1 for signatures in IEEE P1363's form, r ‖ s (32
// bytes each for P-256; another length is invalid): the verdict is
// crypto/ecdsa.Verify's on those r and s.
func (e *Engine) VerifyP1363(pubs []*ecdsa.PublicKey, hashes, sigs [][]byte) ([]bool, error) {
	return e.verify(pubs, hashes, sigs, P1363)
}

func (e *Engine) verify(pubs []*ecdsa.PublicKey, hashes, sigs [][]byte, form Form) ([]bool, error) {
	if len(hashes) != len(pubs) || len(sigs) != len(pubs) {
		return nil, fmt.Errorf("ecdsa: %d public keys, %d hashes and %d signatures", len(pubs), len(hashes), len(sigs))
	}
	out, errs, err := e.verifyBatch(form, pubs, hashes, sigs)
	if err != nil {
		return nil, err
	}
	return out, errs.Err()
}

// verifyBatch is the one place a verification job is made and run: the
// verdicts, the elements' errors, and the call's.
func (e *Engine) verifyBatch(form Form, pubs []*ecdsa.PublicKey, hashes, sigs [][]byte) ([]bool, *engine.Errors, error) {
	j := &verifyJob{e: e, form: form, pubs: pubs, hashes: hashes, sigs: sigs, out: make([]bool, len(pubs)), errs: engine.NewErrors(len(pubs))}
	err := e.core.Run(planFor("ECDSA P-256 verify", len(pubs), hostBoundDepth), j)
	return j.out, j.errs, err
}

// verifyJob is one call of VerifyASN1 or VerifyP1363 (an engine.Job).
// Its errors' slice is made at the first error, as signing's: a call
// whose keys are all usable has none.
type verifyJob struct {
	e            *Engine
	form         Form
	pubs         []*ecdsa.PublicKey
	hashes, sigs [][]byte
	out          []bool
	errs         *engine.Errors
}

// CPU implements engine.Job: crypto/ecdsa on all cores.
func (j *verifyJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 16, func(a, b int) {
		for i := lo + a; i < lo+b; i++ {
			ok, err := verifyCPU(j.pubs[i], j.hashes[i], j.sigs[i], j.form)
			j.out[i] = ok
			j.errs.Set(i, err)
		}
	})
}

// check is the result check of element i: crypto/ecdsa's verdict.
func (j *verifyJob) check(i int) bool {
	ok, err := verifyCPU(j.pubs[i], j.hashes[i], j.sigs[i], j.form)
	return ok == j.out[i] && (err == nil) == (j.errs.Get(i) == nil)
}

// prepare settles element i on the host where its inputs alone decide it
// (a nil key or one on another curve: an error; crypto/ecdsa's checks
// before any curve arithmetic: a signature that does not parse, r or s
// out of [1, n), a coordinate not in [0, p)), the verdict false, and
// reports false with zeros; else it returns the kernel's inputs in the
// rows' limbs: the key's point, r and s, the hash's integer.
func (j *verifyJob) prepare(i int) (x, y, r, s, e limbs, ok bool) {
	pub := j.pubs[i]
	if err := checkPublic(pub); err != nil {
		j.errs.Set(i, err)
		return
	}
	var rb, sb []byte
	if j.form == P1363 {
		rb, sb, ok = parseP1363(j.sigs[i])
	} else {
		rb, sb, ok = parseASN1(j.sigs[i])
	}
	if !ok {
		return
	}
	var okR, okS, okX, okY bool
	r, okR = scalarLimbs(rb)
	s, okS = scalarLimbs(sb)
	x, okX = coordinateLimbs(pub.X)
	y, okY = coordinateLimbs(pub.Y)
	if !(okR && okS && okX && okY) {
		return limbs{}, limbs{}, limbs{}, limbs{}, limbs{}, false
	}
	return x, y, r, s, hashLimbs(j.hashes[i]), true
}

// pack writes the kernel's inputs of elements [a, b) of the batch ch
// into the rows of keys (x, y), sigs (r, s) and hashes, tile elements at
// a time (as signing's pack). onDevice[k] says whether element k is the
// kernel's; the others get zeros (the kernel's verdict on them is
// discarded).
func (j *verifyJob) pack(ch *engine.Chunk, keys, sigs, hashes []uint32, onDevice []bool, a, b int) {
	n := ch.Hi - ch.Lo
	var x, y, r, s, e [tile]limbs
	for t := a; t < b; t += tile {
		m := min(tile, b-t)
		for k := range m {
			x[k], y[k], r[k], s[k], e[k], onDevice[t+k] = j.prepare(ch.Lo + t + k)
		}
		putTile(keys, n, t, x[:m])
		putTile(keys[8*n:], n, t, y[:m])
		putTile(sigs, n, t, r[:m])
		putTile(sigs[8*n:], n, t, s[:m])
		putTile(hashes, n, t, e[:m])
	}
}

// unpack sets the verdicts of elements [a, b) of the batch ch from the
// kernel's verdict words: true where the kernel had the element
// (onDevice) and answered 1. Those the host settled are false.
func (j *verifyJob) unpack(ch *engine.Chunk, verdicts []uint32, onDevice []bool, a, b int) {
	out := j.out[ch.Lo:ch.Hi]
	for k := a; k < b; k++ {
		out[k] = onDevice[k] && verdicts[k] == 1
	}
}

// Device implements engine.Job: keys, signatures and hashes up, two
// kernels (u1 and u2 per group of signatures sharing one inversion of
// their s, then R = u1·G + u2·Q per signature), the verdicts back.
func (j *verifyJob) Device(ch *engine.Chunk) error {
	n := ch.Hi - ch.Lo
	words, err := ch.Words(16*n + 16*n + 8*n + n)
	if err != nil {
		return err
	}
	keys, sigs, hashes, verdicts := words[:16*n], words[16*n:32*n], words[32*n:40*n], words[40*n:]
	onDevice := make([]bool, n)
	end := ch.Step("pack")
	batch.Parallel(n, hostChunk, func(a, b int) { j.pack(ch, keys, sigs, hashes, onDevice, a, b) })
	end()
	ch.Public(device.Uint32Bytes(words)) // keys, signatures, hashes and verdicts: all public
	scalarKernel, err := j.e.prog.Kernel("ecdsa_p256_verify_scalars")
	if err != nil {
		return err
	}
	kern, err := j.e.prog.Kernel("ecdsa_p256_verify")
	if err != nil {
		return err
	}
	groups := inversionGroups(n)
	err = ch.Run(func(cmds *device.Commands) error {
		dkeys, err := cmds.Upload(keys, false)
		if err != nil {
			return err
		}
		dsigs, err := cmds.Upload(sigs, false)
		if err != nil {
			return err
		}
		dhashes, err := cmds.Upload(hashes, false)
		if err != nil {
			return err
		}
		dscalars, err := cmds.Buffer(4*16*n, false)
		if err != nil {
			return err
		}
		dverdicts, err := cmds.Buffer(4*n, false)
		if err != nil {
			return err
		}
		if err := cmds.Launch(scalarKernel, groups, WorkGroup, dscalars, dsigs, dhashes, uint32(n), uint32(groups)); err != nil {
			return err
		}
		if err := cmds.Launch(kern, n, WorkGroup, dverdicts, dkeys, dsigs, dscalars, j.e.comb, uint32(n)); err != nil {
			return err
		}
		return cmds.Read(dverdicts, device.Uint32Bytes(verdicts))
	})
	if err != nil {
		return err
	}
	end = ch.Step("unpack")
	batch.Parallel(n, hostChunk, func(a, b int) { j.unpack(ch, verdicts, onDevice, a, b) })
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}
