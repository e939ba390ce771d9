package rsa

import (
	"encoding/binary"
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
