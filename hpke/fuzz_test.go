//go:build go1.26

package hpke_test

import (
	"bytes"
	stdhpke "crypto/hpke"
	"errors"
	"testing"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/hpke"
)

// FuzzOpen: any ciphertext and info bytes (any lengths), opened with a
// fixed key of every suite through the device Engine, beside a valid
// message in the same batch. Never panics; the verdict and the plaintext
// are crypto/hpke's Open's; a failure is one of the package's errors and
// leaves the valid message opened.
func FuzzOpen(f *testing.F) {
	type fixed struct {
		s     suite
		key   keyPair
		valid []byte // a ciphertext of "valid" under info "fuzz"
	}
	var keys []fixed
	for i, s := range suites() {
		std, err := s.kem.DeriveKeyPair(append([]byte{byte(i)}, bytes.Repeat([]byte("fuzz"), 8)...))
		if err != nil {
			f.Fatal(err)
		}
		b, err := std.Bytes()
		if err != nil {
			f.Fatal(err)
		}
		ours, err := hpke.NewPrivateKey(s.s.KEM, b)
		if err != nil {
			f.Fatal(err)
		}
		valid, err := stdhpke.Seal(std.PublicKey(), stdhpke.HKDFSHA256(), s.aead, []byte("fuzz"), []byte("valid"))
		if err != nil {
			f.Fatal(err)
		}
		keys = append(keys, fixed{s, keyPair{std: std, ours: ours}, valid})
		f.Add(uint8(i), []byte("fuzz"), valid)
		f.Add(uint8(i), []byte("fuzz"), valid[:len(valid)-1])
		f.Add(uint8(i), []byte("other"), valid)
	}
	f.Add(uint8(0), []byte{}, []byte{})
	e := deviceEngine(f)
	f.Fuzz(func(t *testing.T, which uint8, info, ct []byte) {
		k := keys[int(which)%len(keys)]
		got, err := e.OpenMessages(k.s.s, []hpke.OpenInput{
			{Key: k.key.ours, Info: info, Ciphertext: ct},
			{Key: k.key.ours, Info: []byte("fuzz"), Ciphertext: k.valid},
		})
		want, stdErr := stdhpke.Open(k.key.std, stdhpke.HKDFSHA256(), k.s.aead, info, ct)
		var per *batch.Error
		if err != nil && !errors.As(err, &per) {
			t.Fatalf("%v: the call failed: %v", k.s, err)
		}
		if !bytes.Equal(got[1], []byte("valid")) || (per != nil && per.Errs[1] != nil) {
			t.Fatalf("%v: the valid message beside it: %q, %v", k.s, got[1], err)
		}
		if stdErr != nil {
			if per == nil || per.Errs[0] == nil || got[0] != nil {
				t.Fatalf("%v: %d-byte ciphertext opened (%x), crypto/hpke: %v", k.s, len(ct), got[0], stdErr)
			}
			if e := per.Errs[0]; !errors.Is(e, hpke.ErrOpen) && !errors.Is(e, hpke.ErrCiphertextShort) && !errors.Is(e, hpke.ErrEncapsulation) {
				t.Fatalf("%v: error %v is none of the package's", k.s, e)
			}
			return
		}
		if per != nil || !bytes.Equal(got[0], want) || got[0] == nil {
			t.Fatalf("%v: %x, %v; crypto/hpke opened %x", k.s, got[0], err, want)
		}
	})
}
