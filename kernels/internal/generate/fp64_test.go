package generate

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFP64Constants checks the numbers the fp64 code rests on: the digit
// counts (R = 2^(51d) ≥ 4m, d least), the offsets of the bit patterns, the
// constant K of the split and the shift that turns R^2 into R'^2.
func TestFP64Constants(t *testing.T) {
	var all []FP64Width
	for _, n := range FP64Limbs {
		all = append(all, FP64Width{N: n, Sqr: FP64HasSqr(n)})
	}
	src, err := FP64(all)
	require.NoError(t, err)
	for _, n := range FP64Limbs {
		d := FP64Digits(n)
		require.GreaterOrEqual(t, 51*d, 32*n+2, "n=%d", n)
		require.Less(t, 51*(d-1), 32*n+2, "n=%d: fewer digits would do", n)
		s := 4 * (51*d - 32*n)
		require.LessOrEqual(t, s+1, 51*d, "n=%d: x·2^s/R' must stay below 2m for x < 2m", n)
		require.Contains(t, src, "#define FP64_SHIFT_"+strconv.Itoa(n)+" "+strconv.Itoa(s)+" ")
	}
	require.Equal(t, math.Float64bits(0x1p52+0x1p51), fp64BL)
	require.Equal(t, math.Float64bits(0x1p103), fp64BH)
	// K = 2^103 + 3·2^51 is a double (exactly), and so is K − hi for every
	// hi = 2^103 + H·2^51, 0 ≤ H < 2^52.
	k := new(big.Float).SetFloat64(0x1.0000000000003p103)
	want := new(big.Float).SetInt(new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 103), new(big.Int).Lsh(big.NewInt(3), 51)))
	require.Zero(t, k.Cmp(want))
	for _, h := range []uint64{0, 1, 3, 4, 1 << 51, 1<<52 - 1} {
		hi := 0x1p103 + float64(h)*0x1p51
		diff := new(big.Float).Sub(k, new(big.Float).SetFloat64(hi))
		f, acc := diff.Float64()
		require.Equal(t, big.Exact, acc, "H=%d", h)
		require.Equal(t, (3-float64(h))*0x1p51, f)
	}
	// the generated code uses the header's names only
	require.NotContains(t, src, "0x1p")
	require.True(t, strings.HasPrefix(src, header))
}
