package ecdh

import (
	"github.com/cloudflare/circl/dh/x25519"
	"github.com/cloudflare/circl/dh/x448"

	"github.com/gpucrypto/gpucrypto/batch"
)

// CPU computes X25519 and X448 with circl (constant-time, with assembly on
// amd64), spreading a batch over all cores. It is the fallback of an Engine
// and the backend where no device exists.
//
// (Not crypto/ecdh for X25519: it has no function on raw keys, and its
// NewPrivateKey derives the public key with a full scalar multiplication
// before ECDH does the one asked for, so a shared secret would cost two.)
type CPU struct{}

// PublicKeys implements Backend.
func (CPU) PublicKeys(c Curve, privs [][]byte) ([][]byte, error) {
	if err := checkBatch(c, privs, nil, false); err != nil {
		return nil, err
	}
	return batch.Each(len(privs), func(i int) ([]byte, error) {
		return cpuOne(c, privs[i], nil)
	})
}

// SharedSecrets implements Backend.
func (CPU) SharedSecrets(c Curve, privs, peers [][]byte) ([][]byte, error) {
	if err := checkBatch(c, privs, peers, true); err != nil {
		return nil, err
	}
	return batch.Each(len(privs), func(i int) ([]byte, error) {
		if err := checkLen(c, "public", peers[i]); err != nil {
			return nil, err
		}
		return cpuOne(c, privs[i], peers[i])
	})
}

// cpuOne computes one public key (peer == nil) or shared secret. circl
// reads the keys in place (it clamps a copy of the scalar) and rejects the
// known low-order peer points; every all-zero result is rejected too (RFC
// 7748 §6.1 and §6.2: for X448 a scalar that is a multiple of the group
// order, the clamped 4q, also gives it), as the device path does.
func cpuOne(c Curve, priv, peer []byte) ([]byte, error) {
	if err := checkLen(c, "private", priv); err != nil {
		return nil, err
	}
	out := make([]byte, c.Size())
	var ok bool
	switch {
	case c == X25519 && peer == nil:
		x25519.KeyGen((*x25519.Key)(out), (*x25519.Key)(priv))
		return out, nil
	case c == X25519:
		ok = x25519.Shared((*x25519.Key)(out), (*x25519.Key)(priv), (*x25519.Key)(peer))
	case peer == nil:
		x448.KeyGen((*x448.Key)(out), (*x448.Key)(priv))
		return out, nil
	default:
		ok = x448.Shared((*x448.Key)(out), (*x448.Key)(priv), (*x448.Key)(peer))
	}
	if !ok || isZero(out) {
		return nil, ErrLowOrder
	}
	return out, nil
}
