package rsa

import (
	"encoding/binary"

	"github.com/gpucrypto/gpucrypto/batch"
)

// columnBlock is the number of elements converted together: their limbs
// are written (or read) one limb row at a time, contiguously, while the
// elements' own bytes stay in the cache.
const columnBlock = 128

// putColumns writes the values v(col) for col < m, big-endian byte
// strings of at most 4w bytes, as the limb-major columns of dst (w 32-bit
// limbs each, least significant first: limb j of column col at j·m + col),
// on all cores. Every word of dst is written.
func putColumns(dst []uint32, w, m int, v func(col int) []byte) {
	batch.Parallel(m, 1024, func(lo, hi int) {
		var vals [columnBlock][]byte
		for b0 := lo; b0 < hi; b0 += columnBlock {
			b1 := min(b0+columnBlock, hi)
			for col := b0; col < b1; col++ {
				vals[col-b0] = v(col)
			}
			for j := range w {
				row := dst[j*m+b0 : j*m+b1]
				for c := range row {
					row[c] = limb(vals[c], j)
				}
			}
		}
		clear(vals[:])
	})
}

// getColumns writes the limb-major columns of src (w limbs each, m
// columns; see putColumns) into the big-endian strings dst(col), on all
// cores, skipping the columns for which dst returns nil, and zeroes src.
// Each value must fit its string: the limbs beyond it are zero.
func getColumns(src []uint32, w, m int, dst func(col int) []byte) {
	batch.Parallel(m, 1024, func(lo, hi int) {
		var vals [columnBlock][]byte
		for b0 := lo; b0 < hi; b0 += columnBlock {
			b1 := min(b0+columnBlock, hi)
			for col := b0; col < b1; col++ {
				vals[col-b0] = dst(col)
			}
			for j := range w {
				row := src[j*m+b0 : j*m+b1]
				for c, l := range row {
					if vals[c] != nil {
						putLimb(vals[c], j, l)
					}
				}
				clear(row)
			}
		}
		clear(vals[:])
	})
}

// limb returns limb j (32 bits, least significant first) of the
// big-endian string x.
func limb(x []byte, j int) uint32 {
	end := len(x) - 4*j
	switch {
	case end >= 4:
		return binary.BigEndian.Uint32(x[end-4 : end])
	case end <= 0:
		return 0
	}
	var l uint32
	for _, b := range x[:end] {
		l = l<<8 | uint32(b)
	}
	return l
}

// putLimb writes l as limb j of the big-endian string x (its bytes that
// fall outside x are dropped: zero for a value that fits).
func putLimb(x []byte, j int, l uint32) {
	end := len(x) - 4*j
	switch {
	case end >= 4:
		binary.BigEndian.PutUint32(x[end-4:end], l)
	case end > 0:
		for k := end - 1; k >= 0; k-- {
			x[k] = byte(l)
			l >>= 8
		}
	}
}
