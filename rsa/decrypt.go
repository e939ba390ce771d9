package rsa

import (
	"bytes"
	"crypto"
	stdrsa "crypto/rsa"
	"hash"
	"math/big"

	"github.com/gpucrypto/gpucrypto/batch"
)

// DecryptOAEP decrypts each ciphertexts[i] with keys[i] using RSAES-OAEP,
// hash used for the label and for MGF1, as crypto/rsa.DecryptOAEP does.
// Ciphertexts must be exactly the modulus size. An element whose padding
// or label is wrong fails with ErrDecryption and nothing else: the check
// runs in constant time and does not say which part was wrong.
func (e *Engine) DecryptOAEP(hash crypto.Hash, keys []*stdrsa.PrivateKey, ciphertexts [][]byte, label []byte) ([][]byte, error) {
	return e.decryptOAEP(hash, hash, keys, ciphertexts, label)
}

func (e *Engine) decryptOAEP(hash, mgfHash crypto.Hash, keys []*stdrsa.PrivateKey, ciphertexts [][]byte, label []byte) ([][]byte, error) {
	if err := shapeError([]string{"keys", "ciphertexts"}, len(keys), len(ciphertexts)); err != nil {
		return nil, err
	}
	if err := checkHash(hash); err != nil {
		return nil, err
	}
	if err := checkHash(mgfHash); err != nil {
		return nil, err
	}
	out, errs := e.pipelined(len(keys), func(lo, hi int) ([][]byte, []error) {
		ks, m, errs := e.decrypt(keys[lo:hi], ciphertexts[lo:hi], func(_ int, pub *pubKey) error { return oaepFits(pub, hash) })
		out := make([][]byte, len(ks))
		batch.Parallel(len(ks), 64, func(lo, hi int) {
			h, mgf := hash.New(), mgfHash.New()
			for i := lo; i < hi; i++ {
				if errs[i] == nil {
					out[i], errs[i] = oaepOutput(ks[i].k.pub, m[i], h, mgf, label)
				}
			}
		})
		return out, errs
	})
	return out, batch.Collect(errs)
}

// DecryptPKCS1v15 decrypts each ciphertexts[i] with keys[i] using
// RSAES-PKCS1-v1_5, as crypto/rsa.DecryptPKCS1v15 does; a bad padding
// fails its element with ErrDecryption. The padding check is constant-time,
// but telling the sender whether decryption failed is itself an oracle
// (Bleichenbacher): protocols such as TLS's RSA key exchange must use
// DecryptPKCS1v15SessionKey.
func (e *Engine) DecryptPKCS1v15(keys []*stdrsa.PrivateKey, ciphertexts [][]byte) ([][]byte, error) {
	if err := shapeError([]string{"keys", "ciphertexts"}, len(keys), len(ciphertexts)); err != nil {
		return nil, err
	}
	out, errs := e.pipelined(len(keys), func(lo, hi int) ([][]byte, []error) {
		ks, m, errs := e.decrypt(keys[lo:hi], ciphertexts[lo:hi], nil)
		out := make([][]byte, len(ks))
		batch.Parallel(len(ks), 256, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if errs[i] == nil {
					out[i], errs[i] = pkcs1v15Output(ks[i].k.pub, m[i])
				}
			}
		})
		return out, errs
	})
	return out, batch.Collect(errs)
}

// DecryptPKCS1v15SessionKey decrypts each ciphertexts[i] with keys[i]
// using RSAES-PKCS1-v1_5 and, when the padding is valid and the message
// exactly len(sessionKeys[i]) bytes long, copies the message into
// sessionKeys[i]; otherwise sessionKeys[i] keeps its content. This is
// crypto/rsa.DecryptPKCS1v15SessionKey: fill each session key with random
// bytes first, and nothing about the padding leaks, neither through an
// error nor through timing. Errors report only public conditions (a bad
// key, a ciphertext of the wrong length or not below the modulus, a
// session key too long for the modulus).
func (e *Engine) DecryptPKCS1v15SessionKey(keys []*stdrsa.PrivateKey, ciphertexts, sessionKeys [][]byte) error {
	if err := shapeError([]string{"keys", "ciphertexts", "session keys"}, len(keys), len(ciphertexts), len(sessionKeys)); err != nil {
		return err
	}
	_, errs := e.pipelined(len(keys), func(lo, hi int) ([][]byte, []error) {
		sessionKeys := sessionKeys[lo:hi]
		ks, m, errs := e.decrypt(keys[lo:hi], ciphertexts[lo:hi], func(i int, pub *pubKey) error {
			if modBytes(pub) < len(sessionKeys[i])+11 {
				return ErrDecryption
			}
			return nil
		})
		batch.Parallel(len(ks), 256, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if errs[i] == nil {
					sessionKeyOutput(ks[i].k.pub, m[i], sessionKeys[i])
				}
			}
		})
		return nil, errs
	})
	return batch.Collect(errs)
}

// decrypt prepares the keys, reads the ciphertexts (and applies check to
// each key) and runs the private operation.
func (e *Engine) decrypt(keys []*stdrsa.PrivateKey, ciphertexts [][]byte, check func(i int, pub *pubKey) error) ([]*privEntry, []*big.Int, []error) {
	errs := make([]error, len(keys))
	ks := preparePrivates(keys, errs)
	in := make([]*big.Int, len(keys))
	for i := range keys {
		if errs[i] != nil {
			continue
		}
		pub := ks[i].k.pub
		if check != nil {
			if errs[i] = check(i, pub); errs[i] != nil {
				continue
			}
		}
		in[i], errs[i] = parseInput(pub, ciphertexts[i], ErrDecryption)
	}
	return ks, e.private(ks, in, errs), errs
}

// oaepFits reports ErrDecryption when no OAEP message fits pub's modulus
// with hash.
func oaepFits(pub *pubKey, hash crypto.Hash) error {
	if oaepMaxMessage(modBytes(pub), hash.Size()) < 0 {
		return ErrDecryption
	}
	return nil
}

// oaepOutput decodes the OAEP message in the decrypted value m (which it
// wipes).
func oaepOutput(pub *pubKey, m *big.Int, h, mgf hash.Hash, label []byte) ([]byte, error) {
	em := m.FillBytes(make([]byte, modBytes(pub)))
	clear(m.Bits())
	defer clear(em)
	valid, start := oaepUnpad(h, mgf, em, label)
	if valid != 1 {
		return nil, ErrDecryption
	}
	return bytes.Clone(em[start:]), nil
}

// pkcs1v15Output decodes the PKCS #1 v1.5 message in the decrypted value m
// (which it wipes).
func pkcs1v15Output(pub *pubKey, m *big.Int) ([]byte, error) {
	em := m.FillBytes(make([]byte, modBytes(pub)))
	clear(m.Bits())
	defer clear(em)
	valid, start := unpadPKCS1v15(em)
	if valid != 1 {
		return nil, ErrDecryption
	}
	return bytes.Clone(em[start:]), nil
}

// sessionKeyOutput copies the PKCS #1 v1.5 message in m into key when it
// is valid and len(key) bytes long, in constant time, and wipes m.
func sessionKeyOutput(pub *pubKey, m *big.Int, key []byte) {
	em := m.FillBytes(make([]byte, modBytes(pub)))
	clear(m.Bits())
	sessionKeyPKCS1v15(em, key)
	clear(em)
}
