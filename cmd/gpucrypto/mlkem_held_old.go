//go:build !go1.26

package main

import (
	"context"

	"github.com/gpucrypto/gpucrypto/mlkem"
)

// heldDecapsulation is mlkem.Server.Decapsulate and Server.Go with the
// key's seed before Go 1.26, which has no crypto.Decapsulator (and so no
// mlkem.DecapsulationKey).
func heldDecapsulation(s *mlkem.Server, p mlkem.Parameters, seed []byte) (decapsulate func(ctx context.Context, ciphertext []byte) ([]byte, error), submit func(ctx context.Context, call *mlkem.Call) error, closeKey func() error, err error) {
	return func(ctx context.Context, ciphertext []byte) ([]byte, error) {
			return s.Decapsulate(ctx, p, seed, ciphertext)
		}, func(ctx context.Context, call *mlkem.Call) error {
			call.Parameters, call.Seed = p, seed
			return s.Go(ctx, call)
		}, func() error { return nil }, nil
}
