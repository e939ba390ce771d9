//go:build go1.26

package mlkem_test

import (
	"context"
	stdmlkem "crypto/mlkem"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/lonecaller"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

// ML-KEM-768 decapsulation by a key the Server holds, beside crypto/mlkem's
// key made once; and from a seed, beside crypto/mlkem expanding the seed
// for each request. (DecapsulationKey is Go 1.26's crypto.Decapsulator.)
// internal/lonecaller's test covers the other Servers.
func TestLoneCallerMLKEM(t *testing.T) {
	ctx := context.Background()
	server, err := mlkem.NewServer(batch.Options{}, mlkem.CPUEngine())
	require.NoError(t, err)
	defer server.Close()
	seed := make([]byte, mlkem.SeedSize)
	rand.Read(seed)
	held, err := server.DecapsulationKey(mlkem.MLKEM768, seed)
	require.NoError(t, err)
	defer held.Close()
	std, err := stdmlkem.NewDecapsulationKey768(seed)
	require.NoError(t, err)
	_, ciphertext := std.EncapsulationKey().Encapsulate()
	lonecaller.Compare(t, "ML-KEM-768 decapsulation, held key", 50,
		func() { _, _ = held.DecapsulateContext(ctx, ciphertext) }, func() { _, _ = std.Decapsulate(ciphertext) })
	lonecaller.Compare(t, "ML-KEM-768 decapsulation from a seed", 50,
		func() { _, _ = server.Decapsulate(ctx, mlkem.MLKEM768, seed, ciphertext) },
		func() {
			key, _ := stdmlkem.NewDecapsulationKey768(seed)
			_, _ = key.Decapsulate(ciphertext)
		})
}
