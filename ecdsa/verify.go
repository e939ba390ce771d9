package ecdsa

import (
	"crypto/ecdsa"
	"encoding/binary"
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
	return out, batch.Collect(errs)
}

// verifyBatch is the one place a verification job is made and run: the
// verdicts, each element's error, and the call's.
func (e *Engine) verifyBatch(form Form, pubs []*ecdsa.PublicKey, hashes, sigs [][]byte) ([]bool, []error, error) {
	j := &verifyJob{e: e, form: form, pubs: pubs, hashes: hashes, sigs: sigs, out: make([]bool, len(pubs)), errs: make([]error, len(pubs))}
	err := e.core.Run(planFor("ECDSA P-256 verify", len(pubs)), j)
	return j.out, j.errs, err
}

// verifyJob is one call of VerifyASN1 or VerifyP1363 (an engine.Job).
type verifyJob struct {
	e            *Engine
	form         Form
	pubs         []*ecdsa.PublicKey
	hashes, sigs [][]byte
	out          []bool
	errs         []error
}

// CPU implements engine.Job: crypto/ecdsa on all cores.
func (j *verifyJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 16, func(a, b int) {
		for i := lo + a; i < lo+b; i++ {
			j.out[i], j.errs[i] = verifyCPU(j.pubs[i], j.hashes[i], j.sigs[i], j.form)
		}
	})
}

// check is the result check of element i: crypto/ecdsa's verdict.
func (j *verifyJob) check(i int) bool {
	ok, err := verifyCPU(j.pubs[i], j.hashes[i], j.sigs[i], j.form)
	return ok == j.out[i] && (err == nil) == (j.errs[i] == nil)
}

// element is one element's inputs as the kernel reads them, or the
// host's verdict where its inputs alone decide it.
type element struct {
	x, y, r, s, e [32]byte
	device        bool // false: out and errs hold the verdict already
}

// prepare settles element i on the host where its inputs alone decide it
// (a nil key or one on another curve: an error; crypto/ecdsa's checks
// before any curve arithmetic: a signature that does not parse, r or s
// out of [1, n), a coordinate not in [0, p)); else it returns the kernel's
// inputs.
func (j *verifyJob) prepare(i int) (el element) {
	j.out[i], j.errs[i] = false, nil
	pub := j.pubs[i]
	if err := checkPublic(pub); err != nil {
		j.errs[i] = err
		return
	}
	var r, s []byte
	var ok bool
	if j.form == P1363 {
		r, s, ok = parseP1363(j.sigs[i])
	} else {
		r, s, ok = parseASN1(j.sigs[i])
	}
	if !ok {
		return
	}
	var okR, okS, okX, okY bool
	el.r, okR = scalar32(r, groupOrder)
	el.s, okS = scalar32(s, groupOrder)
	el.x, okX = coordinate32(pub.X)
	el.y, okY = coordinate32(pub.Y)
	el.e = hashInteger(j.hashes[i])
	el.device = okR && okS && okX && okY
	return el
}

// putRow writes the 32 big-endian bytes v into the limb-major rows words
// (8 rows of n) as element k, least significant word first.
func putRow(words []uint32, n, k int, v *[32]byte) {
	for w := range 8 {
		words[w*n+k] = binary.BigEndian.Uint32(v[32-4*(w+1):])
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
	batch.Parallel(n, hostChunk, func(a, b int) {
		for k := a; k < b; k++ {
			el := j.prepare(ch.Lo + k)
			onDevice[k] = el.device
			if !el.device {
				el = element{} // zeros: the kernel's verdict is discarded
			}
			putRow(keys, n, k, &el.x)
			putRow(keys[8*n:], n, k, &el.y)
			putRow(sigs, n, k, &el.r)
			putRow(sigs[8*n:], n, k, &el.s)
			putRow(hashes, n, k, &el.e)
		}
	})
	end()
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
	for k, dev := range onDevice {
		if dev {
			j.out[ch.Lo+k] = verdicts[k] == 1
		}
	}
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}
