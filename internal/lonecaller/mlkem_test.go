//go:build go1.26

package lonecaller

import (
	"context"
	"crypto/mlkem"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	gpumlkem "github.com/gpucrypto/gpucrypto/mlkem"
)

// ML-KEM-768 decapsulation by a key the Server holds, beside crypto/mlkem's
// key made once; and from a seed, beside crypto/mlkem expanding the seed
// for each request. (DecapsulationKey is Go 1.26's crypto.Decapsulator.)
func TestLoneCallerMLKEM(t *testing.T) {
	ctx := context.Background()
	server, err := gpumlkem.NewServer(batch.Options{}, gpumlkem.CPUEngine())
	require.NoError(t, err)
	defer server.Close()
	seed := make([]byte, gpumlkem.SeedSize)
	rand.Read(seed)
	held, err := server.DecapsulationKey(gpumlkem.MLKEM768, seed)
	require.NoError(t, err)
	defer held.Close()
	std, err := mlkem.NewDecapsulationKey768(seed)
	require.NoError(t, err)
	_, ciphertext := std.EncapsulationKey().Encapsulate()
	compare(t, "ML-KEM-768 decapsulation, held key", 50,
		func() { _, _ = held.DecapsulateContext(ctx, ciphertext) }, func() { _, _ = std.Decapsulate(ciphertext) })
	compare(t, "ML-KEM-768 decapsulation from a seed", 50,
		func() { _, _ = server.Decapsulate(ctx, gpumlkem.MLKEM768, seed, ciphertext) },
		func() {
			key, _ := mlkem.NewDecapsulationKey768(seed)
			_, _ = key.Decapsulate(ciphertext)
		})
}
