package ed25519_test

import (
	"bytes"
	stded25519 "crypto/ed25519"
	"errors"
	"testing"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// FuzzVerify: any public key, message and signature bytes (any lengths)
// through the device Engine. Never panics; the verdict is
// crypto/ed25519's; an error only for a public key of the wrong length
// (where crypto/ed25519 panics).
func FuzzVerify(f *testing.F) {
	vectors, err := testvectors.Ed25519Vectors()
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range vectors[:64] {
		f.Add(v.A, v.Msg, v.Sig)
	}
	e := deviceEngine(f)
	f.Fuzz(func(t *testing.T, pub, msg, sig []byte) {
		ok, err := e.Verify([]stded25519.PublicKey{pub}, [][]byte{msg}, [][]byte{sig}, nil)
		if len(pub) != ed25519.PublicKeySize {
			var be *batch.Error
			if !errors.As(err, &be) || !errors.Is(be.Errs[0], ed25519.ErrKeyLength) || ok[0] {
				t.Fatalf("a public key of %d bytes: %v, %v", len(pub), ok, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := stded25519.Verify(pub, msg, sig); ok[0] != want {
			t.Fatalf("verdict %v, crypto/ed25519 %v", ok[0], want)
		}
	})
}

// FuzzSign: any private key and message bytes. Never panics; the
// signature is crypto/ed25519's byte for byte; an error only for a key of
// the wrong length.
func FuzzSign(f *testing.F) {
	f.Add(bytes.Repeat([]byte{7}, 64), []byte("message"))
	f.Add([]byte{}, []byte{})
	e := deviceEngine(f)
	f.Fuzz(func(t *testing.T, key, msg []byte) {
		sigs, err := e.Sign([]stded25519.PrivateKey{key}, [][]byte{msg}, nil)
		if len(key) != ed25519.PrivateKeySize {
			var be *batch.Error
			if !errors.As(err, &be) || !errors.Is(be.Errs[0], ed25519.ErrKeyLength) || sigs[0] != nil {
				t.Fatalf("a private key of %d bytes: %v", len(key), err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := stded25519.Sign(key, msg); !bytes.Equal(sigs[0], want) {
			t.Fatalf("signature %x, crypto/ed25519 %x", sigs[0], want)
		}
	})
}

// FuzzNewKeysFromSeeds: any seed bytes.
func FuzzNewKeysFromSeeds(f *testing.F) {
	f.Add(make([]byte, 32))
	e := deviceEngine(f)
	f.Fuzz(func(t *testing.T, seed []byte) {
		keys, err := e.NewKeysFromSeeds([][]byte{seed})
		if len(seed) != ed25519.SeedSize {
			if err == nil || keys[0] != nil {
				t.Fatalf("a seed of %d bytes: %v", len(seed), err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := stded25519.NewKeyFromSeed(seed); !bytes.Equal(keys[0], want) {
			t.Fatalf("key %x, crypto/ed25519 %x", keys[0], want)
		}
	})
}
