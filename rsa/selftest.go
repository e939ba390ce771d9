package rsa

import (
	"bytes"
	"crypto"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	_ "embed"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"

	"github.com/gpucrypto/gpucrypto/batch"
)

// selfTestKeyPEM is a 2048-bit test key, public and used for nothing but
// the self-test.
//
//go:embed selftest_2048.pem
var selfTestKeyPEM []byte

// SelfTest checks e with known answers: PKCS #1 v1.5 signatures of fixed
// digests, byte for byte against crypto/rsa, the same signatures verified
// by e, and an OAEP round trip. A device engine must answer from the
// device: while the self-test runs, e's calls are routed to the device
// (SetRoute: call it before e serves others), and a CPU fallback during
// the self-test is an error.
func SelfTest(e *Engine) error { return e.core.SelfTest(func() error { return selfTest(e) }) }

// selfTest is SelfTest's test.
func selfTest(e *Engine) error {
	block, _ := pem.Decode(selfTestKeyPEM)
	if block == nil {
		return errors.New("rsa: self-test key: no PEM block")
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		return fmt.Errorf("rsa: self-test key: %w", err)
	}
	if e.Device() != nil {
		defer e.SetRoute(e.core.Route())
		e.SetRoute(batch.RouteDevice)
	}
	before := e.core.SelfTestStats().Fallbacks
	const n = 33
	keys := make([]*stdrsa.PrivateKey, n)
	pubs := make([]*stdrsa.PublicKey, n)
	digests := make([][]byte, n)
	for i := range n {
		d := sha256.Sum256([]byte{byte(i)})
		keys[i], pubs[i], digests[i] = key, &key.PublicKey, d[:]
	}
	sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
	if err != nil {
		return fmt.Errorf("rsa: self-test signatures: %w", err)
	}
	for i := range n {
		want, err := stdrsa.SignPKCS1v15(nil, key, crypto.SHA256, digests[i])
		if err != nil {
			return err
		}
		if !bytes.Equal(want, sigs[i]) {
			return fmt.Errorf("rsa: self-test signature %d differs from crypto/rsa's", i)
		}
	}
	valid, err := e.VerifyPKCS1v15(pubs, crypto.SHA256, digests, sigs)
	if err != nil {
		return fmt.Errorf("rsa: self-test verification: %w", err)
	}
	if i := slices.Index(valid, false); i >= 0 {
		return fmt.Errorf("rsa: self-test verification: signature %d refused", i)
	}
	cts, err := e.EncryptOAEP(crypto.SHA256, nil, pubs, digests, nil)
	if err != nil {
		return fmt.Errorf("rsa: self-test encryption: %w", err)
	}
	pts, err := e.DecryptOAEP(crypto.SHA256, keys, cts, nil)
	if err != nil {
		return fmt.Errorf("rsa: self-test decryption: %w", err)
	}
	for i := range n {
		if !bytes.Equal(pts[i], digests[i]) {
			return fmt.Errorf("rsa: self-test decryption %d: wrong plaintext", i)
		}
	}
	if e.core.SelfTestStats().Fallbacks != before {
		return errors.New("rsa: self-test: the device failed and the CPU answered")
	}
	return nil
}
