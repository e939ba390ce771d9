package ecdh_test

import (
	"bytes"
	stdecdh "crypto/ecdh"
	"errors"
	"testing"

	"github.com/cloudflare/circl/dh/x448"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// reference computes X(priv, peer) with crypto/ecdh (X25519) or circl
// (X448): ok is false for keys of the wrong length and for an all-zero
// result.
func reference(c ecdh.Curve, priv, peer []byte) (out []byte, ok bool) {
	if len(priv) != c.Size() || len(peer) != c.Size() {
		return nil, false
	}
	if c == ecdh.X448() {
		var o, k, p x448.Key
		copy(k[:], priv)
		copy(p[:], peer)
		if !x448.Shared(&o, &k, &p) {
			return nil, false
		}
		return o[:], true
	}
	k, err := stdecdh.X25519().NewPrivateKey(priv)
	if err != nil {
		return nil, false
	}
	p, err := stdecdh.X25519().NewPublicKey(peer)
	if err != nil {
		return nil, false
	}
	s, err := k.ECDH(p)
	return s, err == nil
}

// fuzzXDH: any private and peer key bytes (any lengths) through the
// device Engine. Never panics; accepts exactly when crypto/ecdh (X25519)
// or circl (X448) accepts, with the same shared secret; a refusal is
// ErrKeyLength or ErrLowOrder, and SharedSecretsInto leaves zeros.
func fuzzXDH(f *testing.F, c ecdh.Curve, file string) {
	tests, err := testvectors.WycheproofXDH(file)
	if err != nil {
		f.Fatal(err)
	}
	for _, tc := range tests {
		f.Add(unhex(f, tc.Private), unhex(f, tc.Public))
	}
	e := engine(f)
	f.Fuzz(func(t *testing.T, priv, peer []byte) {
		got, err := e.SharedSecrets(c, [][]byte{priv}, [][]byte{peer})
		want, ok := reference(c, priv, peer)
		var be *batch.Error
		switch {
		case err == nil && !ok:
			t.Fatalf("accepted what the reference refuses")
		case err != nil && (!errors.As(err, &be) || len(be.Errs) != 1):
			t.Fatalf("not one element's error: %v", err)
		case err != nil && ok:
			t.Fatalf("refused what the reference accepts: %v", be.Errs[0])
		case err != nil && !errors.Is(be.Errs[0], ecdh.ErrKeyLength) && !errors.Is(be.Errs[0], ecdh.ErrLowOrder):
			t.Fatalf("refusal is neither ErrKeyLength nor ErrLowOrder: %v", be.Errs[0])
		case err == nil && !bytes.Equal(got[0], want):
			t.Fatalf("shared secret %x, reference %x", got[0], want)
		}
		out := [][]byte{bytes.Repeat([]byte{0xa5}, c.Size())}
		err = e.SharedSecretsInto(c, [][]byte{priv}, [][]byte{peer}, out)
		if (err == nil) != ok || (ok && !bytes.Equal(out[0], want)) || (!ok && !bytes.Equal(out[0], make([]byte, c.Size()))) {
			t.Fatalf("SharedSecretsInto: %v, %x", err, out[0])
		}
	})
}

func FuzzX25519(f *testing.F) { fuzzXDH(f, ecdh.X25519(), "x25519_test.json") }
func FuzzX448(f *testing.F)   { fuzzXDH(f, ecdh.X448(), "x448_test.json") }
