package ecdh

import (
	stdecdh "crypto/ecdh"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
)

// ECDHPublicKeys computes the public keys of crypto/ecdh X25519 private
// keys on e and returns them as crypto/ecdh public keys (a key of another
// curve, or nil, fails its element). The copies of the private keys made
// for the call are zeroed before it returns. Package ecdsa's Engine has
// the same method for P-256 keys.
func (e *Engine) ECDHPublicKeys(privs []*stdecdh.PrivateKey) ([]*stdecdh.PublicKey, error) {
	return publicKeysOf(e, privs)
}

// ECDHKeys computes privs[i].ECDH(peers[i]) on e for crypto/ecdh X25519
// keys. Like crypto/ecdh, an all-zero secret is an error (ErrLowOrder); a
// nil key or one of another curve fails its element. The copies of the
// private keys made for the call are zeroed before it returns, and so are
// the secrets of the elements that fail. Package ecdsa's Engine has the
// same method for P-256 keys; a single key is a Server's KeyExchanger.
func (e *Engine) ECDHKeys(privs []*stdecdh.PrivateKey, peers []*stdecdh.PublicKey) ([][]byte, error) {
	return sharedSecretsOf(e, privs, peers)
}

// publicKeysOf is ECDHPublicKeys on any backend.
func publicKeysOf(b Backend, privs []*stdecdh.PrivateKey) ([]*stdecdh.PublicKey, error) {
	raw, errs := rawX25519(privs)
	defer clearAll(raw)
	vals, err := b.PublicKeys(X25519(), raw)
	if err != nil && !isPerElement(err, len(privs)) {
		return nil, err
	}
	mergeErrs(errs, err)
	out := make([]*stdecdh.PublicKey, len(privs))
	for i, v := range vals {
		if errs[i] == nil {
			if out[i], errs[i] = stdecdh.X25519().NewPublicKey(v); errs[i] != nil {
				out[i] = nil
			}
		}
	}
	return out, batch.Collect(errs)
}

// sharedSecretsOf is ECDHKeys on any backend.
func sharedSecretsOf(b Backend, privs []*stdecdh.PrivateKey, peers []*stdecdh.PublicKey) ([][]byte, error) {
	if len(privs) != len(peers) {
		return nil, fmt.Errorf("ecdh: %d private keys but %d peer keys", len(privs), len(peers))
	}
	raw, errs := rawX25519(privs)
	defer clearAll(raw)
	pub := make([][]byte, len(peers))
	for i, p := range peers {
		switch {
		case errs[i] != nil:
		case p == nil:
			errs[i] = fmt.Errorf("ecdh: nil peer public key")
		case p.Curve() != stdecdh.X25519():
			errs[i] = fmt.Errorf("ecdh: peer key is on %v, not X25519", p.Curve())
		default:
			pub[i] = p.Bytes()
		}
		if errs[i] != nil { // keep the batch well-formed; the element fails anyway
			clear(raw[i]) // the key's copy, where the peer key failed
			pub[i] = make([]byte, 32)
		}
	}
	vals, err := b.SharedSecrets(X25519(), raw, pub)
	if err != nil && !isPerElement(err, len(privs)) {
		return nil, err
	}
	mergeErrs(errs, err)
	for i := range vals {
		if errs[i] != nil {
			clear(vals[i])
			vals[i] = nil
		}
	}
	return vals, batch.Collect(errs)
}

// rawX25519 returns a copy of each private key's 32 bytes (PrivateKey.Bytes),
// all zeros for a key it refuses, with its error; the caller zeroes the
// copies (clearAll) once the backend is done with them.
func rawX25519(privs []*stdecdh.PrivateKey) ([][]byte, []error) {
	raw := make([][]byte, len(privs))
	errs := make([]error, len(privs))
	for i, k := range privs {
		switch {
		case k == nil:
			errs[i] = fmt.Errorf("ecdh: nil private key")
		case k.Curve() != stdecdh.X25519():
			errs[i] = fmt.Errorf("ecdh: private key is on %v, not X25519", k.Curve())
		default:
			raw[i] = k.Bytes()
		}
		if errs[i] != nil {
			raw[i] = make([]byte, 32)
		}
	}
	return raw, errs
}

// clearAll zeroes every string of bufs.
func clearAll(bufs [][]byte) {
	for _, b := range bufs {
		clear(b)
	}
}

func isPerElement(err error, n int) bool {
	be, ok := err.(*batch.Error)
	return ok && len(be.Errs) == n
}

func mergeErrs(errs []error, err error) {
	if be, ok := err.(*batch.Error); ok {
		for i, e := range be.Errs {
			if errs[i] == nil {
				errs[i] = e
			}
		}
	}
}
