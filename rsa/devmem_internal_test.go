package rsa

import (
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// putColumns and getColumns against math/big: big-endian strings of every
// length up to the width (whole limbs or not, more columns than one block,
// some skipped on the way back) go into limb columns, read as integers
// there, and come back unchanged; getColumns zeroes the columns.
func TestColumns(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(3, 4))
	for _, w := range []int{1, 3, 32, 65} {
		for _, size := range []int{1, 2, 4*w - 3, 4*w - 1, 4 * w} {
			if size < 1 || size > 4*w {
				continue
			}
			m := columnBlock + 37
			vals := make([][]byte, m)
			for i := range vals {
				vals[i] = make([]byte, size)
				for j := range vals[i] {
					vals[i][j] = byte(rng.Uint32())
				}
			}
			cols := make([]uint32, w*m)
			for i := range cols {
				cols[i] = 0xdeadbeef // every word is written
			}
			putColumns(cols, w, m, func(col int) []byte { return vals[col] })
			for col, v := range vals {
				x := new(big.Int)
				for j := w - 1; j >= 0; j-- {
					x.Lsh(x, 32).Or(x, big.NewInt(int64(cols[j*m+col])))
				}
				require.Zero(t, new(big.Int).SetBytes(v).Cmp(x), "w %d size %d column %d", w, size, col)
			}
			got := make([][]byte, m)
			getColumns(cols, w, m, func(col int) []byte {
				if col%5 == 2 {
					return nil
				}
				got[col] = make([]byte, size)
				return got[col]
			})
			for col := range vals {
				if col%5 == 2 {
					require.Nil(t, got[col])
					continue
				}
				require.Equal(t, vals[col], got[col], "w %d size %d column %d", w, size, col)
			}
			require.Equal(t, make([]uint32, w*m), cols, "the columns are zeroed")
		}
	}
}
