package ecdh

import (
	"math/bits"
	"sync"

	"github.com/gpucrypto/gpucrypto/cl"
)

// A slot holds the host and device buffers of one batch: the limb-major
// scalars, u-coordinates and results on the host, and their device
// buffers. An Engine keeps the slots of finished batches for the next ones
// (allocating, faulting in, zeroing and collecting tens of megabytes per
// batch cost host time, and device allocations may synchronize), one
// batch per slot at a time.
//
// Every buffer of an idle slot is zero where it held secrets: the host
// scalars and results are cleared as soon as they are no longer needed,
// and the device scalars, intermediate values and shared secrets are
// zeroed on the device before the batch returns. The u-coordinates (public
// keys) are not cleared.
type slot struct {
	c      Curve
	shared bool
	cap    int // elements

	scal, us, res []uint32 // host: L·cap words each (us: shared secrets only)
	dirty         int      // scal[:dirty] may hold scalars

	dk, du, dout *cl.Buffer // device: scalars, u-coordinates, results
	dxz          *cl.Buffer // device: batch inversion's (X, Z), on first use
	broken       bool       // a device command failed: release, do not reuse
}

// minSlot is the smallest slot, in elements; larger ones are rounded up to
// a power of two so that batches of varying sizes reuse them.
const minSlot = 1024

// maxIdleSlots is how many idle slots an Engine keeps per curve and
// operation: enough for the batches that a Server pipelines
// (batch.Options.Pipeline, 2 by default) and one more.
const maxIdleSlots = 3

// slotCap is the capacity of a new slot for n elements, of which the
// device can allocate at most most.
func slotCap(n, most int) int {
	if n <= minSlot {
		return max(min(minSlot, most), n)
	}
	return max(min(1<<bits.Len(uint(n-1)), most), n)
}

// slotPool is the idle slots of an Engine.
type slotPool struct {
	mu   sync.Mutex
	idle []*slot
}

// get returns the smallest idle slot for (c, shared) that holds n elements,
// or a new one whose device buffers stay within maxAlloc bytes each.
func (p *slotPool) get(c Curve, shared bool, n int, maxAlloc uint64) *slot {
	p.mu.Lock()
	best := -1
	for i, s := range p.idle {
		if s.c == c && s.shared == shared && s.cap >= n && (best < 0 || s.cap < p.idle[best].cap) {
			best = i
		}
	}
	if best >= 0 {
		s := p.idle[best]
		p.idle = append(p.idle[:best], p.idle[best+1:]...)
		p.mu.Unlock()
		return s
	}
	p.mu.Unlock()
	most := int(min(maxAlloc/uint64(8*c.limbs()), 1<<40)) // the batch inversion's buffer is the largest
	return newSlot(c, shared, slotCap(n, most))
}

func newSlot(c Curve, shared bool, capacity int) *slot {
	w := c.limbs() * capacity
	s := &slot{c: c, shared: shared, cap: capacity, scal: make([]uint32, w), res: make([]uint32, w)}
	if shared {
		s.us = make([]uint32, w)
	}
	return s
}

// put returns s to the pool after its batch, or releases it when it is
// broken. Beyond maxIdleSlots slots of its kind, the smallest is released.
func (p *slotPool) put(s *slot) {
	s.clearScalars()
	if s.broken {
		s.release()
		return
	}
	p.mu.Lock()
	p.idle = append(p.idle, s)
	var drop *slot
	kind, small := 0, -1
	for i, t := range p.idle {
		if t.c == s.c && t.shared == s.shared {
			kind++
			if small < 0 || t.cap < p.idle[small].cap {
				small = i
			}
		}
	}
	if kind > maxIdleSlots {
		drop = p.idle[small]
		p.idle = append(p.idle[:small], p.idle[small+1:]...)
	}
	p.mu.Unlock()
	if drop != nil {
		drop.release()
	}
}

// drain releases every idle slot.
func (p *slotPool) drain() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, s := range idle {
		s.release()
	}
}

// clearScalars zeroes the host scalars that the batch wrote, if not done
// yet.
func (s *slot) clearScalars() {
	if s.dirty > 0 {
		clearParallel(s.scal[:s.dirty])
		s.dirty = 0
	}
}

// device allocates the device buffers of s on d that are still missing;
// binv asks for the batch inversion's buffer too. New buffers are zeroed
// (OpenCL leaves them undefined), so that an idle slot is zero throughout
// and each batch needs to zero only the part it used.
func (s *slot) device(d *cl.Device, binv bool) error {
	bytes := 4 * len(s.scal)
	var err error
	alloc := func(b **cl.Buffer, size int) {
		if *b != nil || err != nil {
			return
		}
		if *b, err = d.NewBuffer(size); err == nil {
			err = (*b).Zero()
		}
	}
	alloc(&s.dk, bytes)
	if s.shared {
		alloc(&s.du, bytes)
	}
	alloc(&s.dout, bytes)
	if binv {
		alloc(&s.dxz, 2*bytes)
	}
	return err
}

// release zeroes the device buffers that may hold secrets (a broken slot
// may have stopped before its zeroing) and frees them; the host buffers
// go to the garbage collector, cleared.
func (s *slot) release() {
	for _, b := range []*cl.Buffer{s.dk, s.dout, s.dxz} {
		if b != nil && s.broken {
			b.Zero()
		}
	}
	for _, b := range []*cl.Buffer{s.dk, s.du, s.dout, s.dxz} {
		if b != nil {
			b.Release()
		}
	}
	s.dk, s.du, s.dout, s.dxz = nil, nil, nil, nil
	s.clearScalars()
	clear(s.res)
}
