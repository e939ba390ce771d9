package ecdh

import (
	"math/bits"
	"sync"

	"github.com/gpucrypto/gpucrypto/device"
)

// A slot holds the host buffers of one batch: the limb-major scalars,
// u-coordinates and results, in one allocation of pinned memory where the
// driver has it (Device.HostAlloc: copies run at the bus's speed). An
// Engine keeps the slots of finished batches for the next ones
// (allocating, pinning, faulting in and zeroing tens of megabytes per
// batch cost host time), one batch per slot at a time; the device buffers
// come from the Engine's device.Pool.
//
// Every buffer of an idle slot is zero where it held secrets: the host
// scalars and results are cleared as soon as they are no longer needed.
// The u-coordinates (public keys) are not cleared.
type slot struct {
	c      Curve
	shared bool
	cap    int // elements

	scal, us, res []uint32 // L·cap words each (us: shared secrets only)
	dirty         int      // scal[:dirty] may hold scalars

	mem *device.HostMemory // holds scal, us and res; nil: Go memory
}

// minSlot is the smallest slot, in elements; larger ones are rounded up to
// a power of two so that batches of varying sizes reuse them.
const minSlot = 1024

// maxIdleSlots is how many idle slots an Engine keeps per curve and
// operation: enough for the batches that a Server pipelines
// (batch.Options.Pipeline, 2 by default) and one more.
const maxIdleSlots = 3

// slotCap is the capacity of a new slot for n elements.
func slotCap(n int) int {
	if n <= minSlot {
		return minSlot
	}
	return 1 << bits.Len(uint(n-1))
}

// slotPool is the idle slots of an Engine.
type slotPool struct {
	dev  *device.Device // allocates the pinned memory of new slots (nil: Go memory)
	mu   sync.Mutex
	idle []*slot
}

// get returns the smallest idle slot for (c, shared) that holds n elements,
// or a new one.
func (p *slotPool) get(c Curve, shared bool, n int) *slot {
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
	return newSlot(p.dev, c, shared, slotCap(n))
}

// newSlot allocates a slot, in pinned memory of dev when it can (else in
// Go memory).
func newSlot(dev *device.Device, c Curve, shared bool, capacity int) *slot {
	w := c.limbs() * capacity
	parts := 2
	if shared {
		parts = 3
	}
	s := &slot{c: c, shared: shared, cap: capacity}
	var words []uint32
	if dev != nil {
		if mem, err := dev.HostAlloc(4 * parts * w); err == nil {
			s.mem = mem
			words = device.Uint32s(mem.Bytes, parts*w)
		}
	}
	if words == nil {
		words = make([]uint32, parts*w)
	}
	s.scal, s.res = words[:w:w], words[w:2*w:2*w]
	if shared {
		s.us = words[2*w : 3*w : 3*w]
	}
	return s
}

// put returns s to the pool after its batch. Beyond maxIdleSlots slots of
// its kind, the smallest is released.
func (p *slotPool) put(s *slot) {
	s.clearScalars()
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

// release clears the buffers and frees them (pinned memory) or leaves
// them to the garbage collector.
func (s *slot) release() {
	s.clearScalars()
	clear(s.res)
	if s.mem != nil {
		s.mem.Free()
		s.mem = nil
	}
	s.scal, s.us, s.res = nil, nil, nil
}
