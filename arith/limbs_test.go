package arith

import (
	"crypto/rand"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLimbConversions(t *testing.T) {
	for _, n := range []int{1, 8, 17, 128} {
		for range 50 {
			max := new(big.Int).Lsh(big.NewInt(1), uint(32*n))
			x, _ := rand.Int(rand.Reader, max)
			l, err := ToLimbs(x, n)
			require.NoError(t, err)
			require.Zero(t, FromLimbs(l).Cmp(x))
			b := x.FillBytes(make([]byte, 4*n))
			l2, err := BytesToLimbs(b, n)
			require.NoError(t, err)
			require.Equal(t, l, l2)
			require.Equal(t, b, LimbsToBytes(l, 4*n))
		}
	}
	l, err := ToLimbs(big.NewInt(0x1_0000_0002), 2)
	require.NoError(t, err)
	require.Equal(t, []uint32{2, 1}, l)
	_, err = ToLimbs(new(big.Int).Lsh(big.NewInt(1), 64), 2)
	require.ErrorContains(t, err, "does not fit")
	_, err = ToLimbs(big.NewInt(-1), 2)
	require.ErrorContains(t, err, "negative")
	_, err = ToLimbs(nil, 2)
	require.ErrorContains(t, err, "nil")
	_, err = BytesToLimbs(make([]byte, 9), 2) // leading zeros are fine
	require.NoError(t, err)
	_, err = BytesToLimbs(append([]byte{1}, make([]byte, 8)...), 2)
	require.ErrorContains(t, err, "does not fit")
}

func TestBatchLayout(t *testing.T) {
	b := NewBatch(3, 4)
	require.NoError(t, b.Set(2, big.NewInt(0x0102030405)))
	// limb-major: limb j of element i at j*Count+i
	require.Equal(t, uint32(0x02030405), b.Words[0*4+2])
	require.Equal(t, uint32(0x01), b.Words[1*4+2])
	require.Equal(t, uint32(0), b.Words[2*4+2])
	require.Zero(t, b.Get(2).Cmp(big.NewInt(0x0102030405)))
	require.Zero(t, b.Get(1).Sign())
}
