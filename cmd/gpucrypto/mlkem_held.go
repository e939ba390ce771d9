//go:build go1.26

package main

import (
	"context"

	"github.com/gpucrypto/gpucrypto/mlkem"
)

// heldDecapsulation is the decapsulation of a key the Server holds
// (mlkem.Server.DecapsulationKey, Go 1.26's crypto.Decapsulator) as a
// server that keeps its keys calls it, blocking and asynchronous (the
// key's Go, for a Call with the Ciphertext alone), and the key's Close.
func heldDecapsulation(s *mlkem.Server, p mlkem.Parameters, seed []byte) (decapsulate func(ctx context.Context, ciphertext []byte) ([]byte, error), submit func(ctx context.Context, call *mlkem.Call) error, closeKey func() error, err error) {
	key, err := s.DecapsulationKey(p, seed)
	if err != nil {
		return nil, nil, nil, err
	}
	return key.DecapsulateContext, key.Go, key.Close, nil
}
