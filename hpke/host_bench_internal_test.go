package hpke

import (
	"crypto/rand"
	"testing"
)

// BenchmarkHostPart times the host's part of opening one message of
// MLKEM768-X25519 with AES-128-GCM on one core, the part that stays on
// the host whatever the device: the combiner, the key schedule and
// crypto/cipher's AES-GCM of a 1 KiB message (key-schedule: without
// AES-GCM; aes-key: the aes.Key the aes engine's path makes instead).
// Its ns/op bounds a device engine's rate at cores/(ns/op) messages a
// second.
func BenchmarkHostPart(b *testing.B) {
	s := Suite{MLKEM768X25519, HKDFSHA256, AES128GCM}
	secrets := make([]byte, 4*32)
	rand.Read(secrets)
	ssPQ, ssT, ctT, pkT := secrets[:32], secrets[32:64], secrets[64:96], secrets[96:]
	info := []byte("bench")
	var key [16]byte
	var nonce [nonceSize]byte
	var ss [32]byte
	sc := newScheduler(s)
	sealed := newGCM(key[:]).Seal(nil, nonce[:], make([]byte, 1024), nil)
	out := make([]byte, 1024)
	b.Run("key-schedule", func(b *testing.B) {
		for b.Loop() {
			sc.xwingShared(&ss, ssPQ, ssT, ctT, pkT)
			sc.keyAndNonce(key[:], &nonce, ss[:], info)
		}
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			sc.xwingShared(&ss, ssPQ, ssT, ctT, pkT)
			sc.keyAndNonce(key[:], &nonce, ss[:], info)
			newGCM(key[:]).Open(out[:0], nonce[:], sealed, nil)
		}
	})
	b.Run("aes-key", func(b *testing.B) {
		for b.Loop() {
			newAESKey(key[:]).Close()
		}
	})
}
