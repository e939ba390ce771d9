package generate

import (
	"crypto/elliptic"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// The comb's table: row i, entry n, out of Montgomery form, is n·16^i·G
// as crypto/elliptic computes it (a sample of rows); and the fault
// check's table alike, with FaultCheckMultiple·G in place of G.
func TestP256CombTable(t *testing.T) {
	t.Run("G", func(t *testing.T) { testP256CombTable(t, P256CombTableWords(), 1) })
	t.Run("check", func(t *testing.T) { testP256CombTable(t, P256CheckTableWords(), FaultCheckMultiple) })
}

// testP256CombTable is TestP256CombTable for the table w of multiple·G.
func testP256CombTable(t *testing.T, w []uint32, multiple int64) {
	require.Len(t, w, 65*8*16)
	inv := new(big.Int).ModInverse(new(big.Int).Lsh(big.NewInt(1), 256), p256.p)
	value := func(words []uint32) *big.Int {
		v := new(big.Int)
		for i := 7; i >= 0; i-- {
			v.Lsh(v, 32).Or(v, big.NewInt(int64(words[i])))
		}
		v.Mul(v, inv)
		return v.Mod(v, p256.p)
	}
	for _, row := range []int{0, 1, 31, 63, 64} {
		for n := 1; n <= 8; n++ {
			k := new(big.Int).Lsh(big.NewInt(int64(n)*multiple), uint(4*row))
			x, y := elliptic.P256().ScalarBaseMult(k.Bytes())
			e := w[(row*8+n-1)*16:]
			require.Equal(t, x, value(e[:8]), "x of %d·16^%d·G", n, row)
			require.Equal(t, y, value(e[8:16]), "y of %d·16^%d·G", n, row)
		}
	}
}
