package ecdsa

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
)

// SelfTest checks e with answers known by construction: signatures that
// crypto/ecdsa makes with a fresh key over hashes of 32, 64 and 20 bytes
// must verify, in both forms, and copies with one bit changed in r, in s
// or in the hash must not. A device engine must answer from the device:
// while the self-test runs, e's calls are routed to the device (SetRoute:
// call it before e serves others), and a CPU fallback is an error.
func SelfTest(e *Engine) error {
	if e.Device() != nil {
		defer e.SetRoute(e.core.Route())
		e.SetRoute(batch.RouteDevice)
	}
	before := e.Stats().Fallbacks
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
	if e.Stats().Fallbacks != before {
		return errors.New("ecdsa: self-test: the device failed and the CPU answered")
	}
	return nil
}

// encodeASN1 is the DER signature of r ‖ s (32 bytes each).
func encodeASN1(rs []byte) []byte {
	var b []byte
	integer := func(v []byte) {
		for len(v) > 1 && v[0] == 0 {
			v = v[1:]
		}
		if v[0]&0x80 != 0 {
			v = append([]byte{0}, v...)
		}
		b = append(b, 2, byte(len(v)))
		b = append(b, v...)
	}
	integer(rs[:32])
	integer(rs[32:])
	return append([]byte{0x30, byte(len(b))}, b...)
}
