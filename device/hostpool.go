package device

import (
	"math/bits"
	"sync"
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
	dev      *Device
	idleTime time.Duration // 0: keep until Drain

	mu       sync.Mutex
	idle     []*HostMemory // sizes are powers of two
	lastUse  time.Time
	idleStop *time.Timer
}

// hostPoolMaxIdle is how many idle allocations a HostPool keeps at most
// (the smallest go first).
const hostPoolMaxIdle = 8

// NewHostPool returns an empty pool whose idle memory is freed after
// idleTime without use (0: kept until Drain).
func (d *Device) NewHostPool(idleTime time.Duration) *HostPool {
	return &HostPool{dev: d, idleTime: idleTime}
}

// Get returns host memory of at least n bytes (its Bytes may be longer;
// the content is undefined): an idle allocation less than four times as
// large, or a new one, rounded up to a power of two so that batches of
// slowly growing sizes allocate rarely.
func (p *HostPool) Get(n int) (*HostMemory, error) {
	p.mu.Lock()
	best := -1
	for i, h := range p.idle {
		if size := len(h.Bytes); size >= n && size/4 < n && (best < 0 || size < len(p.idle[best].Bytes)) {
			best = i
		}
	}
	if best >= 0 {
		h := p.idle[best]
		p.idle = append(p.idle[:best], p.idle[best+1:]...)
		p.mu.Unlock()
		return h, nil
	}
	p.mu.Unlock()
	return p.dev.HostAlloc(1 << bits.Len(uint(max(n, 1)-1)))
}

// Put gives h back for reuse, freeing the smallest idle allocations
// beyond the pool's limit, and arms the idle timer.
func (p *HostPool) Put(h *HostMemory) {
	if h == nil || h.Bytes == nil {
		return
	}
	p.mu.Lock()
	p.idle = append(p.idle, h)
	var drop []*HostMemory
	for len(p.idle) > hostPoolMaxIdle {
		small := 0
		for i, m := range p.idle {
			if len(m.Bytes) < len(p.idle[small].Bytes) {
				small = i
			}
		}
		drop = append(drop, p.idle[small])
		p.idle = append(p.idle[:small], p.idle[small+1:]...)
	}
	p.lastUse = time.Now()
	if p.idleTime > 0 && p.idleStop == nil {
		p.idleStop = time.AfterFunc(p.idleTime, p.releaseIdle)
	}
	p.mu.Unlock()
	for _, m := range drop {
		m.Free()
	}
}

// releaseIdle frees the idle memory once none was used for idleTime.
func (p *HostPool) releaseIdle() {
	p.mu.Lock()
	if wait := p.idleTime - time.Since(p.lastUse); wait > 0 {
		p.idleStop.Reset(wait)
		p.mu.Unlock()
		return
	}
	p.idleStop = nil
	p.mu.Unlock()
	p.Drain()
}

// Drain frees every idle allocation (those handed out come back later as
// usual).
func (p *HostPool) Drain() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, h := range idle {
		h.Free()
	}
}

// Idle is the number of idle allocations and their total size in bytes.
func (p *HostPool) Idle() (count int, bytes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.idle {
		bytes += len(h.Bytes)
	}
	return len(p.idle), bytes
}

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
