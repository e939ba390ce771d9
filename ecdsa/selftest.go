package ecdsa

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"

	"github.com/gpucrypto/gpucrypto/batch"
)

// SelfTest checks e with known answers: signatures that crypto/ecdsa
// makes with a fresh key over hashes of 32, 64 and 20 bytes must verify,
// in both forms, and copies with one bit changed in r, in s or in the
// hash must not; and signatures with RFC 6979's deterministic nonces must
// be the RFC's; and RFC 5903's P-256 Diffie-Hellman (selfTestECDH). A
// device engine must answer from the device:
// while the self-test runs, e's calls are routed to the device (SetRoute:
// call it before e serves others), and a CPU fallback is an error, as is
// a deterministic signature that the device's fault check refused (its
// second computation of R disagrees with the first: a fault, or a check
// that cannot pass on this device).
func SelfTest(e *Engine) error { return e.core.SelfTest(func() error { return selfTest(e) }) }

// selfTest is SelfTest's test.
func selfTest(e *Engine) error {
	if e.Device() != nil {
		defer e.SetRoute(e.core.Route())
		e.SetRoute(batch.RouteDevice)
	}
	before := e.core.SelfTestStats().Fallbacks
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("ecdsa: self-test key: %w", err)
	}
	h256 := sha256.Sum256([]byte("gpucrypto"))
	h512 := sha512.Sum512([]byte("gpucrypto"))
	var pubs []*ecdsa.PublicKey
	var hashes, der, p1363 [][]byte
	var want []bool
	for _, h := range [][]byte{h256[:], h512[:], h256[:20]} {
		sig, err := ecdsa.SignASN1(rand.Reader, key, h)
		if err != nil {
			return fmt.Errorf("ecdsa: self-test signature: %w", err)
		}
		r, s, _ := parseASN1(sig)
		rb, _ := scalar32(r, groupOrder)
		sb, _ := scalar32(s, groupOrder)
		raw := append(rb[:], sb[:]...)
		badR, badS, badHash := append([]byte(nil), raw...), append([]byte(nil), raw...), append([]byte(nil), h...)
		badR[31] ^= 1
		badS[63] ^= 2
		badHash[3] ^= 4
		pubs = append(pubs, &key.PublicKey, &key.PublicKey, &key.PublicKey, &key.PublicKey)
		hashes = append(hashes, h, h, h, badHash)
		der = append(der, sig, encodeASN1(badR), encodeASN1(badS), sig)
		p1363 = append(p1363, raw, badR, badS, raw)
		want = append(want, true, false, false, false)
	}
	for _, f := range []struct {
		name string
		sigs [][]byte
		call func(pubs []*ecdsa.PublicKey, hashes, sigs [][]byte) ([]bool, error)
	}{{"VerifyASN1", der, e.VerifyASN1}, {"VerifyP1363", p1363, e.VerifyP1363}} {
		got, err := f.call(pubs, hashes, f.sigs)
		if err != nil {
			return fmt.Errorf("ecdsa: self-test %s: %w", f.name, err)
		}
		for i := range want {
			if got[i] != want[i] {
				return fmt.Errorf("ecdsa: self-test %s: element %d (key %x, %x; hash %x; signature %x): %v, want %v",
					f.name, i, key.X, key.Y, hashes[i], f.sigs[i], got[i], want[i])
			}
		}
	}
	if err := selfTestSign(e); err != nil {
		return err
	}
	if err := selfTestECDH(e); err != nil {
		return err
	}
	if e.core.SelfTestStats().Fallbacks != before {
		return errors.New("ecdsa: self-test: the device failed and the CPU answered")
	}
	return nil
}

// selfTestSign signs RFC 6979 §A.2.5's P-256 SHA-256 messages ("sample",
// "test", and one whose nonce generation loops) with the RFC's key and
// deterministic nonces, which must give the RFC's (r, s) byte for byte.
func selfTestSign(e *Engine) error {
	hexInt := func(s string) *big.Int { v, _ := new(big.Int).SetString(s, 16); return v }
	key := &ecdsa.PrivateKey{
		PublicKey: ecdsa.PublicKey{Curve: elliptic.P256(),
			X: hexInt("60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"),
			Y: hexInt("7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299")},
		D: hexInt("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"),
	}
	cases := []struct{ msg, rs string }{
		{"wv[vnX", "efd9073b652e76da1b5a019c0e4a2e3fa529b035a6abb91ef67f0ed7a1f212343db4706c9d9f4a4fe13bb5e08ef0fab53a57dbab2061c83a35fa411c68d2ba33"},
		{"sample", "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"},
		{"test", "f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083"},
	}
	keys := make([]*ecdsa.PrivateKey, len(cases))
	hashes := make([][]byte, len(cases))
	for i, c := range cases {
		h := sha256.Sum256([]byte(c.msg))
		keys[i], hashes[i] = key, h[:]
	}
	faults := e.core.SelfTestStats().Faults
	sigs, errs, err := e.signBatch(P1363, true, keys, hashes, make([]byte, 32*len(keys)))
	if err != nil {
		return fmt.Errorf("ecdsa: self-test signatures: %w", err)
	}
	if refused := e.core.SelfTestStats().Faults - faults; refused != 0 {
		return fmt.Errorf("ecdsa: self-test RFC 6979 signatures: the device's fault check refused %d of %d", refused, len(cases))
	}
	for i, c := range cases {
		if err := errs.Get(i); err != nil {
			return fmt.Errorf("ecdsa: self-test RFC 6979 %q: %w", c.msg, err)
		}
		if got := hex.EncodeToString(sigs[i]); got != c.rs {
			return fmt.Errorf("ecdsa: self-test RFC 6979 %q: signature %s, want %s", c.msg, got, c.rs)
		}
	}
	return nil
}

// selfTestECDH computes RFC 5903 §8.1's P-256 example: the public keys
// g^i and g^r of its two private keys, and the shared secret both ways,
// which must be the RFC's byte for byte; and the secret with a peer
// point off the curve (g^r with y + 1), which must fail its element. On a
// device, the kernels must answer every element but the one off the
// curve (those they do not answer, the CPU computes).
func selfTestECDH(e *Engine) error {
	unhex := func(s string) []byte { b, _ := hex.DecodeString(s); return b }
	i := unhex("c88f01f510d9ac3f70a292daa2316de544e9aab8afe84049c62a9c57862d1433")
	r := unhex("c6ef9c5d78ae012a011164acb397ce2088685d8f06bf9be0b283ab46476bee53")
	gi := unhex("04dad0b65394221cf9b051e1feca5787d098dfe637fc90b9ef945d0c3772581180" +
		"5271a0461cdb8252d61f1c456fa3e59ab1f45b33accf5f58389e0577b8990bb3")
	gr := unhex("04d12dfb5289c8d4f81208b70270398c342296970a0bccb74c736fc7554494bf63" +
		"56fbf3ca366cc23e8157854c13c58d6aac23f046ada30f8353e74f33039872ab")
	gir := unhex("d6840f6b42f6edafd13116e0e12565202fef8e9ece7dce03812464d04b9442de")
	offCurve := bytes.Clone(gr)
	offCurve[64]++ // y + 1: y ends in 0xab
	onDevice := e.Device() != nil
	pubs, err := e.ecdhBatch("ECDH P-256 public key", [][]byte{i, r}, nil)
	if err == nil {
		err = pubs.errs.Err()
	}
	switch {
	case err != nil:
		return fmt.Errorf("ecdsa: self-test ECDH public keys: %w", err)
	case onDevice && pubs.refused.Load() != 0:
		return errors.New("ecdsa: self-test ECDH public keys: the device did not answer")
	case !bytes.Equal(pubs.out.Get()[0], gi) || !bytes.Equal(pubs.out.Get()[1], gr):
		return fmt.Errorf("ecdsa: self-test ECDH public keys: %x, %x, want RFC 5903's %x, %x", pubs.out.Get()[0], pubs.out.Get()[1], gi, gr)
	}
	secrets, err := e.ecdhBatch("ECDH P-256 shared secret", [][]byte{i, r, i}, [][]byte{gr, gi, offCurve})
	switch {
	case err != nil:
		return fmt.Errorf("ecdsa: self-test ECDH: %w", err)
	case secrets.errs.Get(0) != nil || secrets.errs.Get(1) != nil || secrets.errs.Get(2) == nil:
		return fmt.Errorf("ecdsa: self-test ECDH: errors %v, want one for the point off the curve alone",
			[]error{secrets.errs.Get(0), secrets.errs.Get(1), secrets.errs.Get(2)})
	case onDevice && secrets.refused.Load() != 1:
		return fmt.Errorf("ecdsa: self-test ECDH: the device refused %d elements, want 1 (the point off the curve)", secrets.refused.Load())
	}
	for k := range 2 {
		if !bytes.Equal(secrets.out.Get()[k], gir) {
			return fmt.Errorf("ecdsa: self-test ECDH: shared secret %d is %x, want RFC 5903's %x", k, secrets.out.Get()[k], gir)
		}
	}
	return nil
}
