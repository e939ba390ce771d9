package device

import (
	"bytes"
	"math/bits"
	"time"
	"unsafe"
)

// HostPool keeps host memory from HostAlloc (pinned where the driver has
// it) for reuse by later batches: copies from and to pinned memory run
// at the bus's speed without a staging copy by the driver, and pinning
// memory is too slow to do per batch. Memory idle for longer than the
// pool's idle time is freed (zeroed first, as HostMemory.Free does);
// Drain frees all of it at once.
//
// What a caller puts back must hold no secret: the pool hands it out
// again as it is.
type HostPool struct {
	dev  *Device
	idle idleSet[*HostMemory] // sizes are powers of two
}

// hostPoolMaxIdle is how many idle allocations a HostPool keeps at most
// (the smallest go first), as many as a Pool's device buffers: two
// callers with three batches in flight each, three allocations a batch,
// came back to a pool of 8 that freed and pinned memory anew on every
// batch (pinning synchronises the device).
const hostPoolMaxIdle = 32

// NewHostPool returns an empty pool whose idle memory is freed after
// idleTime without use (0: kept until Drain).
func (d *Device) NewHostPool(idleTime time.Duration) *HostPool {
	return &HostPool{dev: d, idle: idleSet[*HostMemory]{
		size:     func(h *HostMemory) int { return len(h.Bytes) },
		free:     func(h *HostMemory) { h.Free() },
		maxIdle:  hostPoolMaxIdle,
		idleTime: idleTime,
	}}
}

// Get returns host memory of at least n bytes (its Bytes may be longer;
// the content is undefined): an idle allocation less than four times as
// large, or a new one, rounded up to a power of two so that batches of
// slowly growing sizes allocate rarely.
func (p *HostPool) Get(n int) (*HostMemory, error) {
	if h, ok := p.idle.take(n); ok {
		return h, nil
	}
	return p.dev.HostAlloc(1 << bits.Len(uint(max(n, 1)-1)))
}

// Put gives h back for reuse, freeing the smallest idle allocations
// beyond the pool's limit, and arms the idle timer. Memory that a failed
// copy may still use (stranded: see Event.Wait) is not kept: it is never
// handed out again, nor freed.
func (p *HostPool) Put(h *HostMemory) {
	if h == nil || h.Bytes == nil || stranded.holds(h.Bytes) {
		return
	}
	p.idle.put(h)
}

// Drain frees every idle allocation (those handed out come back later as
// usual).
func (p *HostPool) Drain() { p.idle.drain() }

// IdleContents returns copies of the idle allocations' bytes (they stay
// idle): for tests and checks that nothing secret stays in host memory.
// Copies, made under the pool's lock: the idle timer or a Drain may free
// the memory at any time after, and a slice of it would then point into
// freed (for pinned memory, unmapped) memory.
func (p *HostPool) IdleContents() [][]byte {
	var out [][]byte
	p.idle.each(func(h *HostMemory) { out = append(out, bytes.Clone(h.Bytes)) })
	return out
}

// Idle is the number of idle allocations and their total size in bytes.
func (p *HostPool) Idle() (count int, bytes int) { return p.idle.stats() }

// Uint32s views the first 4·n bytes of b as n 32-bit words in host byte
// order (the inverse of Uint32Bytes); b must be 4-byte aligned, as
// memory from HostAlloc and make is.
func Uint32s(b []byte, n int) []uint32 {
	if n == 0 {
		return nil
	}
	_ = b[4*n-1] // bounds check
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
