package main

import (
	"crypto"
	stdaes "crypto/aes"
	"crypto/cipher"
	stdecdh "crypto/ecdh"
	stdecdsa "crypto/ecdsa"
	stded25519 "crypto/ed25519"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"fmt"
)

// The operations of Go's crypto/* that `gpucrypto bench server` measures
// beside each Server, on the same inputs and with the same key shared by
// all goroutines, as the Servers' callers share theirs. Each is a
// newGoCaller (serverBench): it makes one goroutine's operation.

// goRSASign: crypto/rsa's PKCS #1 v1.5 signature of a SHA-256 digest.
func goRSASign(key *stdrsa.PrivateKey, digest []byte) func() func() error {
	return sameGoCaller(func() error {
		_, err := stdrsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest)
		return err
	})
}

// goECDH: crypto/ecdh's shared secret of priv with peer, the private key
// decoded once (as a server holds it) and the peer's public key decoded in
// each operation (as a server receives it), as the Servers take it.
func goECDH(curve stdecdh.Curve, priv, peer []byte) (func() func() error, error) {
	key, err := curve.NewPrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("bench server: crypto/ecdh: %w", err)
	}
	if _, err := curve.NewPublicKey(peer); err != nil {
		return nil, fmt.Errorf("bench server: crypto/ecdh: %w", err)
	}
	return sameGoCaller(func() error {
		pub, err := curve.NewPublicKey(peer)
		if err != nil {
			return err
		}
		_, err = key.ECDH(pub)
		return err
	}), nil
}

// stdECDH is crypto/ecdh's shared secret of priv with peer (the
// reference of the ECDH operations' check).
func stdECDH(curve stdecdh.Curve, priv, peer []byte) ([]byte, error) {
	key, err := curve.NewPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pub, err := curve.NewPublicKey(peer)
	if err != nil {
		return nil, err
	}
	return key.ECDH(pub)
}

// goEd25519Sign: crypto/ed25519's signature of msg.
func goEd25519Sign(key stded25519.PrivateKey, msg []byte) func() func() error {
	return sameGoCaller(func() error {
		stded25519.Sign(key, msg)
		return nil
	})
}

// goEd25519Verify: crypto/ed25519's verification of a valid signature.
func goEd25519Verify(pub stded25519.PublicKey, msg, sig []byte) func() func() error {
	return sameGoCaller(func() error {
		if !stded25519.Verify(pub, msg, sig) {
			return fmt.Errorf("crypto/ed25519: %w", errRejected)
		}
		return nil
	})
}

// goECDSASign: crypto/ecdsa's signature of hash hedged from crypto/rand
// (SignASN1).
func goECDSASign(key *stdecdsa.PrivateKey, hash []byte) func() func() error {
	return sameGoCaller(func() error {
		_, err := stdecdsa.SignASN1(rand.Reader, key, hash)
		return err
	})
}

// goECDSASignDeterministic: crypto/ecdsa's RFC 6979 signature of hash
// (PrivateKey.Sign with a nil source of randomness).
func goECDSASignDeterministic(key *stdecdsa.PrivateKey, hash []byte) func() func() error {
	return sameGoCaller(func() error {
		_, err := key.Sign(nil, hash, crypto.SHA256)
		return err
	})
}

// goECDSAVerify: crypto/ecdsa's verification of a valid DER signature.
func goECDSAVerify(pub *stdecdsa.PublicKey, hash, sig []byte) func() func() error {
	return sameGoCaller(func() error {
		if !stdecdsa.VerifyASN1(pub, hash, sig) {
			return fmt.Errorf("crypto/ecdsa: %w", errRejected)
		}
		return nil
	})
}

// goAESGCMSeal: crypto/cipher's AES-GCM Seal, each goroutine with its own
// cipher.AEAD of the one key (as each connection of a server has its
// own) and its own output buffer.
func goAESGCMSeal(key, nonce, plaintext []byte) (func() func() error, error) {
	if _, err := newGoGCM(key); err != nil {
		return nil, err
	}
	return func() func() error {
		gcm, _ := newGoGCM(key) // made above with the same key
		dst := make([]byte, 0, len(plaintext)+gcm.Overhead())
		return func() error {
			gcm.Seal(dst, nonce, plaintext, nil)
			return nil
		}
	}, nil
}

// newGoGCM is crypto/cipher's AES-GCM under key.
func newGoGCM(key []byte) (cipher.AEAD, error) {
	block, err := stdaes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("bench server: crypto/aes: %w", err)
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("bench server: crypto/cipher: %w", err)
	}
	return gcm, nil
}
