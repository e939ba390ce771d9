package rsa

import (
	"crypto"
	stdrsa "crypto/rsa"
	"fmt"
	"io"

	"github.com/gpucrypto/gpucrypto/batch"
)

// EncryptOAEP encrypts each msgs[i] to pubs[i] with RSAES-OAEP, hash used
// for the label and for MGF1, as crypto/rsa.EncryptOAEP does. Seeds are
// read from random (nil: crypto/rand.Reader) in element order. A message
// longer than k − 2·hLen − 2 bytes (k the modulus size) gives
// ErrMessageTooLong for its element.
func (e *Engine) EncryptOAEP(hash crypto.Hash, random io.Reader, pubs []*stdrsa.PublicKey, msgs [][]byte, label []byte) ([][]byte, error) {
	if err := shapeError([]string{"keys", "messages"}, len(pubs), len(msgs)); err != nil {
		return nil, err
	}
	if err := checkHash(hash); err != nil {
		return nil, err
	}
	random = orDefault(random)
	hLen := hash.Size()
	errs := make([]error, len(pubs))
	ks := preparePublics(pubs, errs)
	count := 0
	for i := range pubs {
		if errs[i] == nil && len(msgs[i]) > oaepMaxMessage(modBytes(ks[i]), hLen) {
			errs[i] = ErrMessageTooLong
		}
		if errs[i] == nil {
			count++
		}
	}
	// Seeds, read in one go and in element order.
	buf := make([]byte, count*hLen)
	if _, err := io.ReadFull(random, buf); err != nil {
		return nil, fmt.Errorf("rsa: reading OAEP seeds: %w", err)
	}
	seeds := make([][]byte, len(pubs))
	for i := range pubs {
		if errs[i] == nil {
			seeds[i], buf = buf[:hLen:hLen], buf[hLen:]
		}
	}
	in := make([][]byte, len(pubs))
	batch.Parallel(len(pubs), 64, func(lo, hi int) {
		h, mgf := hash.New(), hash.New()
		for i := lo; i < hi; i++ {
			if errs[i] == nil {
				in[i] = oaepPad(h, mgf, msgs[i], label, seeds[i], modBytes(ks[i])) // begins with 0: below n
			}
		}
	})
	return e.ciphertexts(ks, in, errs)
}

// EncryptPKCS1v15 encrypts each msgs[i] to pubs[i] with RSAES-PKCS1-v1_5,
// as crypto/rsa.EncryptPKCS1v15 does; padding is read from random (nil:
// crypto/rand.Reader). Prefer OAEP for new protocols. A message longer than
// k − 11 bytes gives ErrMessageTooLong for its element.
func (e *Engine) EncryptPKCS1v15(random io.Reader, pubs []*stdrsa.PublicKey, msgs [][]byte) ([][]byte, error) {
	if err := shapeError([]string{"keys", "messages"}, len(pubs), len(msgs)); err != nil {
		return nil, err
	}
	random = orDefault(random)
	errs := make([]error, len(pubs))
	ks := preparePublics(pubs, errs)
	in := make([][]byte, len(pubs))
	for i := range pubs {
		if errs[i] != nil {
			continue
		}
		k := modBytes(ks[i])
		if len(msgs[i]) > k-11 {
			errs[i] = ErrMessageTooLong
			continue
		}
		ps := make([]byte, k-len(msgs[i])-3)
		if err := readNonZero(random, ps); err != nil {
			return nil, fmt.Errorf("rsa: reading PKCS #1 v1.5 padding: %w", err)
		}
		in[i] = emePKCS1v15(msgs[i], ps, k) // begins with 0: below n
	}
	return e.ciphertexts(ks, in, errs)
}

// ciphertexts encrypts the padded messages in (which it wipes) and returns
// the ciphertexts, each the modulus's size (nil where errs says the
// element failed).
func (e *Engine) ciphertexts(ks []*publicKey, in [][]byte, errs []error) ([][]byte, error) {
	defer func() {
		for _, m := range in {
			clear(m)
		}
	}()
	return e.public(&call[*publicKey]{keys: ks, errs: errs, out: make([][]byte, len(in)),
		input: inputs(in)})
}
