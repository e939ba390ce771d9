package ecdh

import (
	stdecdh "crypto/ecdh"

	"github.com/cloudflare/circl/dh/x448"

	"github.com/gpucrypto/gpucrypto/batch"
)

// CPU computes X25519 with crypto/ecdh and X448 with circl, spreading a
// batch over all cores. It is the fallback of an Engine and the backend
// where no device exists.
//
// crypto/ecdh has no X25519 function on raw keys: NewPrivateKey derives
// the public key with a full scalar multiplication before ECDH does the
// one asked for, so an X25519 shared secret costs CPU two scalar
// multiplications (about half the rate of PrivateKey.ECDH on parsed keys).
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

// cpuOne computes one public key (peer == nil) or shared secret.
func cpuOne(c Curve, priv, peer []byte) ([]byte, error) {
	if err := checkLen(c, "private", priv); err != nil {
		return nil, err
	}
	if c == X25519 {
		k, err := stdecdh.X25519().NewPrivateKey(priv)
		if err != nil {
			return nil, err
		}
		if peer == nil {
			return k.PublicKey().Bytes(), nil
		}
		p, err := stdecdh.X25519().NewPublicKey(peer)
		if err != nil {
			return nil, err
		}
		s, err := k.ECDH(p)
		if err != nil {
			return nil, ErrLowOrder
		}
		return s, nil
	}
	var k, p, out x448.Key
	copy(k[:], priv)
	defer clear(k[:])
	if peer == nil {
		x448.KeyGen(&out, &k)
		return out[:], nil
	}
	copy(p[:], peer)
	// circl rejects the known low-order peer points, but a scalar that is
	// a multiple of the group order (the clamped 4q) also gives the
	// all-zero secret: RFC 7748 §6.2 rejects every all-zero result, as the
	// device path does.
	if !x448.Shared(&out, &k, &p) || isZero(out[:]) {
		return nil, ErrLowOrder
	}
	return out[:], nil
}
