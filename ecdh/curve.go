// Package ecdh computes X25519 and X448 (RFC 7748) in batches on a GPU (or
// any device of package device), with the same API on the CPU.
//
// An Engine computes batches on one device, or on the CPU cores
// (CPUEngine: github.com/cloudflare/circl, constant-time, with assembly on
// amd64); Auto picks one. A device Engine still computes a call on the CPU when that is
// faster (a small batch, say): see Engine. A Server gathers single requests
// from many goroutines into batches. Keys are raw little-endian byte
// strings as RFC 7748 defines them, and X25519 keys of crypto/ecdh are
// accepted too.
//
// Curves are values, as in crypto/ecdh: X25519() and X448().
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

	"github.com/cloudflare/circl/dh/x25519"
	"github.com/cloudflare/circl/dh/x448"
)

// Curve is a curve of RFC 7748: X25519() or X448(). Curves compare equal
// to themselves (X25519() == X25519()).
type Curve interface {
	// String is the function's name: "X25519" or "X448".
	String() string
	// Size is the length in bytes of scalars, u-coordinates and shared
	// secrets.
	Size() int
	// params makes the interface one that only this package implements.
	params() *montgomery
}

// montgomery is a Montgomery curve of RFC 7748: what the kernels, the
// host's codec and the CPU need to know of it. Everything else is the
// same code for both.
type montgomery struct {
	name string
	size int // bytes
	// prefix names the kernels (prefix_decode, prefix, prefix_base_comb,
	// ...) and, with ".cl", the kernel file
	prefix string
	// scalarMask and uMask decode keys (RFC 7748 §5)
	scalarMask, uMask keyMask
	// binvSharedMin is the smallest batch of shared secrets that inverts
	// in groups by default (SetBatchInversion)
	binvSharedMin int
	// ladderFP64: on GPUs with fast double precision the ladder runs on
	// doubles (ProgramDefines)
	ladderFP64 bool
	// integerDefines are the -D options of the program on 32-bit limbs
	// (ProgramDefines): X448's product and squaring by the golden-ratio
	// Karatsuba (kernels/internal/generate/field.go), faster than the
	// schoolbook product
	integerDefines map[string]string
	// buildWithEngine: NewEngine builds the curve's program (its failure
	// is NewEngine's, and Auto then takes the CPU engine); the other
	// curves' programs are built on their first call, so that a process
	// that never uses them never compiles them
	buildWithEngine bool
	// publicKey and shared compute on the CPU (constant-time, circl):
	// out = X(priv, base point) or X(priv, peer); shared reports false for
	// a low-order peer. out does not alias the inputs.
	publicKey func(out, priv []byte)
	shared    func(out, priv, peer []byte) bool
}

var (
	x25519Curve = &montgomery{
		name: "X25519", size: 32, prefix: "x25519", buildWithEngine: true,
		// decodeScalar25519: clear bits 0-2 and 255, set bit 254; u: mask
		// the unused top bit
		scalarMask: keyMask{^uint32(7), 0x7fffffff, 0x40000000}, uMask: keyMask{^uint32(0), 0x7fffffff, 0},
		binvSharedMin: autoBinvMin,
		ladderFP64:    true,
		publicKey:     func(out, priv []byte) { x25519.KeyGen((*x25519.Key)(out), (*x25519.Key)(priv)) },
		shared: func(out, priv, peer []byte) bool {
			return x25519.Shared((*x25519.Key)(out), (*x25519.Key)(priv), (*x25519.Key)(peer))
		},
	}
	x448Curve = &montgomery{
		name: "X448", size: 56, prefix: "x448",
		// decodeScalar448: clear bits 0-1, set bit 447; u as it is
		scalarMask: keyMask{^uint32(3), ^uint32(0), 0x80000000}, uMask: keyMask{^uint32(0), ^uint32(0), 0},
		binvSharedMin:  2 * autoBinvMin,
		integerDefines: map[string]string{"FIELD_MUL_FORM": "karatsuba"},
		publicKey:      func(out, priv []byte) { x448.KeyGen((*x448.Key)(out), (*x448.Key)(priv)) },
		shared: func(out, priv, peer []byte) bool {
			return x448.Shared((*x448.Key)(out), (*x448.Key)(priv), (*x448.Key)(peer))
		},
	}
)

// X25519 returns the curve of X25519 (RFC 7748 §5: keys of 32 bytes).
func X25519() Curve { return x25519Curve }

// X448 returns the curve of X448 (RFC 7748 §5: keys of 56 bytes).
func X448() Curve { return x448Curve }

// Curves returns both curves.
func Curves() []Curve { return []Curve{x25519Curve, x448Curve} }

func (m *montgomery) String() string      { return m.name }
func (m *montgomery) Size() int           { return m.size }
func (m *montgomery) params() *montgomery { return m }

// limbs is the number of 32-bit limbs of a key.
func (m *montgomery) limbs() int { return m.size / 4 }

// curveOf returns c's parameters, or an error for a nil curve.
func curveOf(c Curve) (*montgomery, error) {
	if c == nil {
		return nil, errors.New("ecdh: nil curve")
	}
	return c.params(), nil
}

// Errors of single elements.
var (
	// ErrLowOrder: the peer's point has small order, so the shared secret is
	// all zeros (RFC 7748 §6.1). crypto/ecdh rejects it the same way.
	ErrLowOrder = errors.New("ecdh: low-order peer public key: the shared secret is all zeros")
	// ErrKeyLength: a private or public key, or an output, of the wrong
	// length.
	ErrKeyLength = errors.New("ecdh: wrong key length")
)

func (m *montgomery) checkLen(what string, b []byte) error {
	if len(b) != m.size {
		return fmt.Errorf("%w: %s %s key is %d bytes, want %d", ErrKeyLength, m, what, len(b), m.size)
	}
	return nil
}

// compute computes one public key (peer == nil) or shared secret on the
// CPU into out, after checking the lengths; an all-zero shared secret is
// ErrLowOrder (RFC 7748 §6.1 and §6.2: for X448 a scalar that is a
// multiple of the group order, the clamped 4q, also gives it), as the
// device path decides. out is written only on success.
func (m *montgomery) compute(out, priv, peer []byte, shared bool) error {
	if err := m.checkLen("private", priv); err != nil {
		return err
	}
	if shared {
		if err := m.checkLen("public", peer); err != nil {
			return err
		}
	}
	if len(out) != m.size {
		return fmt.Errorf("%w: %s output is %d bytes, want %d", ErrKeyLength, m, len(out), m.size)
	}
	var v [56]byte // out may alias the keys
	r := v[:m.size]
	defer clear(r)
	if !shared {
		m.publicKey(r, priv)
	} else if !m.shared(r, priv, peer) || isZero(r) {
		return ErrLowOrder
	}
	copy(out, r)
	return nil
}

func isZero(b []byte) bool {
	var zero [56]byte
	return subtle.ConstantTimeCompare(b, zero[:len(b)]) == 1
}

// Backend computes batches of key agreements: an *Engine (on a device or
// the CPU), or a Server that batches single requests over engines.
type Backend interface {
	// PublicKeys returns X(priv[i], base point) for each private key.
	PublicKeys(c Curve, privs [][]byte) ([][]byte, error)
	// SharedSecrets returns X(privs[i], peers[i]).
	SharedSecrets(c Curve, privs, peers [][]byte) ([][]byte, error)
}

// checkBatch checks a call's curve and the lengths of its slices.
func checkBatch(c Curve, privs, peers [][]byte, withPeers bool) (*montgomery, error) {
	m, err := curveOf(c)
	if err != nil {
		return nil, err
	}
	if withPeers && len(privs) != len(peers) {
		return nil, fmt.Errorf("ecdh: %d private keys but %d peer keys", len(privs), len(peers))
	}
	return m, nil
}
