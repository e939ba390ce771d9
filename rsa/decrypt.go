package rsa

import (
	"bytes"
	"crypto"
	stdrsa "crypto/rsa"
	"hash"
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
	hs, mgfs := newHashPool(hash), newHashPool(mgfHash)
	return e.decrypt(keys, ciphertexts, func(_ int, pub *publicKey) error { return oaepFits(pub, hash) }, func(_ int, em []byte) ([]byte, error) {
		h, mgf := hs.get(), mgfs.get()
		defer hs.Put(h)
		defer mgfs.Put(mgf)
		return oaepOutput(em, h, mgf, label)
	})
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
	return e.decrypt(keys, ciphertexts, nil, func(_ int, em []byte) ([]byte, error) { return pkcs1v15Output(em) })
}

// DecryptPKCS1v15SessionKey decrypts each ciphertexts[i] with keys[i]
// using RSAES-PKCS1-v1_5 and, when the padding is valid and the message
// exactly len(sessionKeys[i]) bytes long, copies the message into
// sessionKeys[i]; otherwise sessionKeys[i] keeps its content. This is
// crypto/rsa.DecryptPKCS1v15SessionKey: fill each session key with random
// bytes first, and nothing about the padding leaks, neither through an
// error nor through timing. Errors report only public conditions (a bad
// key, a ciphertext of the wrong length or not below the modulus, a
// session key too long for the modulus). A ciphertext shorter than the
// modulus is an error (see Engine).
func (e *Engine) DecryptPKCS1v15SessionKey(keys []*stdrsa.PrivateKey, ciphertexts, sessionKeys [][]byte) error {
	if err := shapeError([]string{"keys", "ciphertexts", "session keys"}, len(keys), len(ciphertexts), len(sessionKeys)); err != nil {
		return err
	}
	_, err := e.decrypt(keys, ciphertexts, func(i int, pub *publicKey) error {
		if modBytes(pub) < len(sessionKeys[i])+11 {
			return ErrDecryption
		}
		return nil
	}, func(i int, em []byte) ([]byte, error) {
		sessionKeyOutput(em, sessionKeys[i])
		return nil, nil
	})
	return err
}

// decrypt prepares the keys, checks the ciphertexts (and applies check,
// when set, to each key), runs the private operation and decodes each
// decrypted value em (the modulus's size, in scratch memory that decode
// wipes, as the engine does after it) with decode, whose results it
// returns (nil where the element failed). Decoding runs in the engine's
// pipeline, next to the device work of other batches.
func (e *Engine) decrypt(keys []*stdrsa.PrivateKey, ciphertexts [][]byte, check func(i int, pub *publicKey) error, decode func(i int, em []byte) ([]byte, error)) ([][]byte, error) {
	errs := make([]error, len(keys))
	ks := preparePrivates(keys, errs)
	for i := range keys {
		if errs[i] != nil {
			continue
		}
		pub := ks[i].pub
		if check != nil {
			if errs[i] = check(i, pub); errs[i] != nil {
				continue
			}
		}
		errs[i] = checkInput(pub, ciphertexts[i], ErrDecryption)
	}
	out := make([][]byte, len(keys))
	return e.private(&call[*privateKey]{keys: ks, errs: errs, out: out,
		input: inputs(ciphertexts),
		output: func(i int, em []byte) (err error) {
			out[i], err = decode(i, em)
			return err
		}})
}

// oaepFits reports ErrDecryption when no OAEP message fits pub's modulus
// with hash.
func oaepFits(pub *publicKey, hash crypto.Hash) error {
	if oaepMaxMessage(modBytes(pub), hash.Size()) < 0 {
		return ErrDecryption
	}
	return nil
}

// oaepOutput decodes the OAEP message in the decrypted value em (which
// it wipes).
func oaepOutput(em []byte, h, mgf hash.Hash, label []byte) ([]byte, error) {
	defer clear(em)
	valid, start := oaepUnpad(h, mgf, em, label)
	if valid != 1 {
		return nil, ErrDecryption
	}
	return bytes.Clone(em[start:]), nil
}

// pkcs1v15Output decodes the PKCS #1 v1.5 message in the decrypted value
// em (which it wipes).
func pkcs1v15Output(em []byte) ([]byte, error) {
	defer clear(em)
	valid, start := unpadPKCS1v15(em)
	if valid != 1 {
		return nil, ErrDecryption
	}
	return bytes.Clone(em[start:]), nil
}

// sessionKeyOutput copies the PKCS #1 v1.5 message in em into key when it
// is valid and len(key) bytes long, in constant time, and wipes em.
func sessionKeyOutput(em, key []byte) {
	sessionKeyPKCS1v15(em, key)
	clear(em)
}
