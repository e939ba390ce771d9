//go:build !go1.26

package main

import (
	"context"

	"github.com/gpucrypto/gpucrypto/mlkem"
)

// heldDecapsulation is mlkem.Server.Decapsulate with the key's seed
// before Go 1.26, which has no crypto.Decapsulator (and so no
// mlkem.DecapsulationKey).
func heldDecapsulation(s *mlkem.Server, p mlkem.Parameters, seed []byte) (decapsulate func(ctx context.Context, ciphertext []byte) ([]byte, error), closeKey func() error, err error) {
	return func(ctx context.Context, ciphertext []byte) ([]byte, error) {
		return s.Decapsulate(ctx, p, seed, ciphertext)
	}, func() error { return nil }, nil
}
