// Package arith is gpucrypto's multi-precision arithmetic: conversions
// between Go integers and 32-bit limb arrays, limb-major batches as the
// kernels use them, and batched operations run on a device (package device).
package arith

import (
	"fmt"
	"math/big"
	"math/bits"
)

// ToLimbs returns x as n little-endian 32-bit limbs. x must be non-negative
// and below 2^(32n).
func ToLimbs(x *big.Int, n int) ([]uint32, error) {
	out := make([]uint32, n)
	return out, PutLimbs(out, x)
}

// PutLimbs writes x into dst as len(dst) little-endian 32-bit limbs.
func PutLimbs(dst []uint32, x *big.Int) error {
	if x == nil {
		return fmt.Errorf("arith: nil integer")
	}
	if x.Sign() < 0 {
		return fmt.Errorf("arith: negative integer")
	}
	if x.BitLen() > 32*len(dst) {
		return fmt.Errorf("arith: integer of %d bits does not fit in %d bits", x.BitLen(), 32*len(dst))
	}
	clear(dst)
	for i, w := range x.Bits() {
		if bits.UintSize == 64 {
			dst[2*i] = uint32(w)
			if 2*i+1 < len(dst) {
				dst[2*i+1] = uint32(uint64(w) >> 32)
			}
		} else {
			dst[i] = uint32(w)
		}
	}
	return nil
}

// FromLimbs returns the integer of little-endian 32-bit limbs l.
func FromLimbs(l []uint32) *big.Int {
	return new(big.Int).SetBytes(LimbsToBytes(l, 4*len(l)))
}

// BytesToLimbs converts a big-endian byte string to n little-endian limbs;
// the value must fit.
func BytesToLimbs(b []byte, n int) ([]uint32, error) {
	out := make([]uint32, n)
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	if len(b) > 4*n {
		return nil, fmt.Errorf("arith: %d-byte value does not fit in %d bits", len(b), 32*n)
	}
	for i := 0; i < len(b); i++ {
		out[i/4] |= uint32(b[len(b)-1-i]) << (8 * (i % 4))
	}
	return out, nil
}

// LimbsToBytes writes little-endian limbs as a big-endian byte string of
// exactly size bytes (high limbs beyond size must be zero; they are dropped).
func LimbsToBytes(l []uint32, size int) []byte {
	out := make([]byte, size)
	for i := 0; i < size && i/4 < len(l); i++ {
		out[size-1-i] = byte(l[i/4] >> (8 * (i % 4)))
	}
	return out
}

// Batch is count numbers of limbs words each, stored limb-major as the
// kernels read them: limb j of element i is Words[j*Count+i].
type Batch struct {
	Limbs int
	Count int
	Words []uint32
}

// NewBatch returns a zero batch.
func NewBatch(limbs, count int) *Batch {
	return &Batch{Limbs: limbs, Count: count, Words: make([]uint32, limbs*count)}
}

// Set stores x as element i.
func (b *Batch) Set(i int, x *big.Int) error {
	tmp := make([]uint32, b.Limbs)
	if err := PutLimbs(tmp, x); err != nil {
		return err
	}
	b.SetLimbs(i, tmp)
	return nil
}

// SetLimbs stores little-endian limbs l (len(l) == Limbs) as element i.
func (b *Batch) SetLimbs(i int, l []uint32) {
	for j, w := range l {
		b.Words[j*b.Count+i] = w
	}
}

// Limb returns limb j of element i.
func (b *Batch) Limb(i, j int) uint32 { return b.Words[j*b.Count+i] }

// LimbsOf returns element i's limbs, little-endian.
func (b *Batch) LimbsOf(i int) []uint32 {
	out := make([]uint32, b.Limbs)
	for j := range out {
		out[j] = b.Words[j*b.Count+i]
	}
	return out
}

// Get returns element i as an integer.
func (b *Batch) Get(i int) *big.Int { return FromLimbs(b.LimbsOf(i)) }
