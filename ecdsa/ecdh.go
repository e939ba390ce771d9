package ecdsa

import (
	"bytes"
	stdecdh "crypto/ecdh"
	"encoding/binary"
	"filippo.io/nistec"
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// ECDH computes the P-256 shared secrets of privs[i] with peers[i] in
// crypto/ecdh's encodings: a private key is the 32-byte big-endian scalar
// of crypto/ecdh's PrivateKey.Bytes, a public key the 65-byte uncompressed
// point 04 ‖ X ‖ Y of PublicKey.Bytes, and the secret the 32-byte
// x-coordinate of privs[i]·peers[i], byte for byte crypto/ecdh.P256()'s
// PrivateKey.ECDH. An element that crypto/ecdh refuses (a scalar not of 32
// bytes or not in [1, n); a public key not of 65 bytes, compressed, the
// point at infinity, a coordinate not below p, a point off the curve) has
// crypto/ecdh's error in the returned *batch.Error and a nil secret (the
// peer key's error where both keys are refused). The
// device computes in constant time in the private keys
// (kernels/p256_ecdh.cl), and the buffers that held them, and the secrets,
// are zeroed.
func (e *Engine) ECDH(privs, peers [][]byte) ([][]byte, error) {
	if len(peers) != len(privs) {
		return nil, fmt.Errorf("ecdsa: %d private keys but %d peer public keys", len(privs), len(peers))
	}
	return e.runECDH("ECDH P-256 shared secret", privs, peers)
}

// PublicKeys computes the P-256 public keys of privs (32-byte big-endian
// scalars, as ECDH takes them) as crypto/ecdh's PrivateKey.PublicKey().Bytes()
// gives them: 65 bytes, 04 ‖ X ‖ Y. A scalar crypto/ecdh refuses fails its
// element with crypto/ecdh's error. The device computes in constant time
// in the scalars (the comb of kernels/p256_comb.h).
func (e *Engine) PublicKeys(privs [][]byte) ([][]byte, error) {
	return e.runECDH("ECDH P-256 public key", privs, nil)
}

// ECDHKeys is ECDH for crypto/ecdh's keys: privs[i].ECDH(peers[i]). A nil
// key (ErrNilKey) or one on another curve than P-256 (ErrCurve) fails its
// element.
func (e *Engine) ECDHKeys(privs []*stdecdh.PrivateKey, peers []*stdecdh.PublicKey) ([][]byte, error) {
	if len(peers) != len(privs) {
		return nil, fmt.Errorf("ecdsa: %d private keys but %d peer public keys", len(privs), len(peers))
	}
	errs := make([]error, len(privs))
	rawPrivs, rawPeers := make([][]byte, len(privs)), make([][]byte, len(privs))
	for i := range privs {
		if errs[i] = checkECDHKeys(privs[i], peers[i]); errs[i] == nil {
			rawPrivs[i], rawPeers[i] = privs[i].Bytes(), peers[i].Bytes()
		}
	}
	defer func() {
		for _, d := range rawPrivs {
			clear(d)
		}
	}()
	out, err := e.ECDH(rawPrivs, rawPeers)
	if err != nil {
		be, ok := err.(*batch.Error)
		if !ok {
			return nil, err
		}
		for i, x := range be.Errs {
			if errs[i] == nil {
				errs[i] = x
			}
		}
	}
	for i := range out {
		if errs[i] != nil {
			out[i] = nil
		}
	}
	return out, batch.Collect(errs)
}

// ECDHPublicKeys computes the public keys of crypto/ecdh P-256 private keys
// on e (PublicKeys) and returns them as crypto/ecdh public keys; a nil key
// (ErrNilKey) or one on another curve (ErrCurve) fails its element. The
// copies of the private keys made for the call are zeroed before it
// returns. Package ecdh's Engine has the same method for X25519 keys.
func (e *Engine) ECDHPublicKeys(privs []*stdecdh.PrivateKey) ([]*stdecdh.PublicKey, error) {
	errs := make([]error, len(privs))
	raw := make([][]byte, len(privs))
	for i, k := range privs {
		switch {
		case k == nil:
			errs[i] = fmt.Errorf("%w: private key", ErrNilKey)
		case k.Curve() != stdecdh.P256():
			errs[i] = fmt.Errorf("%w: private key on %v", ErrCurve, k.Curve())
		default:
			raw[i] = k.Bytes()
		}
	}
	defer func() {
		for _, d := range raw {
			clear(d)
		}
	}()
	vals, err := e.PublicKeys(raw)
	if err != nil {
		be, ok := err.(*batch.Error)
		if !ok {
			return nil, err
		}
		for i, x := range be.Errs {
			if errs[i] == nil {
				errs[i] = x
			}
		}
	}
	out := make([]*stdecdh.PublicKey, len(privs))
	for i, v := range vals {
		if errs[i] == nil {
			if out[i], errs[i] = stdecdh.P256().NewPublicKey(v); errs[i] != nil {
				out[i] = nil
			}
		}
	}
	return out, batch.Collect(errs)
}

// checkECDHKeys is the error of a pair of crypto/ecdh keys that ECDHKeys
// cannot use: nil, or on another curve.
func checkECDHKeys(priv *stdecdh.PrivateKey, peer *stdecdh.PublicKey) error {
	switch {
	case priv == nil:
		return fmt.Errorf("%w: private key", ErrNilKey)
	case peer == nil:
		return fmt.Errorf("%w: peer public key", ErrNilKey)
	case priv.Curve() != stdecdh.P256():
		return fmt.Errorf("%w: private key on %v", ErrCurve, priv.Curve())
	case peer.Curve() != stdecdh.P256():
		return fmt.Errorf("%w: peer public key on %v", ErrCurve, peer.Curve())
	}
	return nil
}

// runECDH runs the call op: shared secrets of privs with peers, or with
// peers nil the public keys of privs.
func (e *Engine) runECDH(op string, privs, peers [][]byte) ([][]byte, error) {
	j, err := e.ecdhBatch(op, privs, peers)
	if err != nil {
		return nil, err
	}
	return j.out.Get(), j.errs.Err()
}

// ecdhBatch is runECDH's call, its job returned whole: the results, the
// elements' errors, and the count of elements the device refused (for
// the self-test, which must see the device answer).
func (e *Engine) ecdhBatch(op string, privs, peers [][]byte) (*ecdhJob, error) {
	j := &ecdhJob{e: e, privs: privs, peers: peers,
		out: engine.LaterSlice[[]byte](e.core, len(privs)), errs: engine.NewErrors(len(privs))}
	depth := pipelineDepth
	if peers == nil { // public keys
		depth = hostBoundDepth
	}
	return j, e.core.Run(planFor(op, len(privs), depth), j)
}

// ecdhJob is one call of ECDH (shared secrets) or, with peers nil,
// PublicKeys (an engine.Job). Its results' slice is made beside the first
// batches and its errors' at the first error, as signing's.
type ecdhJob struct {
	e            *Engine
	privs, peers [][]byte
	out          *engine.Later[[][]byte]
	errs         *engine.Errors
	// refused counts the elements the host gave the kernel and the kernel
	// did not answer (a point off the curve; a fault): the CPU computed
	// them
	refused atomic.Int64
}

// reference is crypto/ecdh's answer for element i, or its error. The
// peer's key is parsed first, so that a bad one (a point off the curve
// the kernel refused, say) costs no public key: crypto/ecdh's
// NewPrivateKey computes one. So where both keys are bad, the element's
// error is the peer key's (crypto/ecdh's error for it, as for any bad
// peer key).
func (j *ecdhJob) reference(i int) ([]byte, error) {
	var peer *stdecdh.PublicKey
	if j.peers != nil {
		var err error
		if peer, err = stdecdh.P256().NewPublicKey(j.peers[i]); err != nil {
			return nil, err
		}
		if d := j.privs[i]; len(d) == 32 && validScalar((*[32]byte)(d)) {
			return sharedX(d, j.peers[i])
		}
	}
	priv, err := stdecdh.P256().NewPrivateKey(j.privs[i])
	if err != nil {
		return nil, err
	}
	if peer == nil {
		return priv.PublicKey().Bytes(), nil
	}
	return priv.ECDH(peer)
}

// sharedX is crypto/ecdh's P-256 shared secret of the scalar d (32 bytes,
// in [1, n)) and the peer's public key (crypto/ecdh's encoding, which
// crypto/ecdh accepted): the x-coordinate of d·peer, by filippo.io/nistec's
// constant-time scalar multiplication. crypto/ecdh's own PrivateKey would
// first compute d's public key (a fixed-base multiplication and an
// inversion), which a shared secret of raw bytes does not need: a third of
// the time of the CPU path's request.
func sharedX(d, peer []byte) ([]byte, error) {
	p, err := nistec.NewP256Point().SetBytes(peer)
	if err != nil {
		return nil, err
	}
	q, err := nistec.NewP256Point().ScalarMult(p, d)
	if err != nil {
		return nil, err
	}
	return q.BytesX() // an error for the point at infinity, which a scalar in [1, n) and a peer off infinity never give
}

// compute is element i by crypto/ecdh.
func (j *ecdhJob) compute(i int) {
	out, err := j.reference(i)
	j.out.Get()[i] = out
	j.errs.Set(i, err)
}

// CPU implements engine.Job: crypto/ecdh on all cores.
func (j *ecdhJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 16, func(a, b int) {
		for i := lo + a; i < lo+b; i++ {
			j.compute(i)
		}
	})
}

// check is the result check of element i: crypto/ecdh's answer.
func (j *ecdhJob) check(i int) bool {
	want, err := j.reference(i)
	defer clear(want)
	return bytes.Equal(j.out.Get()[i], want) && (err == nil) == (j.errs.Get(i) == nil)
}

// inputs are element i's inputs for the kernel, in the rows' limbs, or
// ok false (and zeros) where crypto/ecdh refuses them on their bytes
// alone: a scalar not of 32 bytes or not in [1, n); a peer's key not of
// 65 bytes, not uncompressed (a compressed point, the point at infinity),
// or with a coordinate not below p. (Whether the point is on the curve,
// the kernel checks.)
func (j *ecdhJob) inputs(i int) (d, x, y limbs, ok bool) {
	priv := j.privs[i]
	if len(priv) != 32 || !validScalar((*[32]byte)(priv)) {
		return
	}
	if j.peers == nil {
		return limbsOf((*[32]byte)(priv)), x, y, true
	}
	peer := j.peers[i]
	if len(peer) != 65 || peer[0] != 4 ||
		bytes.Compare(peer[1:33], fieldPrime) >= 0 || bytes.Compare(peer[33:], fieldPrime) >= 0 {
		return
	}
	return limbsOf((*[32]byte)(priv)), limbsOf((*[32]byte)(peer[1:33])), limbsOf((*[32]byte)(peer[33:])), true
}

// validScalar reports whether d (big-endian) is in [1, n), as crypto/ecdh
// checks a private key: in constant time, so that the answer is all it
// tells of d. The test of zero ORs the words it subtracts n from,
// instead of a second pass over d's bytes (key generation checks every
// element's scalar).
func validScalar(d *[32]byte) bool {
	var borrow, nonzero uint64
	for w := 3; w >= 0; w-- { // the least significant word first
		word := binary.BigEndian.Uint64(d[8*w:])
		_, borrow = bits.Sub64(word, orderWords[w], borrow)
		nonzero |= word
	}
	return borrow == 1 && nonzero != 0
}

// orderWords are n's 64-bit words, big-endian (the most significant
// first), as validScalar reads d's.
var orderWords = [4]uint64{
	binary.BigEndian.Uint64(groupOrder[0:]), binary.BigEndian.Uint64(groupOrder[8:]),
	binary.BigEndian.Uint64(groupOrder[16:]), binary.BigEndian.Uint64(groupOrder[24:]),
}

// Device implements engine.Job: the scalars (zeroed behind their upload)
// and the peers' points up, two kernels, the secrets or public points back
// (the staging memory that held secrets is zeroed with the batch; that of
// the peers' points, public, is not, nor that of the public keys once a
// batch has completed). Elements the kernel does not compute (see inputs,
// and a point off the curve, for which it answers a status 0) are computed
// on the CPU, for crypto/ecdh's error.
//
// Every device buffer but the peers' points is secret, zeroed on every
// way out of the batch: the scalars, the Jacobian points d·Q or d·G, and
// the results, also for public keys: ecdh_p256_finish keeps the running
// products of the points' Z there until it writes each result over its
// product, so a batch that fails between the two leaves products of
// secret-derived values in it.
func (j *ecdhJob) Device(ch *engine.Chunk) error {
	n := ch.Hi - ch.Lo
	shared := j.peers != nil
	peerWords, resultWords := 0, 16*n
	if shared {
		peerWords, resultWords = 16*n, 9*n
	}
	words, err := ch.Words(8*n + peerWords + resultWords)
	if err != nil {
		return err
	}
	secrets, peers, results := words[:8*n], words[8*n:8*n+peerWords], words[8*n+peerWords:]
	onDevice := make([]bool, n)
	end := ch.Step("pack")
	batch.Parallel(n, hostChunk, func(a, b int) { j.pack(ch, secrets, peers, onDevice, a, b) })
	end()
	name, public := "ecdh_p256_public_point", uint32(1) // the finishing kernel's argument public_keys
	if shared {
		name, public = "ecdh_p256_shared_point", 0
	}
	pointKernel, err := j.e.ecdh.Kernel(name)
	if err != nil {
		return err
	}
	finishKernel, err := j.e.ecdh.Kernel("ecdh_p256_finish")
	if err != nil {
		return err
	}
	groups := inversionGroups(n)
	ch.ZeroAfterUpload(device.Uint32Bytes(secrets))
	ch.Public(device.Uint32Bytes(peers))
	err = ch.Run(func(cmds *device.Commands) error {
		dsecrets, err := cmds.Upload(secrets, true)
		if err != nil {
			return err
		}
		dpoints, err := cmds.Buffer(4*24*n, true) // Jacobian coordinates of d·Q or d·G: secret
		if err != nil {
			return err
		}
		dresults, err := cmds.Buffer(4*len(results), true) // the Z's products, then the results
		if err != nil {
			return err
		}
		if shared {
			dpeers, err := cmds.Upload(peers, false)
			if err != nil {
				return err
			}
			err = cmds.Launch(pointKernel, n, WorkGroup, dpoints, dpeers, dsecrets, uint32(n))
		} else {
			err = cmds.Launch(pointKernel, n, WorkGroup, dpoints, dsecrets, j.e.comb, uint32(n))
		}
		if err != nil {
			return err
		}
		if err := cmds.Launch(finishKernel, groups, WorkGroup, dresults, dpoints, uint32(n), uint32(groups), public); err != nil {
			return err
		}
		return cmds.Read(dresults, device.Uint32Bytes(results))
	})
	if err != nil {
		return err // the results' staging memory is zeroed with the batch
	}
	if !shared {
		ch.Public(device.Uint32Bytes(results)) // public keys, the batch complete
	}
	end = ch.Step("unpack")
	batch.Parallel(n, hostChunk, func(a, b int) { j.unpack(ch, results, onDevice, a, b) })
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}

// pack writes the kernel's inputs of elements [a, b) of the batch ch, the
// scalars into the rows secrets and the peers' points (for shared
// secrets) into the rows peers, tile elements at a time (as signing's
// pack); onDevice[k] says whether element k is the kernel's, the others
// get zeros. The tile that held scalars is zeroed.
func (j *ecdhJob) pack(ch *engine.Chunk, secrets, peers []uint32, onDevice []bool, a, b int) {
	n := ch.Hi - ch.Lo
	var d, x, y [tile]limbs
	defer clear(d[:])
	for t := a; t < b; t += tile {
		m := min(tile, b-t)
		for e := range m {
			d[e], x[e], y[e], onDevice[t+e] = j.inputs(ch.Lo + t + e)
		}
		putTile(secrets, n, t, d[:m])
		if j.peers != nil {
			putTile(peers, n, t, x[:m])
			putTile(peers[8*n:], n, t, y[:m])
		}
	}
}

// unpack turns the kernel's answers for elements [a, b) of the batch ch
// into results, a tile at a time: public keys in one allocation (65
// bytes each, one after the other) instead of three per key; shared
// secrets in one each, as crypto/ecdh returns them, so that a secret the
// caller keeps keeps no other caller's secret in memory. Elements the
// kernel did not compute (onDevice false, or not answered: a point off
// the curve, counted in refused) are computed by crypto/ecdh, for its own
// answer and error. The tile that held shared secrets is zeroed.
func (j *ecdhJob) unpack(ch *engine.Chunk, results []uint32, onDevice []bool, a, b int) {
	n := ch.Hi - ch.Lo
	shared := j.peers != nil
	out := j.out.Get()
	var slab []byte // the public keys, 04 ‖ X ‖ Y each
	if !shared {
		slab = make([]byte, 0, (b-a)*(1+64))
	}
	var x, y [tile][32]byte
	defer clear(x[:])
	refused := int64(0)
	for t := a; t < b; t += tile {
		m := min(tile, b-t)
		getTile(x[:m], results, n, t)
		if !shared {
			getTile(y[:m], results[8*n:], n, t)
		}
		for e := range m {
			k, i := t+e, ch.Lo+t+e
			var answered bool
			if shared {
				answered = results[8*n+k] == 1 // the kernel's status word
			} else {
				answered = x[e] != [32]byte{} || y[e] != [32]byte{}
			}
			switch {
			case !onDevice[k]:
				j.compute(i) // crypto/ecdh's own error
				continue
			case !answered:
				refused++
				j.compute(i)
				continue
			}
			if shared {
				out[i] = bytes.Clone(x[e][:])
				continue
			}
			start := len(slab)
			slab = append(append(append(slab, 4), x[e][:]...), y[e][:]...)
			out[i] = slab[start:len(slab):len(slab)]
		}
	}
	j.refused.Add(refused)
}
