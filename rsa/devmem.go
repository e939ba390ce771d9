package rsa

import (
	"fmt"
	"math/big"
	"math/bits"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/cl"
)

// The device memory of a batch: one buffer per slot, kept by the backend
// between batches (see scratch).
const (
	slotX      = iota // inputs, F words per element
	slotKidx          // key of each element
	slotKeys          // rsa.cl key table
	slotMods          // modexp tables of the 2K primes: m, R mod m, R² mod m, n0
	slotOnes          //
	slotR2s           //
	slotN0s           //
	slotExp           // dp and dq of each key
	slotBase          // the two CRT bases of each element (rsa_split)
	slotMidx          // the prime of each half
	slotTable         // the modexp kernel's table of powers
	slotHalves        // x^dp mod p and x^dq mod q
	slotOut           // results
	slotOK            // fault-check flags
	numSlots
)

// scratchIdle is how long the device buffers of the last batches stay
// allocated without a new batch.
const scratchIdle = 10 * time.Second

// scratch is the device memory of the backend's batches. Large batches
// need hundreds of megabytes (the modexp kernel's table above all: 256 MiB
// for 65,536 RSA-2048 operations); rather than allocating and releasing
// them in every batch, the buffers are kept and reused, grown when a batch
// needs more, and released after scratchIdle without a batch. Every region a batch used is zeroed
// before the batch ends (they hold key material, CRT halves and results),
// so what is kept holds nothing.
//
// Device work is serialized by the backend (deviceBackend.devMu): one
// batch owns the scratch from its first upload to the end of its zeroing.
// The device's queue runs in order anyway; holding the lock across the
// whole section keeps another caller's commands from being queued between
// a batch's last kernel and its zeroing, so the batch never waits for
// another batch's kernels. Host work (conversions, padding, the sample
// check) runs outside the lock and overlaps the device work of other
// batches.
type scratch struct {
	bufs [numSlots]*cl.Buffer
	used [numSlots]int // bytes the current batch wrote or had written
}

// buf returns the buffer of slot, at least n bytes long, and records n
// bytes of it as used (to be zeroed).
func (s *scratch) buf(dev *cl.Device, slot, n int) (*cl.Buffer, error) {
	n = max(n, 4)
	if b := s.bufs[slot]; b == nil || b.Size() < n {
		if b != nil {
			// zeroed by the batch that used it, or used by this one
			var err error
			if u := s.used[slot]; u > 0 {
				err = b.Fill(make([]byte, 4), 0, u)
			}
			b.Release()
			s.bufs[slot], s.used[slot] = nil, 0
			if err != nil {
				return nil, err
			}
		}
		// round up to a power of two (within the device's limit), so that
		// batches of slowly growing sizes reallocate rarely
		size := n
		if p := 1 << bits.Len(uint(n-1)); uint64(p) <= dev.MaxAlloc {
			size = p
		}
		b, err := dev.NewBuffer(size)
		if err != nil {
			return nil, err
		}
		// new device memory holds whatever was there before: clear it, so
		// that what the backend keeps is all zeros between batches
		if err := b.Zero(); err != nil {
			b.Release()
			return nil, err
		}
		s.bufs[slot] = b
	}
	s.used[slot] = max(s.used[slot], n)
	return s.bufs[slot], nil
}

// upload writes words into slot's buffer.
func (s *scratch) upload(dev *cl.Device, slot int, words []uint32) (*cl.Buffer, error) {
	b, err := s.buf(dev, slot, 4*len(words))
	if err != nil {
		return nil, err
	}
	return b, b.Write(0, cl.Uint32Bytes(words))
}

// zero clears every used region. When that fails the buffers cannot be
// trusted to be clean: they are released (the driver frees the memory).
func (s *scratch) zero() error {
	var first error
	for slot, n := range s.used {
		if n == 0 {
			continue
		}
		if err := s.bufs[slot].Fill(make([]byte, 4), 0, n); err != nil && first == nil {
			first = err
		}
		s.used[slot] = 0
	}
	if first != nil {
		s.release()
		return fmt.Errorf("rsa: zeroing device buffers: %w", first)
	}
	return nil
}

// release frees every buffer.
func (s *scratch) release() {
	for slot, b := range s.bufs {
		if b != nil {
			b.Release()
			s.bufs[slot] = nil
		}
		s.used[slot] = 0
	}
}

// deviceSection runs f with exclusive use of the backend's device memory,
// zeroes what f used, and arms the idle release.
func (b *deviceBackend) deviceSection(f func(s *scratch) error) error {
	b.devMu.Lock()
	defer b.devMu.Unlock()
	err := f(&b.scratch)
	if zerr := b.scratch.zero(); err == nil {
		err = zerr
	}
	b.lastUse = time.Now()
	if b.idle == nil {
		b.idle = time.AfterFunc(scratchIdle, b.releaseIdle)
	}
	return err
}

// releaseIdle frees the scratch buffers once no batch has used them for
// scratchIdle.
func (b *deviceBackend) releaseIdle() {
	b.devMu.Lock()
	defer b.devMu.Unlock()
	if wait := scratchIdle - time.Since(b.lastUse); wait > 0 {
		b.idle.Reset(wait)
		return
	}
	b.scratch.release()
	b.idle = nil
}

// wordPool holds the large host arrays of batches (inputs and results in
// limb-major form, megabytes each), so that a batch neither allocates nor
// clears them. What goes back holds no secret: results are cleared as
// they are read (getColumns).
var wordPool sync.Pool // of *[]uint32

// getWords returns n words of undefined content, from the pool when it
// holds a large enough array.
func getWords(n int) []uint32 {
	if p, ok := wordPool.Get().(*[]uint32); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]uint32, n)
}

// putWords gives s back to the pool.
func putWords(s []uint32) { wordPool.Put(&s) }

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
