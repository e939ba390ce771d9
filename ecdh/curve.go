// Package ecdh computes X25519 and X448 (RFC 7748) in batches on a GPU (or
// any device of package device), with the same API on the CPU.
//
// An Engine is bound to one device; a CPU computes the same functions with
// crypto/ecdh (X25519) and github.com/cloudflare/circl (X448); a Server
// gathers single requests from many goroutines into device batches. Keys
// are raw little-endian byte strings as RFC 7748 defines them, and X25519
// keys of crypto/ecdh are accepted too.
//
// Every batched call returns one result per element. An element that fails
// (a key of the wrong length, a low-order peer point whose shared secret is
// all zeros) fails alone: its result is nil, and the returned *batch.Error
// says which elements failed and why.
package ecdh

import (
	"crypto/subtle"
	"errors"
	"fmt"
)

// Curve is X25519 or X448.
type Curve int

const (
	X25519 Curve = iota
	X448
)

// Curves lists both curves.
var Curves = []Curve{X25519, X448}

func (c Curve) String() string {
	switch c {
	case X25519:
		return "X25519"
	case X448:
		return "X448"
	}
	return fmt.Sprintf("Curve(%d)", int(c))
}

// Size is the length in bytes of scalars, u-coordinates and shared secrets.
func (c Curve) Size() int {
	if c == X448 {
		return 56
	}
	return 32
}

func (c Curve) limbs() int { return c.Size() / 4 }

func (c Curve) valid() error {
	if c != X25519 && c != X448 {
		return fmt.Errorf("ecdh: unknown curve %v", c)
	}
	return nil
}

// Errors of single elements.
var (
	// ErrLowOrder: the peer's point has small order, so the shared secret is
	// all zeros (RFC 7748 §6.1). crypto/ecdh rejects it the same way.
	ErrLowOrder = errors.New("ecdh: low-order peer public key: the shared secret is all zeros")
	// ErrKeyLength: a private or public key of the wrong length.
	ErrKeyLength = errors.New("ecdh: wrong key length")
)

func checkLen(c Curve, what string, b []byte) error {
	if len(b) != c.Size() {
		return fmt.Errorf("%w: %s %s key is %d bytes, want %d", ErrKeyLength, c, what, len(b), c.Size())
	}
	return nil
}

func isZero(b []byte) bool {
	var zero [56]byte
	return subtle.ConstantTimeCompare(b, zero[:len(b)]) == 1
}

// Backend computes batches of key agreements: an *Engine on a device, a
// CPU, or a Server that batches single requests over either.
type Backend interface {
	// PublicKeys returns X(priv[i], base point) for each private key.
	PublicKeys(c Curve, privs [][]byte) ([][]byte, error)
	// SharedSecrets returns X(privs[i], peers[i]).
	SharedSecrets(c Curve, privs, peers [][]byte) ([][]byte, error)
}

func checkBatch(c Curve, privs, peers [][]byte, withPeers bool) error {
	if err := c.valid(); err != nil {
		return err
	}
	if withPeers && len(privs) != len(peers) {
		return fmt.Errorf("ecdh: %d private keys but %d peer keys", len(privs), len(peers))
	}
	return nil
}
