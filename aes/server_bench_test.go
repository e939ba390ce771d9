package aes_test

import (
	"bytes"
	"context"
	stdaes "crypto/aes"
	"crypto/cipher"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
)

// BenchmarkServerSeal: a Server over the CPU engine sealing 1,500-byte
// records from every core, each goroutine into a buffer of its own, beside
// crypto/cipher's GCM doing the same, one GCM shared as the Server's Key
// shares its own (go), and one GCM a goroutine (go-own, as bench server's
// Go side has it, each connection with its own): the Server's own cost per
// request where it computes on the CPU, and what sharing one GCM costs.
func BenchmarkServerSeal(b *testing.B) {
	key := bytes.Repeat([]byte{7}, 16)
	nonce := make([]byte, aes.NonceSize)
	plaintext := bytes.Repeat([]byte{0xa5}, 1500)
	b.Run("server", func(b *testing.B) {
		k, err := aes.NewKey(key)
		require.NoError(b, err)
		defer k.Close()
		s, err := aes.NewServer(batch.Options{}, aes.CPUEngine())
		require.NoError(b, err)
		defer s.Close()
		b.SetBytes(int64(len(plaintext)))
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			dst := make([]byte, 0, len(plaintext)+aes.TagSize)
			for pb.Next() {
				if _, err := s.Seal(context.Background(), k, dst, nonce, plaintext, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("go", func(b *testing.B) {
		block, err := stdaes.NewCipher(key)
		require.NoError(b, err)
		gcm, err := cipher.NewGCM(block)
		require.NoError(b, err)
		b.SetBytes(int64(len(plaintext)))
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			dst := make([]byte, 0, len(plaintext)+aes.TagSize)
			for pb.Next() {
				gcm.Seal(dst, nonce, plaintext, nil)
			}
		})
	})
	b.Run("go-own", func(b *testing.B) {
		b.SetBytes(int64(len(plaintext)))
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			block, err := stdaes.NewCipher(key)
			require.NoError(b, err)
			gcm, err := cipher.NewGCM(block)
			require.NoError(b, err)
			dst := make([]byte, 0, len(plaintext)+aes.TagSize)
			for pb.Next() {
				gcm.Seal(dst, nonce, plaintext, nil)
			}
		})
	})
}
