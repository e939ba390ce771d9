package rsa

import (
	"context"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"errors"
	"fmt"
	"io"
)

// Signer is a crypto.Signer and crypto.Decrypter for one RSA private key
// whose private-key operations are batched by a Server with those of other
// goroutines. It behaves like the *rsa.PrivateKey itself, so it can stand
// wherever one is used: tls.Certificate{PrivateKey: signer}, x509
// certificate signing, and so on. Server.Signer makes one.
type Signer struct {
	s        *Server
	key      *stdrsa.PrivateKey
	prepared *privateKey
}

var (
	_ crypto.Signer    = (*Signer)(nil)
	_ crypto.Decrypter = (*Signer)(nil)
)

// Public returns the key's *rsa.PublicKey.
func (s *Signer) Public() crypto.PublicKey { return &s.key.PublicKey }

// Sign is SignContext with context.Background(): it signs digest as
// crypto/rsa.PrivateKey.Sign does. With *rsa.PSSOptions it makes an
// RSASSA-PSS signature (salt from random); with any other opts an
// RSASSA-PKCS1-v1_5 signature with opts.HashFunc().
func (s *Signer) Sign(random io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	return s.SignContext(context.Background(), random, digest, opts)
}

// SignContext is Sign; ctx bounds the wait for the batch (a nil ctx is
// an error).
func (s *Signer) SignContext(ctx context.Context, random io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	pub := s.prepared.pub
	x := make([]byte, modBytes(pub)) // the encoded message
	switch o := opts.(type) {
	case nil:
		return nil, errors.New("rsa: Sign needs options (a crypto.Hash or *rsa.PSSOptions)")
	case *stdrsa.PSSOptions:
		if o == nil {
			return nil, errors.New("rsa: nil *rsa.PSSOptions")
		}
		hash := o.Hash
		if err := checkHash(hash); err != nil {
			return nil, err
		}
		sLen, err := pssSaltFor(pub, hash.Size(), o)
		if err != nil {
			return nil, err
		}
		salt := make([]byte, sLen)
		if _, err := io.ReadFull(orDefault(random), salt); err != nil {
			return nil, fmt.Errorf("rsa: reading the PSS salt: %w", err)
		}
		if err := pssSignInput(x, pub, hash.New(), digest, salt); err != nil {
			return nil, err
		}
	default:
		hash := opts.HashFunc()
		prefix, err := pkcs1v15Prefix(hash)
		if err != nil {
			return nil, err
		}
		if err := emsaPKCS1v15Into(x, hash, prefix, digest); err != nil {
			return nil, err
		}
	}
	return s.s.private(ctx, s.prepared, x)
}

// Decrypt is DecryptContext with context.Background(): it decrypts
// ciphertext as crypto/rsa.PrivateKey.Decrypt does. With nil opts or
// *rsa.PKCS1v15DecryptOptions it uses RSAES-PKCS1-v1_5; a SessionKeyLen
// above zero selects the session-key variant (a random key of that length,
// replaced by the message when the padding is valid and the lengths match:
// no padding oracle, as TLS's RSA key exchange needs). With
// *rsa.OAEPOptions it uses RSAES-OAEP with opts.Hash, opts.MGFHash (0: the
// same) and opts.Label.
func (s *Signer) Decrypt(random io.Reader, ciphertext []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	return s.DecryptContext(context.Background(), random, ciphertext, opts)
}

// DecryptContext is Decrypt; ctx bounds the wait for the batch (a nil
// ctx is an error).
func (s *Signer) DecryptContext(ctx context.Context, random io.Reader, ciphertext []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	pub := s.prepared.pub
	switch o := opts.(type) {
	case nil:
	case *stdrsa.PKCS1v15DecryptOptions:
		if o != nil && o.SessionKeyLen > 0 {
			return s.sessionKey(ctx, random, ciphertext, o.SessionKeyLen)
		}
	case *stdrsa.OAEPOptions:
		if o == nil {
			return nil, errors.New("rsa: nil *rsa.OAEPOptions")
		}
		hash, mgf := o.Hash, o.MGFHash
		if mgf == 0 {
			mgf = hash
		}
		if err := checkHash(hash); err != nil {
			return nil, err
		}
		if err := checkHash(mgf); err != nil {
			return nil, err
		}
		if err := oaepFits(pub, hash); err != nil {
			return nil, err
		}
		m, err := s.decrypt(ctx, ciphertext)
		if err != nil {
			return nil, err
		}
		return oaepOutput(m, hash.New(), mgf.New(), o.Label)
	default:
		return nil, fmt.Errorf("rsa: invalid options for Decrypt: %T", opts)
	}
	m, err := s.decrypt(ctx, ciphertext)
	if err != nil {
		return nil, err
	}
	return pkcs1v15Output(m)
}

func (s *Signer) sessionKey(ctx context.Context, random io.Reader, ciphertext []byte, size int) ([]byte, error) {
	key := make([]byte, size)
	if _, err := io.ReadFull(orDefault(random), key); err != nil {
		return nil, err
	}
	pub := s.prepared.pub
	if modBytes(pub) < size+11 {
		return nil, ErrDecryption
	}
	m, err := s.decrypt(ctx, ciphertext)
	if err != nil {
		return nil, err
	}
	sessionKeyOutput(m, key)
	return key, nil
}

// decrypt returns the decrypted value of ciphertext, the modulus's size
// (the callers decode and wipe it).
func (s *Signer) decrypt(ctx context.Context, ciphertext []byte) ([]byte, error) {
	if err := checkInput(s.prepared.pub, ciphertext, ErrDecryption); err != nil {
		return nil, err
	}
	return s.s.private(ctx, s.prepared, ciphertext)
}

func orDefault(r io.Reader) io.Reader {
	if r == nil {
		return rand.Reader
	}
	return r
}
