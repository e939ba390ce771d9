package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/gpucrypto/gpucrypto/batch"
)

// HeldKey is a private key that a package's Server holds for a
// crypto/ecdh.KeyExchanger (or a KEM's decapsulation key): its bytes,
// handed to each request as a copy of their own and zeroed by Close, and
// whether it is closed.
type HeldKey struct {
	pkg  string
	mu   sync.Mutex
	priv []byte // nil after Close
}

// NewHeldKey holds a copy of priv for package pkg's Server.
func NewHeldKey(pkg string, priv []byte) *HeldKey {
	return &HeldKey{pkg: pkg, priv: append([]byte(nil), priv...)}
}

// Use runs f with a copy of the key (zeroed when f returns, unless ctx
// ended first: a request abandoned then may still be read by its batch,
// and its copy is left to the garbage collector), or fails with an error
// wrapping batch.ErrClosed after Close.
func (k *HeldKey) Use(ctx context.Context, f func(ctx context.Context, priv []byte) ([]byte, error)) ([]byte, error) {
	priv, err := k.Copy()
	if err != nil {
		return nil, err
	}
	out, err := f(ctx, priv)
	if ctx != nil && ctx.Err() == nil {
		clear(priv)
	}
	return out, err
}

// Copy returns a copy of the key for a request that outlives the call
// that made it (an asynchronous one, whose completion zeroes it), or fails
// with an error wrapping batch.ErrClosed after Close.
func (k *HeldKey) Copy() ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.priv == nil {
		return nil, fmt.Errorf("%s: key closed: %w", k.pkg, batch.ErrClosed)
	}
	return append([]byte(nil), k.priv...), nil
}

// Close zeroes the key; later uses fail. Calling it again does nothing.
func (k *HeldKey) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	clear(k.priv)
	k.priv = nil
	return nil
}
