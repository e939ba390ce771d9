//go:build go1.26

package mlkem_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/mlkem"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// FuzzDecapsulate: any seed and ciphertext bytes (any lengths), through
// the device Engine for both parameter sets. Never panics; the shared key
// is crypto/mlkem's byte for byte; an element error exactly where
// crypto/mlkem returns one.
func FuzzDecapsulate(f *testing.F) {
	seed := bytes.Repeat([]byte{3}, mlkem.SeedSize)
	for _, s := range sets {
		eks, err := s.keyGen(mlkem.CPUEngine(), [][]byte{seed})
		if err != nil {
			f.Fatal(err)
		}
		_, ct, err := s.stdEncapsulate(eks[0], make([]byte, 32))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed, ct)
		f.Add(seed, ct[:len(ct)-1])
	}
	f.Add([]byte{}, []byte{})
	e := deviceEngine(f)
	f.Fuzz(func(t *testing.T, seed, ct []byte) {
		for _, s := range sets {
			got, err := s.decapsulate(e, [][]byte{seed}, [][]byte{ct})
			want, stdErr := s.stdDecapsulate(seed, ct)
			if stdErr != nil {
				var be *batch.Error
				if !errors.As(err, &be) || be.Errs[0] == nil || got[0] != nil {
					t.Fatalf("%s: %d-byte seed, %d-byte ciphertext: %v, %x; crypto/mlkem: %v", s.name, len(seed), len(ct), err, got[0], stdErr)
				}
				if !errors.Is(be.Errs[0], mlkem.ErrSeedLength) && !errors.Is(be.Errs[0], mlkem.ErrCiphertextLength) {
					t.Fatalf("%s: error %v wraps neither ErrSeedLength nor ErrCiphertextLength", s.name, be.Errs[0])
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if !bytes.Equal(got[0], want) {
				t.Fatalf("%s: shared key %x, crypto/mlkem %x", s.name, got[0], want)
			}
		}
	})
}

// FuzzEncapsulationKey: any encapsulation key and randomness bytes,
// through the device Engine's derandomized encapsulation for both
// parameter sets: the key parser's verdict (length, modulus check) is
// crypto/mlkem's, and the shared key and ciphertext of a key it takes
// are crypto/mlkem/mlkemtest's byte for byte. Never panics.
func FuzzEncapsulationKey(f *testing.F) {
	m := bytes.Repeat([]byte{9}, mlkem.RandomnessSize)
	for _, s := range sets {
		eks, err := s.keyGen(mlkem.CPUEngine(), [][]byte{make([]byte, mlkem.SeedSize)})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(eks[0], m)
		bad, err := testvectors.CCTVMLKEMModulus(s.name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(bad[0], m)
		f.Add(bad[len(bad)-1], m)
	}
	f.Add([]byte{}, []byte{})
	e := deviceEngine(f)
	f.Fuzz(func(t *testing.T, ek, m []byte) {
		for _, s := range sets {
			shared, cts, err := s.encapsulateWith(e, [][]byte{ek}, [][]byte{m})
			keyErr := s.stdCheckEncapsulation(ek)
			if keyErr != nil || len(m) != mlkem.RandomnessSize {
				var be *batch.Error
				if !errors.As(err, &be) || be.Errs[0] == nil || shared[0] != nil || cts[0] != nil {
					t.Fatalf("%s: %d-byte key (crypto/mlkem: %v), %d bytes of randomness: %v", s.name, len(ek), keyErr, len(m), err)
				}
				switch {
				case keyErr != nil && len(ek) != s.ekSize && !errors.Is(be.Errs[0], mlkem.ErrEncapsulationKeyLength),
					keyErr != nil && len(ek) == s.ekSize && !errors.Is(be.Errs[0], mlkem.ErrEncapsulationKey),
					keyErr == nil && !errors.Is(be.Errs[0], mlkem.ErrRandomnessLength):
					t.Fatalf("%s: error %v; crypto/mlkem: %v", s.name, be.Errs[0], keyErr)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			wantShared, wantCT, err := s.stdEncapsulate(ek, m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(shared[0], wantShared) || !bytes.Equal(cts[0], wantCT) {
				t.Fatalf("%s: results differ from crypto/mlkem/mlkemtest's", s.name)
			}
		}
	})
}
