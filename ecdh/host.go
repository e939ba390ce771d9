package ecdh

import (
	"encoding/binary"
	"sync"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// The host side of a device batch: the keys' byte strings are checked and
// copied, one after the other, into the batch's upload buffer (pack);
// the device decodes them into the limb-major rows its kernels read
// (clamping scalars and masking u-coordinates: kernels/ecdh_codec.h) and
// encodes the results back into byte strings, which unpack copies into
// the callers' strings. Both run on all cores over contiguous ranges of
// elements and allocate nothing per element. (Transposing on the host
// instead takes more host time than these copies.)

// hostChunk is the smallest range of elements a core takes.
const hostChunk = 2048

// keyMask is how RFC 7748 §5 decodes a key, applied to its first and last
// 32-bit limbs: first &= and0; last = last&andTop | orTop.
type keyMask struct{ and0, andTop, orTop uint32 }

// elemErrs are the errors of a call's elements, written from the cores of
// parallel passes. The list stays nil while no element has failed, which
// is the common case.
type elemErrs struct {
	mu   sync.Mutex
	n    int
	errs []error
}

// set records the error of element i (nil: none).
func (l *elemErrs) set(i int, err error) {
	l.mu.Lock()
	if l.errs == nil && err != nil {
		l.errs = make([]error, l.n)
	}
	if l.errs != nil {
		l.errs[i] = err
	}
	l.mu.Unlock()
}

// get returns the error of element i.
func (l *elemErrs) get(i int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.errs == nil {
		return nil
	}
	return l.errs[i]
}

// list returns the errors recorded so far (nil: none): a later set may
// allocate the list, so an element's entry is read from it only where no
// other goroutine sets it.
func (l *elemErrs) list() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.errs
}

// result is the call's per-element error (nil or a *batch.Error).
func (l *elemErrs) result() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return batch.Collect(l.errs)
}

// pack checks the lengths of the elements [lo, hi) and copies their keys'
// byte strings, element after element, into scal (and us, for shared
// secrets). An element that fails gets the all-zero string (the device
// clamps it into a harmless scalar; unpack discards the result), its
// error, and its output zeroed. It returns the number that failed.
func (j *ladderJob) pack(lo, hi int, scal, us []uint32) int {
	m, size := j.c, j.c.size
	sb := device.Uint32Bytes(scal)
	var ub []byte
	if j.shared {
		ub = device.Uint32Bytes(us)
	}
	var bad sync.Mutex
	failed := 0
	batch.Parallel(hi-lo, hostChunk, func(a, b int) {
		for k := a; k < b; k++ {
			i := lo + k
			err := m.checkLen("private", j.privs[i])
			if j.shared && err == nil {
				err = m.checkLen("public", j.peers[i])
			}
			if err == nil {
				err = m.checkLen("output", j.out[i])
			}
			if err != nil {
				j.errs.set(i, err)
				if len(j.out[i]) == size {
					clear(j.out[i])
				}
				clear(sb[k*size : (k+1)*size])
				if j.shared {
					clear(ub[k*size : (k+1)*size])
				}
				bad.Lock()
				failed++
				bad.Unlock()
				continue
			}
			copy(sb[k*size:(k+1)*size], j.privs[i])
			if j.shared {
				copy(ub[k*size:(k+1)*size], j.peers[i])
			}
		}
	})
	return failed
}

// unpack copies the results in res (byte strings, element after element,
// as the device's encoding kernel wrote them) of the elements [lo, hi)
// into their outputs, and zeroes res as it goes. Elements that failed in
// pack are skipped; for shared secrets an all-zero secret is ErrLowOrder
// (RFC 7748 §6.1) and its output is zeroed.
func (j *ladderJob) unpack(lo, hi int, res []uint32) {
	size := j.c.size
	rb := device.Uint32Bytes(res)
	prior := j.errs.list() // pack's errors of [lo, hi)
	batch.Parallel(hi-lo, hostChunk, func(a, b int) {
		for k := a; k < b; k++ {
			i := lo + k
			v := rb[k*size : (k+1)*size]
			switch {
			case prior != nil && prior[i] != nil: // failed in pack
			case j.shared && allZero(v):
				j.errs.set(i, ErrLowOrder)
				clear(j.out[i])
			default:
				copy(j.out[i], v)
			}
		}
		clear(rb[a*size : b*size])
	})
}

// allZero reports whether b (a multiple of 8 bytes long) is all zero, in
// time that depends on its length only.
func allZero(b []byte) bool {
	var acc uint64
	for k := 0; k+8 <= len(b); k += 8 {
		acc |= binary.LittleEndian.Uint64(b[k:])
	}
	return acc == 0
}
