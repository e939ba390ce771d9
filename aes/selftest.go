package aes

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
)

// SelfTest checks e against known answers: FIPS-197 Appendix C (ECB,
// AES-128/192/256, both directions), SP 800-38A F.5.1 (CTR), a Wycheproof
// AES-GCM vector (seal and open, and a tampered tag refused), and CBC and
// XTS round trips. On a device engine every call runs on the device (the
// route is set to batch.RouteDevice for the test, then restored), and a
// call that fell back to the CPU makes the test fail: a self-test must
// test the device. On the CPU engine it tests the CPU code.
func SelfTest(e *Engine) error {
	defer e.core.SetRoute(e.core.Route())
	e.core.SetRoute(batch.RouteDevice)
	before := e.Stats().Fallbacks
	for _, v := range []struct{ key, plain, cipher string }{
		{"000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff", "69c4e0d86a7b0430d8cdb78070b4c55a"},
		{"000102030405060708090a0b0c0d0e0f1011121314151617", "00112233445566778899aabbccddeeff", "dda97ca4864cdfe06eaf70a0ec0d7191"},
		{"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "00112233445566778899aabbccddeeff", "8ea2b7ca516745bfeafc49904b496089"},
	} {
		k, err := NewKey(unhex(v.key))
		if err != nil {
			return err
		}
		got := make([]byte, 16)
		if err := e.EncryptBlocks(k, got, unhex(v.plain)); err != nil {
			return err
		}
		if hex.EncodeToString(got) != v.cipher {
			return fmt.Errorf("aes: self-test: FIPS-197 AES-%d encryption gave %x", 8*k.Size(), got)
		}
		if err := e.DecryptBlocks(k, got, got); err != nil {
			return err
		}
		if hex.EncodeToString(got) != v.plain {
			return fmt.Errorf("aes: self-test: FIPS-197 AES-%d decryption gave %x", 8*k.Size(), got)
		}
	}
	k, err := NewKey(unhex("2b7e151628aed2a6abf7158809cf4f3c"))
	if err != nil {
		return err
	}
	plain := unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
	got := make([]byte, len(plain))
	if err := e.XORKeyStream(k, unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"), got, plain); err != nil {
		return err
	}
	if hex.EncodeToString(got) != "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff" {
		return fmt.Errorf("aes: self-test: SP 800-38A CTR gave %x", got)
	}

	// Wycheproof aes_gcm_test.json, tcId 1.
	gk, err := NewKey(unhex("5b9604fe14eadba931b0ccf34843dab9"))
	if err != nil {
		return err
	}
	nonce := unhex("028318abc1824029138141a2")
	msg := unhex("001d0c231287c1182784554ca3a21908")
	want := unhex("26073cc1d851beff176384dc9896d5ff" + "0a3ea7a5487cb5f7d70fb6c58d038554")
	sealed, err := e.Seal([]Message{{Key: gk, Nonce: nonce, Data: msg}})
	if err != nil {
		return err
	}
	if !bytes.Equal(sealed[0], want) {
		return fmt.Errorf("aes: self-test: GCM seal gave %x", sealed[0])
	}
	tampered := append([]byte(nil), want...)
	tampered[len(tampered)-1] ^= 1
	opened, err := e.Open([]Message{{Key: gk, Nonce: nonce, Data: want}, {Key: gk, Nonce: nonce, Data: tampered}})
	if err == nil || opened[1] != nil || !bytes.Equal(opened[0], msg) {
		return fmt.Errorf("aes: self-test: GCM open: %v", err)
	}

	// CBC and XTS: a round trip through the device against each other.
	data := bytes.Repeat(unhex("00112233445566778899aabbccddeeff"), 37)
	cbc, err := e.EncryptCBC([]CBCMessage{{Key: k, IV: make([]byte, 16), Data: data}})
	if err != nil {
		return err
	}
	back, err := e.DecryptCBC([]CBCMessage{{Key: k, IV: make([]byte, 16), Data: cbc[0]}})
	if err != nil || !bytes.Equal(back[0], data) || bytes.Equal(cbc[0], data) {
		return fmt.Errorf("aes: self-test: CBC round trip failed (%v)", err)
	}
	xk, err := NewXTSKey(unhex("000102030405060708090a0b0c0d0e0f1f1e1d1c1b1a19181716151413121110"))
	if err != nil {
		return err
	}
	sector := data[:16*37-5]
	enc := make([]byte, len(sector))
	if err := e.EncryptSectors(xk, enc, sector, len(sector), 7); err != nil {
		return err
	}
	dec := make([]byte, len(sector))
	if err := e.DecryptSectors(xk, dec, enc, len(sector), 7); err != nil || !bytes.Equal(dec, sector) || bytes.Equal(enc, sector) {
		return fmt.Errorf("aes: self-test: XTS round trip failed (%v)", err)
	}
	if n := e.Stats().Fallbacks - before; n > 0 {
		return fmt.Errorf("aes: self-test: %d calls fell back to the CPU (the device failed)", n)
	}
	return nil
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
