package rsa_test

import (
	"bytes"
	"crypto"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"testing"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// The fuzz targets run the byte-level entry points on the CPU engine: the
// padding, unpadding and checks they fuzz are the host code that every
// engine shares (the device only computes the raw operation). Each states
// its property; `make test` runs each briefly, `make fuzz` for longer.

// fuzzEngine is the engine the targets call.
var fuzzEngine = rsa.CPUEngine()

// elementError returns the error of the one element of a batch call (nil
// when it succeeded), failing on a whole-call error.
func elementError(t *testing.T, err error) error {
	t.Helper()
	if err == nil {
		return nil
	}
	var be *batch.Error
	if !errors.As(err, &be) || len(be.Errs) != 1 || be.Errs[0] == nil {
		t.Fatalf("not one element's error: %v", err)
	}
	return be.Errs[0]
}

// oaepKey is the key of the first group of a Wycheproof OAEP file, and the
// file's ciphertexts and labels under it as seeds.
func oaepSeeds(f *testing.F, file string) *stdrsa.PrivateKey {
	cases := wycheproofCases(f, file)
	key := cases[0].priv
	for _, c := range cases {
		if c.priv.N.Cmp(key.N) == 0 {
			f.Add(unhex(f, c.test.Ct), unhex(f, c.test.Label))
		}
	}
	return key
}

// shortCiphertext reports whether ct is shorter than key's modulus, and
// then checks that the decryption refused it (err) with ErrInputSize.
// crypto/rsa reads a short ciphertext as a number with zeros in front (and
// may accept it: the fuzzer found a 115-byte PKCS #1 v1.5 ciphertext it
// decrypts, testdata/fuzz/FuzzDecryptPKCS1v15); RFC 8017 (§7.1.2 and
// §7.2.2, step 1) and this package refuse it. Its length is public: the
// refusal is no oracle.
func shortCiphertext(t *testing.T, key *stdrsa.PrivateKey, ct []byte, err error) bool {
	t.Helper()
	if len(ct) >= key.Size() {
		return false
	}
	if !errors.Is(err, rsa.ErrInputSize) {
		t.Fatalf("a %d-byte ciphertext was not refused for its length: %v", len(ct), err)
	}
	return true
}

// FuzzDecryptOAEP: any ciphertext and label. Never panics; accepts exactly
// when crypto/rsa.DecryptOAEP accepts, with the same plaintext, and every
// rejection is rsa.ErrDecryption (no other detail); short ciphertexts: see
// shortCiphertext.
func FuzzDecryptOAEP(f *testing.F) {
	key := oaepSeeds(f, "rsa_oaep_2048_sha256_mgf1sha256_test.json")
	f.Fuzz(func(t *testing.T, ct, label []byte) {
		got, err := fuzzEngine.DecryptOAEP(crypto.SHA256, []*stdrsa.PrivateKey{key}, [][]byte{ct}, label)
		err = elementError(t, err)
		if shortCiphertext(t, key, ct, err) {
			return
		}
		want, werr := stdrsa.DecryptOAEP(sha256.New(), nil, key, ct, label)
		if (err == nil) != (werr == nil) {
			t.Fatalf("accept/reject differs: ours %v, crypto/rsa %v", err, werr)
		}
		if err != nil {
			if !errors.Is(err, rsa.ErrDecryption) {
				t.Fatalf("rejection is not ErrDecryption: %v", err)
			}
			return
		}
		if !bytes.Equal(got[0], want) {
			t.Fatalf("plaintext %x, crypto/rsa %x", got[0], want)
		}
	})
}

// FuzzDecryptPKCS1v15: any ciphertext, with the plain and the session-key
// variant (session key of any length up to 64 bytes, same random fill on
// both sides). Never panics; the plain variant accepts exactly when
// crypto/rsa does, with the same message; the session-key variant leaves
// the same key as crypto/rsa and fails only where crypto/rsa does; short
// ciphertexts: see shortCiphertext.
func FuzzDecryptPKCS1v15(f *testing.F) {
	cases := wycheproofCases(f, "rsa_pkcs1_2048_test.json")
	key := cases[0].priv
	for _, c := range cases {
		if c.priv.N.Cmp(key.N) == 0 {
			f.Add(unhex(f, c.test.Ct), uint8(16))
		}
	}
	f.Fuzz(func(t *testing.T, ct []byte, keyLen uint8) {
		got, err := fuzzEngine.DecryptPKCS1v15([]*stdrsa.PrivateKey{key}, [][]byte{ct})
		err = elementError(t, err)
		if shortCiphertext(t, key, ct, err) {
			return
		}
		want, werr := stdrsa.DecryptPKCS1v15(nil, key, ct)
		if (err == nil) != (werr == nil) {
			t.Fatalf("accept/reject differs: ours %v, crypto/rsa %v", err, werr)
		}
		if err == nil && !bytes.Equal(got[0], want) {
			t.Fatalf("message %x, crypto/rsa %x", got[0], want)
		}
		n := int(keyLen % 65)
		ours, theirs := make([]byte, n), make([]byte, n)
		for i := range ours {
			ours[i], theirs[i] = byte(i*7+1), byte(i*7+1)
		}
		err = elementError(t, fuzzEngine.DecryptPKCS1v15SessionKey([]*stdrsa.PrivateKey{key}, [][]byte{ct}, [][]byte{ours}))
		if shortCiphertext(t, key, ct, err) {
			if !bytes.Equal(ours, theirs) {
				t.Fatalf("short ciphertext: the session key changed")
			}
			return
		}
		werr = stdrsa.DecryptPKCS1v15SessionKey(nil, key, ct, theirs)
		if (err == nil) != (werr == nil) {
			t.Fatalf("session key: accept/reject differs: ours %v, crypto/rsa %v", err, werr)
		}
		if !bytes.Equal(ours, theirs) {
			t.Fatalf("session key %x, crypto/rsa %x", ours, theirs)
		}
	})
}

// verifySeeds returns the public key of a Wycheproof verification file's
// first group and adds its (digest, signature) pairs as seeds.
func verifySeeds(f *testing.F, file string) *stdrsa.PublicKey {
	cases := wycheproofCases(f, file)
	pub := cases[0].pub
	for _, c := range cases {
		if c.pub.N.Cmp(pub.N) == 0 {
			d := sha256.Sum256(unhex(f, c.test.Msg))
			f.Add(d[:], unhex(f, c.test.Sig))
		}
	}
	return pub
}

// FuzzVerifyPKCS1v15: any digest and signature. Never panics; accepts
// exactly when crypto/rsa.VerifyPKCS1v15 accepts.
func FuzzVerifyPKCS1v15(f *testing.F) {
	pub := verifySeeds(f, "rsa_signature_2048_sha256_test.json")
	f.Fuzz(func(t *testing.T, digest, sig []byte) {
		err := elementError(t, asErrors(fuzzEngine.VerifyPKCS1v15([]*stdrsa.PublicKey{pub}, crypto.SHA256, [][]byte{digest}, [][]byte{sig})))
		werr := stdrsa.VerifyPKCS1v15(pub, crypto.SHA256, digest, sig)
		if (err == nil) != (werr == nil) {
			t.Fatalf("accept/reject differs: ours %v, crypto/rsa %v", err, werr)
		}
	})
}

// FuzzVerifyPSS: any digest and signature, any salt length (auto). Never
// panics; accepts exactly when crypto/rsa.VerifyPSS accepts.
func FuzzVerifyPSS(f *testing.F) {
	pub := verifySeeds(f, "rsa_pss_2048_sha256_mgf1_32_test.json")
	f.Fuzz(func(t *testing.T, digest, sig []byte) {
		err := elementError(t, asErrors(fuzzEngine.VerifyPSS([]*stdrsa.PublicKey{pub}, crypto.SHA256, [][]byte{digest}, [][]byte{sig}, nil)))
		werr := stdrsa.VerifyPSS(pub, crypto.SHA256, digest, sig, nil)
		if (err == nil) != (werr == nil) {
			t.Fatalf("accept/reject differs: ours %v, crypto/rsa %v", err, werr)
		}
	})
}

// FuzzPrivateKey: any PKCS #1 DER, parsed by crypto/x509, then used to
// sign. Never panics; a key this package accepts signs exactly as
// crypto/rsa does (which must accept it too); a key it refuses fails with
// rsa.ErrInvalidKey.
func FuzzPrivateKey(f *testing.F) {
	keys, err := testKeys()
	if err != nil {
		f.Fatal(err)
	}
	for _, k := range keys {
		f.Add(x509.MarshalPKCS1PrivateKey(k))
	}
	digest := sha256.Sum256([]byte("fuzz"))
	f.Fuzz(func(t *testing.T, der []byte) {
		key, err := x509.ParsePKCS1PrivateKey(der)
		if err != nil || key.N.BitLen() > rsa.MaxKeyBits {
			return // crypto/x509's parser is not ours to fuzz; huge keys are slow
		}
		sigs, err := fuzzEngine.SignPKCS1v15([]*stdrsa.PrivateKey{key}, crypto.SHA256, [][]byte{digest[:]})
		if err = elementError(t, err); err != nil {
			if !errors.Is(err, rsa.ErrInvalidKey) {
				t.Fatalf("a refused key's error is not ErrInvalidKey: %v", err)
			}
			return
		}
		want, werr := stdrsa.SignPKCS1v15(nil, key, crypto.SHA256, digest[:])
		if werr != nil {
			t.Fatalf("we signed with a key crypto/rsa refuses: %v", werr)
		}
		if !bytes.Equal(sigs[0], want) {
			t.Fatalf("signature differs from crypto/rsa's")
		}
	})
}

// FuzzBatchShapes: slices of any lengths. Never panics; a call whose
// slices differ in length fails as a whole (no results), one whose
// lengths agree returns one result or one error per element.
func FuzzBatchShapes(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint8(1))
	f.Add(uint8(0), uint8(2), uint8(1))
	signer := key(f, "rsa2048a")
	digest := sha256.Sum256(nil)
	f.Fuzz(func(t *testing.T, nk, nd, ns uint8) {
		nk, nd, ns = nk%6, nd%6, ns%6
		keys := make([]*stdrsa.PrivateKey, nk)
		for i := range keys {
			keys[i] = signer
		}
		digests := make([][]byte, nd)
		for i := range digests {
			digests[i] = digest[:]
		}
		out, err := fuzzEngine.SignPKCS1v15(keys, crypto.SHA256, digests)
		if nk != nd {
			if err == nil || out != nil {
				t.Fatalf("%d keys, %d digests: want a whole-call error", nk, nd)
			}
		} else if err != nil || len(out) != int(nk) {
			t.Fatalf("%d elements: %d results, %v", nk, len(out), err)
		}
		sessionKeys := make([][]byte, ns)
		for i := range sessionKeys {
			sessionKeys[i] = make([]byte, 16)
		}
		cts := make([][]byte, nd)
		for i := range cts {
			cts[i] = make([]byte, signer.Size())
		}
		err = fuzzEngine.DecryptPKCS1v15SessionKey(keys, cts, sessionKeys)
		var be *batch.Error
		if shaped := nk == nd && nd == ns; shaped == (err != nil && !errors.As(err, &be)) {
			t.Fatalf("%d keys, %d ciphertexts, %d session keys: %v", nk, nd, ns, err)
		}
	})
}
