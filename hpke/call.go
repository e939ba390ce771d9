package hpke

import (
	stdaes "crypto/aes"
	"crypto/cipher"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
)

// A call of more than callChunk messages runs as batches of about equal
// size, callDepth of them at once: while one batch's KEM step runs on the
// device, another's key schedule and AES-GCM run on the host.
var callChunk = 1 << 16 // a variable for the tests

const callDepth = 3

// hostChunk is the smallest range of messages a core takes in the host's
// passes.
const hostChunk = 64

// perElement is a value of a call's elements: one for all (each nil), or
// one each.
type perElement[T any] struct {
	one  T
	each []T
}

func (p perElement[T]) at(i int) T {
	if p.each != nil {
		return p.each[i]
	}
	return p.one
}

// run runs a call of n elements through the Engine's lifetime (Close
// waits for it), in batches of callChunk at most, callDepth at once.
func (e *Engine) run(n int, batchOf func(lo, hi int) error) error {
	e.calls.Add(1)
	return e.life.Use(func() error {
		return batch.Chunks(n, batch.EvenChunk(n, callChunk), callDepth, batchOf)
	})
}

// elementErrors are the per-element errors of an engine's call of n
// elements (nil: none), or the call's error when it failed as a whole.
func elementErrors(err error, n int) ([]error, error) {
	if err == nil {
		return nil, nil
	}
	if per, ok := err.(*batch.Error); ok && len(per.Errs) == n {
		return per.Errs, nil
	}
	return nil, err
}

// at is errs[k], nil where errs is.
func at(errs []error, k int) error {
	if errs == nil {
		return nil
	}
	return errs[k]
}

// newGCM is crypto/cipher's AES-GCM of key.
func newGCM(key []byte) cipher.AEAD {
	block, err := stdaes.NewCipher(key)
	if err != nil {
		panic("hpke: crypto/aes refused a key of 16 or 32 bytes: " + err.Error())
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		panic("hpke: crypto/cipher refused AES: " + err.Error())
	}
	return gcm
}

// heldKeys holds the distinct private keys of a call, each once (Close
// waits for the call), and says which fail.
type heldKeys struct {
	held map[*PrivateKey]error
	last *PrivateKey
	err  error
}

// hold returns the error of element key k under the suite's KEM p (nil:
// held until release).
func (h *heldKeys) hold(k *PrivateKey, p *kemParams) error {
	if k == h.last && h.held != nil {
		return h.err
	}
	if h.held == nil {
		h.held = map[*PrivateKey]error{}
	}
	err, ok := h.held[k]
	if !ok {
		switch {
		case k == nil:
			err = fmt.Errorf("%w: no private key", ErrKey)
		case k.kem != p:
			err = fmt.Errorf("%w: a %v private key for a suite of %v", ErrKey, k.kem.id, p.id)
		default:
			err = k.hold()
		}
		h.held[k] = err
	}
	h.last, h.err = k, err
	return err
}

// release releases the keys held.
func (h *heldKeys) release() {
	for k, err := range h.held {
		if err == nil {
			k.release()
		}
	}
}

// publicKeyError is the error of element key pub under the suite's KEM p.
func publicKeyError(pub *PublicKey, p *kemParams) error {
	switch {
	case pub == nil:
		return fmt.Errorf("%w: no public key", ErrKey)
	case pub.kem != p:
		return fmt.Errorf("%w: a %v public key for a suite of %v", ErrKey, pub.kem.id, p.id)
	}
	return nil
}
