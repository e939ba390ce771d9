package ed25519_test

import (
	"context"
	stded25519 "crypto/ed25519"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ed25519"
)

// BenchmarkServerSign: a Server over the CPU engine signing 64-byte
// messages from every core, beside crypto/ed25519 doing the same (go):
// the Server's own cost per request where it computes on the CPU.
func BenchmarkServerSign(b *testing.B) {
	key := stded25519.NewKeyFromSeed(make([]byte, stded25519.SeedSize))
	msg := make([]byte, 64)
	b.Run("server", func(b *testing.B) {
		s, err := ed25519.NewServer(batch.Options{}, ed25519.CPUEngine())
		require.NoError(b, err)
		defer s.Close()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.Sign(context.Background(), key, msg, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				stded25519.Sign(key, msg)
			}
		})
	})
}
