package hpke

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// OpenInput is one message of OpenMessages.
type OpenInput struct {
	Key  *PrivateKey
	Info []byte
	// AAD is the additional data of RFC 9180's single-shot Open; empty in
	// crypto/hpke's Open, which has none.
	AAD []byte
	// Ciphertext is enc followed by the sealed message and its tag, as
	// crypto/hpke's Seal returns it.
	Ciphertext []byte
}

// Open opens each of ciphertexts (enc ‖ sealed message, as crypto/hpke's
// Seal returns them) with the private key k, under suite s (its KEM k's)
// and the same info: byte for byte crypto/hpke's Open(k, kdf, aead, info,
// ciphertext), for the many messages to one key a gateway holds. The
// result of element i is its plaintext (not nil, even when empty), or
// nil with its error in the returned *batch.Error where crypto/hpke's
// Open fails: ErrCiphertextShort, ErrEncapsulation, ErrOpen.
//
// The call's error is ErrSuite for a suite it does not compute, ErrKey
// for a nil key or one of another KEM, ErrKeyClosed after k.Close, and
// an error wrapping batch.ErrClosed after the Engine's Close.
func (e *Engine) Open(s Suite, k *PrivateKey, info []byte, ciphertexts [][]byte) ([][]byte, error) {
	p, err := s.check()
	if err != nil {
		return nil, err
	}
	var keys heldKeys
	if err := keys.hold(k, p); err != nil {
		return nil, err
	}
	defer keys.release()
	j := e.newOpenJob(s, p, len(ciphertexts))
	j.keys.one, j.infos.one, j.cts = k, info, ciphertexts
	return j.run()
}

// OpenMessages is Open for messages each with its own key, info and
// additional data. An element whose key is nil, of another KEM than s's
// or closed fails alone (ErrKey, ErrKeyClosed).
func (e *Engine) OpenMessages(s Suite, msgs []OpenInput) ([][]byte, error) {
	p, err := s.check()
	if err != nil {
		return nil, err
	}
	j := e.newOpenJob(s, p, len(msgs))
	j.keys.each, j.infos.each, j.aads.each, j.cts = make([]*PrivateKey, len(msgs)), make([][]byte, len(msgs)),
		make([][]byte, len(msgs)), make([][]byte, len(msgs))
	var keys heldKeys
	defer keys.release()
	for i, m := range msgs {
		j.keys.each[i], j.infos.each[i], j.aads.each[i], j.cts[i] = m.Key, m.Info, m.AAD, m.Ciphertext
		if err := keys.hold(m.Key, p); err != nil {
			j.errs.Set(i, err)
		}
	}
	return j.run()
}

// openJob is one call of Open or OpenMessages.
type openJob struct {
	e           *Engine
	s           Suite
	p           *kemParams
	keys        perElement[*PrivateKey]
	infos, aads perElement[[]byte]
	cts         [][]byte
	out         [][]byte
	errs        *engine.Errors // set before run for the keys that failed
}

func (e *Engine) newOpenJob(s Suite, p *kemParams, n int) *openJob {
	return &openJob{e: e, s: s, p: p, out: make([][]byte, n), errs: engine.NewErrors(n)}
}

func (j *openJob) run() ([][]byte, error) {
	if err := j.e.run(len(j.cts), j.batch); err != nil {
		return nil, err
	}
	return j.out, j.errs.Err()
}

// lengthError is the error of element i's ciphertext length: shorter than
// enc, or than enc and the tag (which crypto/hpke's AEAD refuses).
func (j *openJob) lengthError(i int) error {
	switch n := len(j.cts[i]); {
	case n < j.p.encSize:
		return fmt.Errorf("%w: %d bytes, shorter than %v's encapsulated key of %d", ErrCiphertextShort, n, j.p.id, j.p.encSize)
	case n < j.p.encSize+TagSize:
		return fmt.Errorf("%w: %d bytes after the encapsulated key, shorter than the tag", ErrOpen, n-j.p.encSize)
	}
	return nil
}

// batch opens the elements [lo, hi): the KEM's decapsulations (ML-KEM-768
// on the mlkem engine and X25519 on the ecdh engine, at once), then on
// all cores the combiner and the key schedule, and AES-GCM there or on
// the aes engine.
func (j *openJob) batch(lo, hi int) error {
	p := j.p
	idx := make([]int, 0, hi-lo) // the elements that reach the KEM
	for i := lo; i < hi; i++ {
		if j.errs.Get(i) != nil {
			continue // its key
		}
		if err := j.lengthError(i); err != nil {
			j.errs.Set(i, err)
			continue
		}
		idx = append(idx, i)
	}
	m := len(idx)
	if m == 0 {
		return nil
	}
	ssPQ, ssT, err := j.decapsulate(idx)
	defer clearAll(ssPQ)
	defer clearAll(ssT)
	if err != nil {
		return err
	}
	bytes := 0
	for _, i := range idx {
		bytes += len(j.cts[i]) - p.encSize
	}
	shape := shapeOf(true, j.s.AEAD, m, bytes)
	onEngine := j.e.useEngine(shape)
	start := time.Now()
	if onEngine {
		err = j.openOnEngine(idx, ssPQ, ssT)
	} else {
		j.openOnHost(idx, ssPQ, ssT)
	}
	j.e.observe(shape, onEngine, m, time.Since(start))
	return err
}

// decapsulate runs the KEM's decapsulations of the elements idx: the
// ML-KEM-768 shared keys on the mlkem engine and the X25519 shared
// secrets on the ecdh engine, at once; an element that fails has its
// error set. The error is a whole engine call's.
func (j *openJob) decapsulate(idx []int) (ssPQ, ssT [][]byte, err error) {
	p, m := j.p, len(idx)
	var (
		wg                  sync.WaitGroup
		callErrPQ, callErrT error
	)
	if p.pq {
		seeds, cts := make([][]byte, m), make([][]byte, m)
		for k, i := range idx {
			seeds[k], cts[k] = j.keys.at(i).pqSeed, j.cts[i][:mlkemCTSize]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ssPQ, callErrPQ = j.e.kem.Decapsulate768(seeds, cts)
		}()
	}
	if p.curve {
		privs, peers := make([][]byte, m), make([][]byte, m)
		for k, i := range idx {
			privs[k], peers[k] = j.keys.at(i).scalar, j.cts[i][p.encSize-x25519Size:p.encSize]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ssT, callErrT = j.e.x25519.SharedSecrets(ecdh.X25519(), privs, peers)
		}()
	}
	wg.Wait()
	errsPQ, err := elementErrors(callErrPQ, m)
	if err != nil {
		return ssPQ, ssT, err
	}
	errsT, err := elementErrors(callErrT, m)
	if err != nil {
		return ssPQ, ssT, err
	}
	for k, i := range idx {
		if err := at(errsPQ, k); err != nil {
			j.errs.Set(i, fmt.Errorf("%w: %w", ErrEncapsulation, err))
		} else if err := at(errsT, k); err != nil {
			j.errs.Set(i, fmt.Errorf("%w: the X25519 part: %w", ErrEncapsulation, err))
		}
	}
	return ssPQ, ssT, nil
}

// sharedSecret sets ss to the KEM's shared secret of element i (element
// k of the KEM's batches).
func (j *openJob) sharedSecret(sc *scheduler, ss *[32]byte, i, k int, ssPQ, ssT [][]byte) {
	key := j.keys.at(i)
	enc := j.cts[i][:j.p.encSize]
	switch j.p.id {
	case MLKEM768X25519:
		sc.xwingShared(ss, ssPQ[k], ssT[k], enc[mlkemCTSize:], key.pub.point)
	case MLKEM768:
		copy(ss[:], ssPQ[k])
	case DHKEMX25519:
		sc.dhkemShared(ss, ssT[k], enc, key.pub.point)
	}
}

// openOnHost computes the key schedule and AES-GCM of the elements idx
// on all cores (crypto/cipher), the plaintexts of each core's range in
// one allocation.
func (j *openJob) openOnHost(idx []int, ssPQ, ssT [][]byte) {
	nk := j.s.AEAD.keySize()
	batch.Parallel(len(idx), hostChunk, func(a, b int) {
		sc := newScheduler(j.s)
		var ss, key [32]byte
		var nonce [nonceSize]byte
		defer clear(ss[:])
		defer clear(key[:])
		total := 0
		for _, i := range idx[a:b] {
			total += len(j.cts[i]) - j.p.encSize - TagSize
		}
		slab := make([]byte, total)
		for k := a; k < b; k++ {
			i := idx[k]
			n := len(j.cts[i]) - j.p.encSize - TagSize
			dst := slab[:0:n]
			slab = slab[n:]
			if j.errs.Get(i) != nil {
				continue
			}
			j.sharedSecret(sc, &ss, i, k, ssPQ, ssT)
			sc.keyAndNonce(key[:nk], &nonce, ss[:], j.infos.at(i))
			pt, err := newGCM(key[:nk]).Open(dst, nonce[:], j.cts[i][j.p.encSize:], j.aads.at(i))
			if err != nil {
				clear(dst[:n])
				j.errs.Set(i, ErrOpen)
				continue
			}
			j.out[i] = pt
		}
	})
}

// openOnEngine computes the key schedule of the elements idx on all
// cores, each message's aes.Key with it, and their AES-GCM in one call of
// the aes engine; the keys are closed (zeroed) after it.
func (j *openJob) openOnEngine(idx []int, ssPQ, ssT [][]byte) error {
	nk := j.s.AEAD.keySize()
	msgs := make([]aes.Message, len(idx))
	nonces := make([]byte, nonceSize*len(idx))
	batch.Parallel(len(idx), hostChunk, func(a, b int) {
		sc := newScheduler(j.s)
		var ss, key [32]byte
		defer clear(ss[:])
		defer clear(key[:])
		for k := a; k < b; k++ {
			i := idx[k]
			if j.errs.Get(i) != nil {
				continue
			}
			nonce := (*[nonceSize]byte)(nonces[nonceSize*k:])
			j.sharedSecret(sc, &ss, i, k, ssPQ, ssT)
			sc.keyAndNonce(key[:nk], nonce, ss[:], j.infos.at(i))
			msgs[k] = aes.Message{Key: newAESKey(key[:nk]), Nonce: nonce[:], AAD: j.aads.at(i), Data: j.cts[i][j.p.encSize:]}
		}
	})
	defer closeKeys(msgs)
	res, err := j.e.aead.Open(msgs)
	errs, err := elementErrors(err, len(msgs))
	if err != nil {
		return err
	}
	for k, i := range idx {
		if msgs[k].Key == nil {
			continue // failed before
		}
		switch err := at(errs, k); {
		case errors.Is(err, aes.ErrOpen):
			j.errs.Set(i, ErrOpen)
		case err != nil:
			j.errs.Set(i, fmt.Errorf("%w: %w", ErrOpen, err))
		default:
			if res[k] == nil {
				res[k] = []byte{}
			}
			j.out[i] = res[k]
		}
	}
	return nil
}

// newAESKey is the aes.Key of key (16 or 32 bytes).
func newAESKey(key []byte) *aes.Key {
	k, err := aes.NewKey(key)
	if err != nil {
		panic("hpke: aes refused a key of 16 or 32 bytes: " + err.Error())
	}
	return k
}

// closeKeys closes the keys of msgs, on all cores.
func closeKeys(msgs []aes.Message) {
	batch.Parallel(len(msgs), 1024, func(a, b int) {
		for k := a; k < b; k++ {
			if msgs[k].Key != nil {
				msgs[k].Key.Close()
			}
		}
	})
}

// clearAll zeroes each of bufs.
func clearAll(bufs [][]byte) {
	for _, b := range bufs {
		clear(b)
	}
}
