package rsa

import (
	"fmt"
	"math/big"
	"math/bits"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// bufferIdle is how long the device buffers of the last batches stay
// allocated without a new batch.
const bufferIdle = 10 * time.Second

// stages returns the backend's device.Stages (upload, kernel and
// read-back queues), made at the first batch.
func (b *deviceBackend) stages() (*device.Stages, error) {
	b.stagesOnce.Do(func() { b.stagesVal, b.stagesErr = b.dev.NewStages() })
	return b.stagesVal, b.stagesErr
}

// onDevice runs one device batch through the backend's stages (see
// device.Stages.Run): enqueue enqueues its commands; the zeroing of its
// buffers follows its read-backs; onDevice waits for all of it, adds the
// kernels' device time to the backend's and returns the buffers to the
// pool, zeroed (every region: inputs, key material, CRT halves, results).
//
// Large batches need hundreds of megabytes (the modexp kernel's table
// above all: 256 MiB for 65,536 RSA-2048 operations); the pool keeps them
// for the next batches rather than allocating them every time. Host work
// (conversions, padding, the sample check) runs outside, in parallel with
// the device work of other batches.
func (b *deviceBackend) onDevice(enqueue func(c *device.Commands) error) error {
	st, err := b.stages()
	if err != nil {
		return err
	}
	dur, err := st.Run(b.pool, enqueue)
	if err == nil {
		b.kernelNs.Add(int64(dur))
	}
	return err
}

// limbsPerWord is the number of 32-bit limbs in a big.Word.
const limbsPerWord = bits.UintSize / 32

// columnBlock is the number of elements converted together: their limbs
// are written (or read) one limb row at a time, contiguously, while the
// elements' own words stay in the cache.
const columnBlock = 128

// putColumns writes the values v(col) for col < m as the limb-major
// columns of dst (w words each: word j of column col at j·m + col), on all
// cores. Every word of dst is written. Each value must fit w words.
func putColumns(dst []uint32, w, m int, v func(col int) *big.Int) error {
	var failed error
	var failedOnce sync.Once
	batch.Parallel(m, 1024, func(lo, hi int) {
		var words [columnBlock][]big.Word
		for b0 := lo; b0 < hi; b0 += columnBlock {
			b1 := min(b0+columnBlock, hi)
			for col := b0; col < b1; col++ {
				x := v(col)
				if x.Sign() < 0 || x.BitLen() > 32*w {
					failedOnce.Do(func() { failed = fmt.Errorf("rsa: a value of %d bits does not fit %d limbs", x.BitLen(), w) })
					return
				}
				words[col-b0] = x.Bits()
			}
			for j := range w {
				row := dst[j*m+b0 : j*m+b1]
				k, shift := j/limbsPerWord, uint(32*(j%limbsPerWord))
				for c := range row {
					var l uint32
					if ws := words[c]; k < len(ws) {
						l = uint32(ws[k] >> shift)
					}
					row[c] = l
				}
			}
		}
		clear(words[:])
	})
	return failed
}

// getColumns returns the limb-major columns of src (w words each, m
// columns) for which keep(col) holds as integers (nil for the others), on
// all cores, and zeroes src. The integers of one core share one
// allocation.
func getColumns(src []uint32, w, m int, keep func(col int) bool) []*big.Int {
	out := make([]*big.Int, m)
	nw := (w + limbsPerWord - 1) / limbsPerWord
	batch.Parallel(m, 1024, func(lo, hi int) {
		ints := make([]big.Int, hi-lo)
		slab := make([]big.Word, (hi-lo)*nw)
		for b0 := lo; b0 < hi; b0 += columnBlock {
			b1 := min(b0+columnBlock, hi)
			for j := range w {
				row := src[j*m+b0 : j*m+b1]
				k, shift := j/limbsPerWord, uint(32*(j%limbsPerWord))
				for c, l := range row {
					slab[(b0-lo+c)*nw+k] |= big.Word(l) << shift
				}
				clear(row)
			}
			for col := b0; col < b1; col++ {
				words := slab[(col-lo)*nw : (col-lo+1)*nw : (col-lo+1)*nw]
				if !keep(col) {
					clear(words)
					continue
				}
				out[col] = ints[col-lo].SetBits(words)
			}
		}
	})
	return out
}
