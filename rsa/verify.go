package rsa

import (
	"bytes"
	"crypto"
	stdrsa "crypto/rsa"
	"errors"

	"github.com/gpucrypto/gpucrypto/batch"
)

// VerifyPKCS1v15 checks each RSASSA-PKCS1-v1_5 signature sigs[i] of
// digests[i] under pubs[i], as crypto/rsa.VerifyPKCS1v15 does, and returns
// the verdicts as ed25519's and ecdsa's Verify do: valid[i] is true where
// crypto/rsa returns nil, false where it returns ErrVerification (a
// signature that does not verify, or is not even of the key's size); an
// element with anything else wrong (a bad key, a digest of the wrong
// length) is false with its error in a *batch.Error. An error that is not
// a *batch.Error fails the whole call (mismatched lengths, a hash that is
// not available).
func (e *Engine) VerifyPKCS1v15(pubs []*stdrsa.PublicKey, hash crypto.Hash, digests, sigs [][]byte) ([]bool, error) {
	return verdicts(len(pubs), e.verifyPKCS1v15(pubs, hash, digests, sigs))
}

// VerifyPSS checks each RSASSA-PSS signature sigs[i] of digests[i] under
// pubs[i], as crypto/rsa.VerifyPSS does: the salt must be
// opts.SaltLength bytes long, any length with nil opts or
// PSSSaltLengthAuto, the hash length with PSSSaltLengthEqualsHash.
// Verdicts and errors as VerifyPKCS1v15.
func (e *Engine) VerifyPSS(pubs []*stdrsa.PublicKey, hash crypto.Hash, digests, sigs [][]byte, opts *stdrsa.PSSOptions) ([]bool, error) {
	return verdicts(len(pubs), e.verifyPSS(pubs, hash, digests, sigs, opts))
}

// verdicts turns the errors of a verification of n signatures (nil, or a
// *batch.Error whose entries wrap ErrVerification or say what else is
// wrong) into verdicts and the errors that are not a verdict.
func verdicts(n int, err error) ([]bool, error) {
	var per *batch.Error
	if err != nil && !errors.As(err, &per) {
		return nil, err
	}
	valid := make([]bool, n)
	errs := make([]error, n)
	for i := range valid {
		var e error
		if per != nil {
			e = per.Errs[i]
		}
		switch {
		case e == nil:
			valid[i] = true
		case !errors.Is(e, ErrVerification):
			errs[i] = e
		}
	}
	return valid, batch.Collect(errs)
}

// verifyPKCS1v15 is VerifyPKCS1v15 with crypto/rsa's errors: nil when
// every signature is valid, else a *batch.Error whose failed entries wrap
// ErrVerification or say what else is wrong.
func (e *Engine) verifyPKCS1v15(pubs []*stdrsa.PublicKey, hash crypto.Hash, digests, sigs [][]byte) error {
	if err := shapeError([]string{"keys", "digests", "signatures"}, len(pubs), len(digests), len(sigs)); err != nil {
		return err
	}
	prefix, err := pkcs1v15Prefix(hash)
	if err != nil {
		return err
	}
	errs := make([]error, len(pubs))
	ks := preparePublics(pubs, errs)
	for i := range pubs {
		if errs[i] != nil {
			continue
		}
		if hash != 0 && len(digests[i]) != hash.Size() {
			errs[i] = errNotHashed
			continue
		}
		errs[i] = checkInput(ks[i], sigs[i], ErrVerification)
	}
	return e.verify(ks, sigs, errs, func(i int, m []byte) error {
		want, err := emsaPKCS1v15(hash, prefix, digests[i], len(m))
		if err != nil || !bytes.Equal(m, want) {
			return ErrVerification
		}
		return nil
	})
}

// verifyPSS is VerifyPSS with crypto/rsa's errors, as verifyPKCS1v15.
func (e *Engine) verifyPSS(pubs []*stdrsa.PublicKey, hash crypto.Hash, digests, sigs [][]byte, opts *stdrsa.PSSOptions) error {
	if err := shapeError([]string{"keys", "digests", "signatures"}, len(pubs), len(digests), len(sigs)); err != nil {
		return err
	}
	if err := checkHash(hash); err != nil {
		return err
	}
	sLen, err := pssVerifySalt(opts, hash.Size())
	if err != nil {
		return err
	}
	errs := make([]error, len(pubs))
	ks := preparePublics(pubs, errs)
	for i := range pubs {
		if errs[i] == nil {
			errs[i] = checkInput(ks[i], sigs[i], ErrVerification)
		}
	}
	hashes := newHashPool(hash)
	return e.verify(ks, sigs, errs, func(i int, em []byte) error {
		emBits := ks[i].bits - 1
		if emLen := (emBits + 7) / 8; emLen < len(em) { // bits(n) ≡ 1 mod 8
			if em[0] != 0 {
				return ErrVerification
			}
			em = em[1:]
		}
		h := hashes.get()
		defer hashes.Put(h)
		return emsaPSSVerify(h, digests[i], em, emBits, sLen)
	})
}

// verify runs the public operation on the signatures sigs (checked) and
// checks each result m (the modulus's size, in scratch memory) with check,
// in the engine's pipeline; the elements' errors are in errs.
func (e *Engine) verify(ks []*publicKey, sigs [][]byte, errs []error, check func(i int, m []byte) error) error {
	_, err := e.public(&call[*publicKey]{keys: ks, errs: errs, output: check,
		input: inputs(sigs)})
	return err
}
