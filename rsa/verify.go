package rsa

import (
	"bytes"
	"crypto"
	stdrsa "crypto/rsa"

	"github.com/gpucrypto/gpucrypto/batch"
)

// VerifyPKCS1v15 checks each RSASSA-PKCS1-v1_5 signature sigs[i] of
// digests[i] under pubs[i], as crypto/rsa.VerifyPKCS1v15 does. It returns
// nil when all are valid, else a *batch.Error whose failed entries wrap
// ErrVerification (or say what else is wrong: a bad key, a digest of the
// wrong length).
func (e *Engine) VerifyPKCS1v15(pubs []*stdrsa.PublicKey, hash crypto.Hash, digests, sigs [][]byte) error {
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
	m := valueSlab(ks, errs)
	e.public(ks, sigs, m, errs)
	batch.Parallel(len(pubs), 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if errs[i] != nil {
				continue
			}
			want, err := emsaPKCS1v15(hash, prefix, digests[i], modBytes(ks[i]))
			if err != nil || !bytes.Equal(m[i], want) {
				errs[i] = ErrVerification
			}
		}
	})
	return batch.Collect(errs)
}

// VerifyPSS checks each RSASSA-PSS signature sigs[i] of digests[i] under
// pubs[i], as crypto/rsa.VerifyPSS does: the salt must be
// opts.SaltLength bytes long, any length with nil opts or
// PSSSaltLengthAuto, the hash length with PSSSaltLengthEqualsHash. Errors
// as VerifyPKCS1v15.
func (e *Engine) VerifyPSS(pubs []*stdrsa.PublicKey, hash crypto.Hash, digests, sigs [][]byte, opts *stdrsa.PSSOptions) error {
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
	m := valueSlab(ks, errs)
	e.public(ks, sigs, m, errs)
	batch.Parallel(len(pubs), 64, func(lo, hi int) {
		h := hash.New()
		for i := lo; i < hi; i++ {
			if errs[i] != nil {
				continue
			}
			em := m[i]
			emBits := ks[i].bits - 1
			if emLen := (emBits + 7) / 8; emLen < len(em) { // bits(n) ≡ 1 mod 8
				if em[0] != 0 {
					errs[i] = ErrVerification
					continue
				}
				em = em[1:]
			}
			errs[i] = emsaPSSVerify(h, digests[i], em, emBits, sLen)
		}
	})
	return batch.Collect(errs)
}
