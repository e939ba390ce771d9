package device

import (
	"errors"
	"fmt"
	"math/bits"
	"time"
)

// Pool keeps device buffers for reuse by later batches: allocating,
// zeroing and freeing hundreds of megabytes per batch costs time, and
// allocations may synchronize the device. Buffers are handed out through
// a Lease (the buffers of one batch) and come back when it is released.
//
// Secrets: a buffer marked secret is zeroed on the device, over every byte
// the lease asked for, before it returns to the pool; a new buffer is
// zeroed when allocated. So an idle buffer holds no secret, and a leased
// one holds no secret of an earlier lease (its content is otherwise
// undefined). Buffers idle for longer than the pool's idle time are
// freed; Drain frees all of them at once.
type Pool struct {
	dev  *Device
	idle idleSet[*Buffer] // sizes are powers of two (or MaxAlloc)
}

// DefaultMaxIdle is how many idle buffers a pool keeps at most (the
// smallest go first).
const DefaultMaxIdle = 32

// NewPool returns an empty pool whose idle buffers are freed after
// idleTime without use (0: kept until Drain).
func (d *Device) NewPool(idleTime time.Duration) *Pool {
	return &Pool{dev: d, idle: idleSet[*Buffer]{
		size:     func(b *Buffer) int { return b.size },
		free:     func(b *Buffer) { b.Release() },
		maxIdle:  DefaultMaxIdle,
		idleTime: idleTime,
	}}
}

// Lease starts the buffers of one batch, whose commands run on q (nil:
// the device's default queue): the zeroing of its secret buffers is
// enqueued there, behind their last use.
func (p *Pool) Lease(q *Queue) *Lease {
	return &Lease{pool: p, queue: q}
}

// get returns an idle buffer of at least n bytes (idleSet.take) or a new,
// zeroed one.
func (p *Pool) get(n int) (*Buffer, error) {
	if b, ok := p.idle.take(n); ok {
		return b, nil
	}
	// round up to a power of two (within the device's limit), so that
	// batches of slowly growing sizes reallocate rarely
	size := n
	if r := 1 << bits.Len(uint(n-1)); uint64(r) <= p.dev.MaxAlloc {
		size = r
	}
	b, err := p.dev.NewBuffer(size)
	if err != nil {
		return nil, err
	}
	// new device memory holds whatever was there before
	if err := b.Zero(); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// put returns buffers to the idle list (idleSet.put), but for stranded
// ones (see Event.Wait), which are neither kept nor freed.
func (p *Pool) put(bufs []*Buffer) {
	keep := bufs[:0:0]
	for _, b := range bufs {
		b.mu.Lock()
		lost := b.stranded
		b.mu.Unlock()
		if !lost {
			keep = append(keep, b)
		}
	}
	p.idle.put(keep...)
}

// Drain frees every idle buffer (leased ones come back later as usual).
func (p *Pool) Drain() { p.idle.drain() }

// Idle is the number of idle buffers and their total size in bytes.
func (p *Pool) Idle() (count int, bytes uint64) {
	n, b := p.idle.stats()
	return n, uint64(b)
}

// Lease is the buffers of one batch, taken from a Pool. Not safe for
// concurrent use.
type Lease struct {
	pool       *Pool
	queue      *Queue
	held       []leased
	zeroed     []*Event // the zeroing of secret buffers, once enqueued (and Scrubbed's)
	zeroQueued bool     // ZeroAsync has run
	failed     bool     // a command failed: free the buffers, do not keep them
	done       bool
}

type leased struct {
	b        *Buffer
	used     int // bytes asked for
	secret   bool
	scrubbed bool // zeroed by the caller's commands (Scrubbed)
}

// Buffer returns a buffer of at least n bytes. A secret one is zeroed over
// its first n bytes before it goes back to the pool.
func (l *Lease) Buffer(n int, secret bool) (*Buffer, error) {
	if l.done {
		return nil, errors.New("device: Lease.Buffer after Release")
	}
	if n <= 0 {
		return nil, fmt.Errorf("device: Lease.Buffer: %d bytes: want at least one", n)
	}
	b, err := l.pool.get(n)
	if err != nil {
		return nil, err
	}
	l.held = append(l.held, leased{b: b, used: n, secret: secret})
	return b, nil
}

// Upload returns a buffer holding a copy of words, written on the lease's
// queue (waiting until the copy is done, so words may change after).
func (l *Lease) Upload(words []uint32, secret bool) (*Buffer, error) {
	b, err := l.Buffer(4*len(words), secret)
	if err != nil {
		return nil, err
	}
	q, err := l.q()
	if err != nil {
		return nil, err
	}
	ev, err := q.Write(b, 0, Uint32Bytes(words))
	if err == nil {
		err = ev.Release()
	}
	if err != nil {
		l.failed = true
		return nil, err
	}
	return b, nil
}

func (l *Lease) q() (*Queue, error) {
	if l.queue != nil {
		return l.queue, nil
	}
	return l.pool.dev.Queue()
}

// Fail marks the lease's buffers as not to be kept: Release zeroes the
// secret ones and frees them all (after a failed command, say).
func (l *Lease) Fail() { l.failed = true }

// Scrubbed tells the lease that the caller's commands evs zero the first
// bytes of b that the lease gave out (b's whole request): ZeroAsync leaves
// b alone, and Release waits for evs instead. For a buffer read back on
// another queue than the lease's, so that its zeroing follows the
// read-back there (Stages: by the copy engine, not behind other batches'
// kernels).
func (l *Lease) Scrubbed(b *Buffer, evs ...*Event) {
	for i := range l.held {
		if l.held[i].b == b {
			l.held[i].scrubbed = true
		}
	}
	l.zeroed = append(l.zeroed, evs...)
}

// ZeroAsync enqueues the zeroing of the secret buffers on the lease's
// queue now, behind the commands already there, without waiting (Release
// waits). Calling it again does nothing.
func (l *Lease) ZeroAsync() error {
	if l.zeroQueued || l.done {
		return nil
	}
	l.zeroQueued = true
	q, err := l.q()
	if err != nil {
		l.failed = true
		return err
	}
	for _, h := range l.held {
		if !h.secret || h.scrubbed {
			continue
		}
		n := (h.used + 3) &^ 3 // within the buffer: sizes are powers of two ≥ 4, or MaxAlloc
		if n > h.b.size {
			n = h.used
		}
		ev, err := q.Fill(h.b, zeroPattern(0, n), 0, n)
		if err != nil {
			l.failed = true
			return err
		}
		l.zeroed = append(l.zeroed, ev)
	}
	return nil
}

// Release zeroes the secret buffers (if ZeroAsync has not), waits until
// that is done, and returns the buffers to the pool. If zeroing fails the
// buffers are freed instead of kept, and the error is returned. Calling it
// again does nothing.
func (l *Lease) Release() error {
	if l.done {
		return nil
	}
	err := l.ZeroAsync()
	for _, ev := range l.zeroed {
		if e := ev.Release(); e != nil && err == nil {
			err = e
			l.failed = true
		}
	}
	l.done = true
	bufs := make([]*Buffer, len(l.held))
	for i, h := range l.held {
		bufs[i] = h.b
	}
	l.held = nil
	if l.failed {
		for _, b := range bufs {
			if err != nil { // zeroing may not have happened: try once more, waiting
				b.Zero()
			}
			b.Release()
		}
		if err != nil {
			return fmt.Errorf("device: zeroing the buffers of a batch: %w", err)
		}
		return nil
	}
	l.pool.put(bufs)
	return nil
}

// IdleContents reads back every idle buffer, waiting for the default
// queue: for tests and checks that nothing secret stays in device memory.
func (p *Pool) IdleContents() ([][]byte, error) {
	idle := p.idle.list()
	out := make([][]byte, len(idle))
	for i, b := range idle {
		out[i] = make([]byte, b.size)
		if err := b.Read(0, out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
