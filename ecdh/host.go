package ecdh

import (
	"encoding/binary"
	"sync"

	"github.com/gpucrypto/gpucrypto/batch"
)

// The host side of a device batch: keys are checked and decoded straight
// into the limb-major rows that the kernels read (prepare), and the
// limb-major results are encoded into one byte slab per core (finish).
// Both run on all cores over contiguous ranges of elements and allocate
// nothing per element; the small block buffers that secrets pass through
// on the way are cleared before they go out of scope.

// hostChunk is the smallest range of elements a core takes.
const hostChunk = 2048

// keyMask is how RFC 7748 §5 decodes a key, applied to its first and last
// 32-bit limbs: first &= and0; last = last&andTop | orTop.
type keyMask struct{ and0, andTop, orTop uint32 }

var (
	// decodeScalar25519: clear bits 0-2 and 255, set bit 254.
	scalarMask25519 = keyMask{^uint32(7), 0x7fffffff, 0x40000000}
	// decodeScalar448: clear bits 0-1, set bit 447.
	scalarMask448 = keyMask{^uint32(3), ^uint32(0), 0x80000000}
	// decodeUCoordinate for X25519: mask the unused top bit.
	uMask25519 = keyMask{^uint32(0), 0x7fffffff, 0}
	// X448 u-coordinates are used as they are.
	uMask448 = keyMask{^uint32(0), ^uint32(0), 0}
)

func masks(c Curve) (scalar, u keyMask) {
	if c == X448 {
		return scalarMask448, uMask448
	}
	return scalarMask25519, uMask25519
}

// putKey decodes the key k (c.Size() bytes) with m into column i of the
// limb-major rows dst (row j holds limb j of the n elements). Non-canonical
// u (≥ p) is kept as it is and reduced by the field code.
func putKey(k []byte, m keyMask, dst []uint32, i, n int) {
	L := len(k) / 4
	_ = dst[(L-1)*n+i]
	dst[i] = binary.LittleEndian.Uint32(k) & m.and0
	for j := 1; j < L-1; j++ {
		dst[j*n+i] = binary.LittleEndian.Uint32(k[4*j:])
	}
	dst[(L-1)*n+i] = binary.LittleEndian.Uint32(k[4*(L-1):])&m.andTop | m.orTop
}

// elemErrs collects the errors of single elements from the cores of a
// parallel pass. Errs stays nil while no element has failed, which is the
// common case.
type elemErrs struct {
	mu   sync.Mutex
	n    int
	errs []error
	bad  int // elements with an error
}

// set records err (non-nil) for element i.
func (l *elemErrs) set(i int, err error) {
	l.mu.Lock()
	if l.errs == nil {
		l.errs = make([]error, l.n)
	}
	if l.errs[i] == nil {
		l.bad++
	}
	l.errs[i] = err
	l.mu.Unlock()
}

// hostBlock is how many elements prepare and finish transpose at a time
// between the limb-major rows of a batch and a small buffer. The rows of a
// batch of n lie 4n bytes apart, a multiple of 4 KiB for the usual powers
// of two, so writing or reading one limb of each row per element would
// hit one cache set over and over; whole row segments of a block stream
// instead.
const hostBlock = 128

// maxLimbs is the limbs of the larger curve (X448).
const maxLimbs = 14

// prepare checks the lengths of privs[i] (and peers[i] when peers is not
// nil) and decodes them into column i of scal (and us), n columns wide. An
// element that fails gets the clamped all-zero key in its columns, so the
// device computes a harmless value that finish discards, and its error in
// the result.
func prepare(c Curve, privs, peers [][]byte, scal, us []uint32) *elemErrs {
	n := len(privs)
	errs := &elemErrs{n: n}
	batch.Parallel(n, hostChunk, func(lo, hi int) {
		prepareRange(c, privs, peers, scal, us, lo, hi, errs)
	})
	return errs
}

// prepareRange is prepare for the elements [lo, hi), a block at a time.
func prepareRange(c Curve, privs, peers [][]byte, scal, us []uint32, lo, hi int, errs *elemErrs) {
	n, size, L := len(privs), c.Size(), c.limbs()
	sm, um := masks(c)
	var zero [56]byte
	var sblk, ublk [maxLimbs * hostBlock]uint32 // block rows: limb j of element k at j·hostBlock + k
	defer clear(sblk[:])
	for b := lo; b < hi; b += hostBlock {
		end := min(b+hostBlock, hi)
		for i := b; i < end; i++ {
			priv := privs[i]
			var peer []byte
			err := checkLen(c, "private", priv)
			if peers != nil && err == nil {
				peer = peers[i]
				err = checkLen(c, "public", peer)
			}
			if err != nil {
				errs.set(i, err)
				priv, peer = zero[:size], zero[:size]
			}
			putKey(priv, sm, sblk[:], i-b, hostBlock)
			if peers != nil {
				putKey(peer, um, ublk[:], i-b, hostBlock)
			}
		}
		for j := range L {
			copy(scal[j*n+b:j*n+end], sblk[j*hostBlock:])
			if peers != nil {
				copy(us[j*n+b:j*n+end], ublk[j*hostBlock:])
			}
		}
	}
}

// finish encodes the n limb-major results in res (and clears res). Elements
// with an error already in errs get a nil result; with shared, an all-zero
// secret is ErrLowOrder (RFC 7748 §6.1). The results of one core share one
// allocation.
func finish(c Curve, res []uint32, n int, shared bool, errs *elemErrs) [][]byte {
	out := make([][]byte, n)
	prior := errs.errs // errors of prepare; finish only adds ErrLowOrder
	batch.Parallel(n, hostChunk, func(lo, hi int) {
		finishRange(c, res, n, shared, prior, errs, out, lo, hi)
	})
	return out
}

// finishRange is finish for the elements [lo, hi), a block at a time.
func finishRange(c Curve, res []uint32, n int, shared bool, prior []error, errs *elemErrs, out [][]byte, lo, hi int) {
	size, L := c.Size(), c.limbs()
	slab := make([]byte, (hi-lo)*size)
	var blk [maxLimbs * hostBlock]uint32
	defer clear(blk[:])
	for b := lo; b < hi; b += hostBlock {
		end := min(b+hostBlock, hi)
		for j := range L {
			row := res[j*n+b : j*n+end]
			copy(blk[j*hostBlock:], row)
			clear(row)
		}
		for i := b; i < end; i++ {
			v := slab[(i-lo)*size : (i-lo+1)*size : (i-lo+1)*size]
			var acc uint32
			for j := range L {
				w := blk[j*hostBlock+i-b]
				acc |= w
				binary.LittleEndian.PutUint32(v[4*j:], w)
			}
			switch {
			case prior != nil && prior[i] != nil:
				clear(v)
			case shared && acc == 0:
				errs.set(i, ErrLowOrder)
			default:
				out[i] = v
			}
		}
	}
}

// clearParallel zeroes s on all cores.
func clearParallel(s []uint32) {
	batch.Parallel(len(s), 1<<16, func(lo, hi int) { clear(s[lo:hi]) })
}
