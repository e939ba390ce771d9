package generate

import (
	"math/big"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// The constants of ed25519_gen.h, read back from the text: d·121666 ≡
// −121665, 2d, and √−1 squared is −1 and even.
func TestEd25519Constants(t *testing.T) {
	src, err := Ed25519()
	require.NoError(t, err)
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	value := func(name string) *big.Int {
		m := regexp.MustCompile(`#define ` + name + ` \{([^}]*)\}`).FindStringSubmatch(src)
		require.NotNil(t, m, name)
		limbs := regexp.MustCompile(`0x([0-9a-f]{8})u`).FindAllStringSubmatch(m[1], -1)
		require.Len(t, limbs, 8, name)
		v := new(big.Int)
		for w := 7; w >= 0; w-- {
			x, err := strconv.ParseUint(limbs[w][1], 16, 32)
			require.NoError(t, err)
			v.Lsh(v, 32).Or(v, new(big.Int).SetUint64(x))
		}
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
