package generate

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// The constants of ed25519_gen.h, read back from the text: d·121666 ≡
// −121665, 2d, and √−1 squared is −1 and even.
func TestEd25519Constants(t *testing.T) {
	src, err := Ed25519()
	require.NoError(t, err)
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	arrays := devicetest.DefineArrays(t, src, "ED25519_")
	value := func(name string) *big.Int {
		v := arrays[name]
		require.NotNil(t, v, name)
		require.Negative(t, v.Cmp(p), "%s canonical", name)
		return v
	}
	d, d2, sqrtM1 := value("ED25519_D"), value("ED25519_D2"), value("ED25519_SQRT_M1")
	mod := func(x *big.Int) *big.Int { return x.Mod(x, p) }
	require.Zero(t, mod(new(big.Int).Add(new(big.Int).Mul(d, big.NewInt(121666)), big.NewInt(121665))).Sign())
	require.Zero(t, mod(new(big.Int).Sub(d2, new(big.Int).Add(d, d))).Sign())
	require.Zero(t, mod(new(big.Int).Add(new(big.Int).Mul(sqrtM1, sqrtM1), big.NewInt(1))).Sign())
	require.Zero(t, sqrtM1.Bit(0))
}
