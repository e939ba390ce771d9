package aes_test

import (
	"bytes"
	stdaes "crypto/aes"
	"crypto/cipher"
	"errors"
	"testing"

	"golang.org/x/crypto/xts"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// one returns a function that gives the result and the error of the one
// element of a batch call, failing t on a whole-call error.
func one(t *testing.T) func(out [][]byte, err error) ([]byte, error) {
	return func(out [][]byte, err error) ([]byte, error) {
		t.Helper()
		if err == nil {
			return out[0], nil
		}
		var be *batch.Error
		if !errors.As(err, &be) || len(be.Errs) != 1 || be.Errs[0] == nil || out[0] != nil {
			t.Fatalf("not one element's error: %v", err)
		}
		return nil, be.Errs[0]
	}
}

// FuzzGCM: any key, nonce, data and additional data, through the device
// Engine. Never panics; a key that crypto/aes refuses is refused; Seal
// gives crypto/cipher's ciphertext and tag; Open accepts exactly when
// crypto/cipher's GCM does (tag and length checks), with the same
// plaintext, and otherwise releases nothing (ErrOpen for a bad tag).
func FuzzGCM(f *testing.F) {
	groups, err := testvectors.WycheproofAEAD("aes_gcm_test.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, g := range groups {
		for _, tc := range g.Tests {
			f.Add(unhex(f, tc.Key), unhex(f, tc.IV), append(unhex(f, tc.Ct), unhex(f, tc.Tag)...), unhex(f, tc.AAD))
		}
	}
	e := engine(f, aes.LayoutCompact)
	f.Fuzz(func(t *testing.T, key, nonce, data, aad []byte) {
		k, err := aes.NewKey(key)
		block, werr := stdaes.NewCipher(key)
		if (err == nil) != (werr == nil) {
			t.Fatalf("key of %d bytes: ours %v, crypto/aes %v", len(key), err, werr)
		}
		if err != nil || len(nonce) == 0 {
			return
		}
		gcm, err := cipher.NewGCMWithNonceSize(block, len(nonce))
		if err != nil {
			t.Fatal(err)
		}
		sealed, err := one(t)(e.Seal([]aes.Message{{Key: k, Nonce: nonce, AAD: aad, Data: data}}))
		if err != nil {
			t.Fatalf("Seal: %v", err)
		}
		if want := gcm.Seal(nil, nonce, data, aad); !bytes.Equal(sealed, want) {
			t.Fatalf("Seal %x, crypto/cipher %x", sealed, want)
		}
		opened, err := one(t)(e.Open([]aes.Message{{Key: k, Nonce: nonce, AAD: aad, Data: data}}))
		want, werr := gcm.Open(nil, nonce, data, aad)
		if (err == nil) != (werr == nil) {
			t.Fatalf("Open: ours %v, crypto/cipher %v", err, werr)
		}
		if err == nil && !bytes.Equal(opened, want) {
			t.Fatalf("Open %x, crypto/cipher %x", opened, want)
		}
		if err != nil && len(data) >= aes.TagSize && !errors.Is(err, aes.ErrOpen) {
			t.Fatalf("a bad tag's error is not ErrOpen: %v", err)
		}
	})
}

// FuzzCBC: any key, IV and data. Never panics; encryption and decryption
// succeed exactly for a valid key, a 16-byte IV and whole blocks, and then
// agree with crypto/cipher.
func FuzzCBC(f *testing.F) {
	f.Add(make([]byte, 16), make([]byte, 16), make([]byte, 32))
	f.Add(make([]byte, 32), make([]byte, 15), make([]byte, 17))
	e := engine(f, aes.LayoutCompact)
	f.Fuzz(func(t *testing.T, key, iv, data []byte) {
		k, err := aes.NewKey(key)
		if err != nil {
			return
		}
		valid := len(iv) == 16 && len(data)%16 == 0
		enc, err := one(t)(e.EncryptCBC([]aes.CBCMessage{{Key: k, IV: iv, Data: data}}))
		dec, derr := one(t)(e.DecryptCBC([]aes.CBCMessage{{Key: k, IV: iv, Data: data}}))
		if (err == nil) != valid || (derr == nil) != valid {
			t.Fatalf("IV %d bytes, data %d bytes: encrypt %v, decrypt %v", len(iv), len(data), err, derr)
		}
		if !valid {
			return
		}
		block, _ := stdaes.NewCipher(key)
		want := make([]byte, len(data))
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(want, data)
		if !bytes.Equal(enc, want) {
			t.Fatalf("encrypt %x, crypto/cipher %x", enc, want)
		}
		cipher.NewCBCDecrypter(block, iv).CryptBlocks(want, data)
		if !bytes.Equal(dec, want) {
			t.Fatalf("decrypt %x, crypto/cipher %x", dec, want)
		}
	})
}

// FuzzXTS: any key, tweak and data unit. Never panics; succeeds exactly
// for a 32-, 48- or 64-byte key, a 16-byte tweak and 16 to
// MaxXTSDataUnit bytes; then decryption inverts encryption, and whole
// blocks agree with golang.org/x/crypto/xts (which has no ciphertext
// stealing).
func FuzzXTS(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 16), make([]byte, 35))
	f.Add(make([]byte, 64), make([]byte, 16), make([]byte, 64))
	e := engine(f, aes.LayoutCompact)
	f.Fuzz(func(t *testing.T, key, tweak, data []byte) {
		k, err := aes.NewXTSKey(key)
		if (err == nil) != (len(key) == 32 || len(key) == 48 || len(key) == 64) {
			t.Fatalf("key of %d bytes: %v", len(key), err)
		}
		if err != nil {
			return
		}
		valid := len(tweak) == 16 && len(data) >= 16 && len(data) <= aes.MaxXTSDataUnit
		enc, err := one(t)(e.EncryptXTS([]aes.XTSMessage{{Key: k, Tweak: tweak, Data: data}}))
		if (err == nil) != valid {
			t.Fatalf("tweak %d bytes, data %d bytes: %v", len(tweak), len(data), err)
		}
		if !valid {
			return
		}
		dec, err := one(t)(e.DecryptXTS([]aes.XTSMessage{{Key: k, Tweak: tweak, Data: enc}}))
		if err != nil || !bytes.Equal(dec, data) {
			t.Fatalf("decryption does not invert encryption: %v", err)
		}
		if len(data)%16 != 0 {
			return
		}
		c, err := xts.NewCipher(stdaes.NewCipher, key)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]byte, len(data))
		var sector uint64
		for i := 7; i >= 0; i-- {
			sector = sector<<8 | uint64(tweak[i])
		}
		if !bytes.Equal(tweak[8:], make([]byte, 8)) {
			return // x/crypto/xts takes a 64-bit sector number only
		}
		c.Encrypt(want, data, sector)
		if !bytes.Equal(enc, want) {
			t.Fatalf("encrypt %x, x/crypto/xts %x", enc, want)
		}
	})
}
