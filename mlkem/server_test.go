package mlkem_test

import (
	"bytes"
	"context"
	stdmlkem "crypto/mlkem"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

// A Server's blocking and asynchronous forms, from many goroutines at
// once, on a device Server and a CPU one: key generations, encapsulations
// and decapsulations byte for byte crypto/mlkem's; a ciphertext of the
// wrong length fails alone; after Close every form fails.
func TestServer(t *testing.T) {
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			s, err := mlkem.NewServer(batch.Options{MaxBatch: 16, MaxDelay: time.Millisecond, CPUOffload: -1}, e)
			require.NoError(t, err)
			ctx := context.Background()
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					p := mlkem.Parameters(g % 2)
					seed := make([]byte, mlkem.SeedSize)
					rand.Read(seed)
					ek, err := s.KeyGen(ctx, p, seed)
					require.NoError(t, err)
					var want []byte
					var decap func([]byte) ([]byte, error)
					if p == mlkem.MLKEM768 {
						dk, _ := stdmlkem.NewDecapsulationKey768(seed)
						want, decap = dk.EncapsulationKey().Bytes(), dk.Decapsulate
					} else {
						dk, _ := stdmlkem.NewDecapsulationKey1024(seed)
						want, decap = dk.EncapsulationKey().Bytes(), dk.Decapsulate
					}
					require.Equal(t, want, ek)
					shared, ct, err := s.Encapsulate(ctx, p, ek)
					require.NoError(t, err)
					std, err := decap(ct)
					require.NoError(t, err)
					require.Equal(t, std, shared, "crypto/mlkem decapsulates the Server's encapsulation")
					got, err := s.Decapsulate(ctx, p, seed, ct)
					require.NoError(t, err)
					require.Equal(t, shared, got)
					bad := bytes.Clone(ct)
					bad[0] ^= 1
					rejected, err := s.Decapsulate(ctx, p, seed, bad)
					require.NoError(t, err)
					stdRejected, _ := decap(bad)
					require.Equal(t, stdRejected, rejected, "the implicit-rejection key")
					_, err = s.Decapsulate(ctx, p, seed, ct[1:])
					require.ErrorIs(t, err, mlkem.ErrCiphertextLength)

					// the same through Go
					done := make(chan *mlkem.Call, 3)
					calls := []mlkem.Call{
						{Parameters: p, Seed: seed, Done: done},
						{Parameters: p, EncapsulationKey: ek, Done: done},
						{Parameters: p, Seed: seed, Ciphertext: ct, Done: done},
					}
					for i := range calls {
						require.NoError(t, s.Go(ctx, &calls[i]))
					}
					for range calls {
						<-done
					}
					require.NoError(t, calls[0].Err)
					require.Equal(t, want, calls[0].EncapsulationKey)
					require.NoError(t, calls[1].Err)
					std, _ = decap(calls[1].Ciphertext)
					require.Equal(t, std, calls[1].SharedKey)
					require.NoError(t, calls[2].Err)
					require.Equal(t, shared, calls[2].SharedKey)
				}()
			}
			wg.Wait()
			require.Error(t, s.Go(ctx, &mlkem.Call{Done: make(chan *mlkem.Call, 1)}), "no input")
			require.Error(t, s.Go(ctx, &mlkem.Call{Seed: make([]byte, 64)}), "no Done")
			_, err = s.KeyGen(ctx, mlkem.Parameters(7), make([]byte, 64))
			require.Error(t, err)
			require.NoError(t, s.Close())
			_, err = s.KeyGen(ctx, mlkem.MLKEM768, make([]byte, 64))
			require.ErrorIs(t, err, batch.ErrClosed)
			_, err = s.DecapsulationKey(mlkem.MLKEM768, make([]byte, 64))
			require.ErrorIs(t, err, batch.ErrClosed)
		})
	}
}
