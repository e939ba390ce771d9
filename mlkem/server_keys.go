//go:build go1.26

package mlkem

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// DecapsulationKey is an ML-KEM decapsulation key held by a Server: a
// crypto.Decapsulator whose decapsulations run on the Server, batched
// with other callers' requests (crypto/hpke's NewMLKEMPrivateKey and
// NewHybridPrivateKey take it). It holds its own copy of the seed, zeroed
// by Close. (Go 1.26 and later: crypto.Decapsulator's.)
type DecapsulationKey struct {
	s    *Server
	p    Parameters
	seed *engine.HeldKey
	ek   crypto.Encapsulator // crypto/mlkem's encapsulation key
	// key is crypto/mlkem's decapsulation key of seed, for the Server's
	// CPU path (expanding the seed costs about a decapsulation); Close
	// drops it, and the garbage collector reclaims it (crypto/mlkem's
	// keys cannot be zeroed)
	key atomic.Pointer[decapsulator]
}

// DecapsulationKey returns the decapsulation key of seed (d ‖ z, as
// crypto/mlkem's NewDecapsulationKey768 and NewDecapsulationKey1024 take
// it), held by s. It fails for a seed of the wrong length, a parameter set
// that is not one, and on a closed server.
func (s *Server) DecapsulationKey(p Parameters, seed []byte) (*DecapsulationKey, error) {
	if _, err := s.opsOf(p); err != nil {
		return nil, err
	}
	if err := s.shell.Err(); err != nil {
		return nil, err
	}
	key, err := p.params().newDecapsulationKey(seed)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSeedLength, err)
	}
	k := &DecapsulationKey{s: s, p: p, seed: engine.NewHeldKey("mlkem", seed), ek: encapsulatorOf(key)}
	k.key.Store(&key)
	return k, nil
}

// encapsulatorOf is crypto/mlkem's encapsulation key of key.
func encapsulatorOf(key decapsulator) crypto.Encapsulator {
	switch k := key.(type) {
	case decapsulator768:
		return k.EncapsulationKey()
	case decapsulator1024:
		return k.EncapsulationKey()
	}
	panic("mlkem: a decapsulation key of neither parameter set")
}

// Encapsulator returns the key's encapsulation key, crypto/mlkem's
// (*mlkem.EncapsulationKey768 or *mlkem.EncapsulationKey1024, as
// crypto/hpke requires of a Decapsulator's): encapsulation is public-key
// work for the other side.
func (k *DecapsulationKey) Encapsulator() crypto.Encapsulator { return k.ek }

// Decapsulate is DecapsulateContext with context.Background().
func (k *DecapsulationKey) Decapsulate(ciphertext []byte) ([]byte, error) {
	return k.DecapsulateContext(context.Background(), ciphertext)
}

// DecapsulateContext returns the shared key of ciphertext on the Server,
// as crypto/mlkem's key does (the implicit-rejection key for a
// ciphertext that does not decrypt consistently; an error for one of the
// wrong length); ctx bounds the wait for the batch. It fails after Close
// and after the Server's Close.
func (k *DecapsulationKey) DecapsulateContext(ctx context.Context, ciphertext []byte) ([]byte, error) {
	return k.seed.Use(ctx, func(ctx context.Context, seed []byte) ([]byte, error) {
		ops, err := k.s.opsOf(k.p)
		if err != nil {
			return nil, err
		}
		return ops.decap.Do(ctx, k.request(seed, ciphertext))
	})
}

// request is the decapsulation of ciphertext under the key, with seed (a
// copy of the key's) and its crypto/mlkem key for the CPU path while the
// key holds one.
func (k *DecapsulationKey) request(seed, ciphertext []byte) decapsulation {
	req := decapsulation{seed: seed, ciphertext: ciphertext}
	if key := k.key.Load(); key != nil {
		req.key = *key
	}
	return req
}

// Go submits the decapsulation of call.Ciphertext under the key and
// returns without waiting for it: the asynchronous form of
// DecapsulateContext, for a caller that holds many ciphertexts. Its
// outcome arrives on call.Done: SharedKey, or Err as DecapsulateContext
// would return it (the context's error if ctx ends before the request's
// batch runs). The Call's Parameters, Seed and EncapsulationKey are not
// read. Go's own error (a nil or unbuffered Done, no Ciphertext, a closed
// key or Server, a nil or ended context) means the Call was not submitted
// and will not arrive on Done. The request carries a copy of the seed,
// zeroed when the Call completes.
func (k *DecapsulationKey) Go(ctx context.Context, call *Call) error {
	if call == nil || call.Done == nil || cap(call.Done) == 0 {
		return errNoDone
	}
	if call.Ciphertext == nil {
		return errors.New("mlkem: DecapsulationKey.Go needs a Call with a Ciphertext")
	}
	ops, err := k.s.opsOf(k.p)
	if err != nil {
		return err
	}
	seed, err := k.seed.Copy()
	if err != nil {
		return err
	}
	call.SharedKey, call.Err = nil, nil
	if err := ops.decap.Go(ctx, k.request(seed, call.Ciphertext), &heldDecapsulation{call: call, seed: seed}); err != nil {
		clear(seed)
		return err
	}
	return nil
}

// heldDecapsulation is a DecapsulationKey's Call as the batcher completes
// it: the seed's copy zeroed, then the Call sent back.
type heldDecapsulation struct {
	call *Call
	seed []byte
}

func (h *heldDecapsulation) Complete(shared []byte, err error) {
	clear(h.seed)
	h.call.SharedKey, h.call.Err = shared, err
	h.call.Done <- h.call
}

// Close zeroes the key's copy of its seed and drops its crypto/mlkem key;
// later decapsulations fail with batch.ErrClosed.
func (k *DecapsulationKey) Close() error {
	k.key.Store(nil)
	return k.seed.Close()
}
