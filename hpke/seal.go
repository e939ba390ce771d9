package hpke

import (
	"crypto/rand"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// SealInput is one message of SealMessages.
type SealInput struct {
	Key  *PublicKey
	Info []byte
	// AAD is the additional data of RFC 9180's single-shot Seal; empty in
	// crypto/hpke's Seal, which has none.
	AAD       []byte
	Plaintext []byte
}

// Seal seals each of plaintexts to the public key pub, under suite s (its
// KEM pub's) and the same info, with a new encapsulation of fresh
// randomness (crypto/rand) each: the ciphertext of element i is enc ‖
// sealed message ‖ tag, as crypto/hpke's Seal(pub, kdf, aead, info,
// plaintext) returns it, which crypto/hpke's Open opens. A recipient
// X25519 public key of low order, which crypto/hpke's Seal refuses, fails
// every element (ErrKey, in the returned *batch.Error).
//
// The call's error is ErrSuite for a suite it does not compute, ErrKey
// for a nil key or one of another KEM, and an error wrapping
// batch.ErrClosed after the Engine's Close.
func (e *Engine) Seal(s Suite, pub *PublicKey, info []byte, plaintexts [][]byte) ([][]byte, error) {
	p, err := s.check()
	if err != nil {
		return nil, err
	}
	if err := publicKeyError(pub, p); err != nil {
		return nil, err
	}
	j := e.newSealJob(s, p, len(plaintexts))
	j.keys.one, j.infos.one, j.pts = pub, info, plaintexts
	return j.run()
}

// SealMessages is Seal for messages each with its own public key, info
// and additional data. An element whose key is nil or of another KEM than
// s's fails alone (ErrKey).
func (e *Engine) SealMessages(s Suite, msgs []SealInput) ([][]byte, error) {
	return e.sealMessages(s, msgs, nil)
}

// SealDerandomized is SealMessages with the randomness of each message's
// encapsulation given: randomness[i] of s.KEM.RandomnessSize() bytes (for
// MLKEM768X25519 ML-KEM's m then the ephemeral X25519 private key, for
// MLKEM768 m, for DHKEMX25519 the ephemeral private key), the values
// crypto/hpke's known-answer tests fix (its testingOnly hooks; ML-KEM's
// by crypto/mlkem/mlkemtest): for known-answer tests only, as the same
// randomness twice gives away the messages. Randomness of the wrong length
// fails its element (ErrRandomness). On the CPU, ML-KEM's derandomized
// encapsulation needs Go 1.26 (crypto/mlkem/mlkemtest).
func (e *Engine) SealDerandomized(s Suite, msgs []SealInput, randomness [][]byte) ([][]byte, error) {
	if len(randomness) != len(msgs) {
		return nil, fmt.Errorf("hpke: %d messages but %d randomness inputs", len(msgs), len(randomness))
	}
	return e.sealMessages(s, msgs, randomness)
}

func (e *Engine) sealMessages(s Suite, msgs []SealInput, randomness [][]byte) ([][]byte, error) {
	p, err := s.check()
	if err != nil {
		return nil, err
	}
	j := e.newSealJob(s, p, len(msgs))
	j.random = randomness
	j.keys.each, j.infos.each, j.aads.each, j.pts = make([]*PublicKey, len(msgs)), make([][]byte, len(msgs)),
		make([][]byte, len(msgs)), make([][]byte, len(msgs))
	for i, m := range msgs {
		j.keys.each[i], j.infos.each[i], j.aads.each[i], j.pts[i] = m.Key, m.Info, m.AAD, m.Plaintext
		err := publicKeyError(m.Key, p)
		if err == nil && randomness != nil && len(randomness[i]) != p.randomness {
			err = fmt.Errorf("%w: %d bytes, want %d for %v", ErrRandomness, len(randomness[i]), p.randomness, p.id)
		}
		j.errs.Set(i, err)
	}
	return j.run()
}

// sealJob is one call of Seal, SealMessages or SealDerandomized.
type sealJob struct {
	e           *Engine
	s           Suite
	p           *kemParams
	keys        perElement[*PublicKey]
	infos, aads perElement[[]byte]
	pts         [][]byte
	random      [][]byte // nil: fresh randomness
	out         [][]byte
	errs        *engine.Errors
}

func (e *Engine) newSealJob(s Suite, p *kemParams, n int) *sealJob {
	return &sealJob{e: e, s: s, p: p, out: make([][]byte, n), errs: engine.NewErrors(n)}
}

func (j *sealJob) run() ([][]byte, error) {
	if err := j.e.run(len(j.pts), j.batch); err != nil {
		return nil, err
	}
	return j.out, j.errs.Err()
}

// batch seals the elements [lo, hi): the KEM's encapsulations (ML-KEM-768
// on the mlkem engine; the ephemeral X25519 public keys and shared
// secrets on the ecdh engine; all at once), then on all cores the
// combiner and the key schedule, and AES-GCM there or on the aes engine.
func (j *sealJob) batch(lo, hi int) error {
	p := j.p
	idx := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		if j.errs.Get(i) == nil {
			idx = append(idx, i)
		}
	}
	m := len(idx)
	if m == 0 {
		return nil
	}
	var (
		wg                         sync.WaitGroup
		ssPQ, ctPQ, ssT, ctT       [][]byte
		callErrPQ, callErrT, errCT error
	)
	if p.pq {
		eks := make([][]byte, m)
		var ms [][]byte
		if j.random != nil {
			ms = make([][]byte, m)
		}
		for k, i := range idx {
			eks[k] = j.keys.at(i).ek
			if ms != nil {
				ms[k] = j.random[i][:mlkemRandomSize]
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ms != nil {
				ssPQ, ctPQ, callErrPQ = j.e.kem.EncapsulateDerandomized768(eks, ms)
			} else {
				ssPQ, ctPQ, callErrPQ = j.e.kem.Encapsulate768(eks)
			}
		}()
	}
	if p.curve {
		ephemeral := make([][]byte, m)
		var fresh []byte
		if j.random == nil {
			fresh = make([]byte, x25519Size*m)
			rand.Read(fresh)
			defer clear(fresh)
		}
		peers := make([][]byte, m)
		for k, i := range idx {
			if fresh != nil {
				ephemeral[k] = fresh[x25519Size*k : x25519Size*(k+1)]
			} else {
				ephemeral[k] = j.random[i][p.randomness-x25519Size:]
			}
			peers[k] = j.keys.at(i).point
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			ctT, errCT = j.e.x25519.PublicKeys(ecdh.X25519(), ephemeral)
		}()
		go func() {
			defer wg.Done()
			ssT, callErrT = j.e.x25519.SharedSecrets(ecdh.X25519(), ephemeral, peers)
		}()
	}
	wg.Wait()
	defer clearAll(ssPQ)
	defer clearAll(ssT)
	errsPQ, err := elementErrors(callErrPQ, m)
	if err != nil {
		return err
	}
	errsT, err := elementErrors(callErrT, m)
	if err != nil {
		return err
	}
	errsCT, err := elementErrors(errCT, m)
	if err != nil {
		return err
	}
	for k, i := range idx {
		if err := at(errsPQ, k); err != nil {
			j.errs.Set(i, fmt.Errorf("%w: %w", ErrKey, err))
		} else if err := at(errsT, k); err != nil {
			j.errs.Set(i, fmt.Errorf("%w: the recipient's X25519 public key: %w", ErrKey, err))
		} else if err := at(errsCT, k); err != nil {
			j.errs.Set(i, err)
		}
	}
	bytes := 0
	for _, i := range idx {
		bytes += len(j.pts[i])
	}
	shape := shapeOf(false, j.s.AEAD, m, bytes)
	onEngine := j.e.useEngine(shape)
	start := time.Now()
	err = j.seal(idx, ssPQ, ctPQ, ssT, ctT, onEngine)
	j.e.observe(shape, onEngine, m, time.Since(start))
	return err
}

// seal writes the ciphertext of each element of idx: enc, then the key
// schedule and AES-GCM on all cores (crypto/cipher), or with onEngine an
// aes.Key of each message made there and AES-GCM in one call of the aes
// engine, which writes into the ciphertexts (the keys closed after it).
func (j *sealJob) seal(idx []int, ssPQ, ctPQ, ssT, ctT [][]byte, onEngine bool) error {
	p, nk := j.p, j.s.AEAD.keySize()
	var msgs []aes.Message
	var nonces []byte
	if onEngine {
		msgs, nonces = make([]aes.Message, len(idx)), make([]byte, nonceSize*len(idx))
	}
	batch.Parallel(len(idx), hostChunk, func(a, b int) {
		sc := newScheduler(j.s)
		var ss, key [32]byte
		var nonce [nonceSize]byte
		defer clear(ss[:])
		defer clear(key[:])
		total := 0
		for _, i := range idx[a:b] {
			total += p.encSize + len(j.pts[i]) + TagSize
		}
		slab := make([]byte, total)
		for k := a; k < b; k++ {
			i := idx[k]
			size := p.encSize + len(j.pts[i]) + TagSize
			out := slab[:p.encSize:size]
			slab = slab[size:]
			if j.errs.Get(i) != nil {
				continue
			}
			if p.pq {
				copy(out, ctPQ[k])
			}
			if p.curve {
				copy(out[p.encSize-x25519Size:], ctT[k])
			}
			pub := j.keys.at(i)
			switch p.id {
			case MLKEM768X25519:
				sc.xwingShared(&ss, ssPQ[k], ssT[k], ctT[k], pub.point)
			case MLKEM768:
				copy(ss[:], ssPQ[k])
			case DHKEMX25519:
				sc.dhkemShared(&ss, ssT[k], out, pub.point)
			}
			if onEngine {
				n := (*[nonceSize]byte)(nonces[nonceSize*k:])
				sc.keyAndNonce(key[:nk], n, ss[:], j.infos.at(i))
				msgs[k] = aes.Message{Key: newAESKey(key[:nk]), Nonce: n[:], AAD: j.aads.at(i), Data: j.pts[i], Out: out[p.encSize:p.encSize]}
				j.out[i] = out[:size]
				continue
			}
			sc.keyAndNonce(key[:nk], &nonce, ss[:], j.infos.at(i))
			j.out[i] = newGCM(key[:nk]).Seal(out, nonce[:], j.pts[i], j.aads.at(i))
		}
	})
	if !onEngine {
		return nil
	}
	defer closeKeys(msgs)
	res, err := j.e.aead.Seal(msgs)
	errs, err := elementErrors(err, len(msgs))
	if err != nil {
		return err
	}
	for k, i := range idx {
		if msgs[k].Key == nil {
			continue
		}
		if err := at(errs, k); err != nil {
			j.out[i] = nil
			j.errs.Set(i, fmt.Errorf("hpke: sealing: %w", err))
			continue
		}
		// the aes engine wrote into Out, which holds the result
		if len(res[k]) != len(j.out[i])-p.encSize ||
			(len(res[k]) > 0 && unsafe.SliceData(res[k]) != unsafe.SliceData(j.out[i][p.encSize:])) {
			copy(j.out[i][p.encSize:], res[k])
		}
	}
	return nil
}
