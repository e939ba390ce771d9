package device

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Queue is an ordered stream of commands on a device (an OpenCL command
// queue, a CUDA stream). Its methods are safe for concurrent use;
// commands of one queue run in the order they were enqueued.
type Queue struct {
	dev *Device
	q   driverQueue
}

// Launch enqueues k over a 1-D range of global work-items in work-groups
// of local (0 lets the driver choose on OpenCL and means 128 on CUDA).
// global is rounded up to a multiple of local, so kernels must
// bound-check their index. Arguments may be *Buffer, Local, int32,
// uint32, int64, uint64, float32 or float64.
func (q *Queue) Launch(k *Kernel, global, local int, args ...any) (*Event, error) {
	if global <= 0 {
		return nil, fmt.Errorf("device: Launch %s: global size %d must be positive", k.Name, global)
	}
	if local < 0 || local > k.dev.MaxGroup {
		return nil, fmt.Errorf("device: Launch %s: work-group size %d outside [0, %d]", k.Name, local, k.dev.MaxGroup)
	}
	kargs := make([]kernelArg, len(args))
	keep := make([]*Buffer, 0, len(args))
	shared := 0
	for i, arg := range args {
		a := &kargs[i]
		switch v := arg.(type) {
		case *Buffer:
			db, err := v.handle("Launch", 0, 0)
			if err != nil {
				return nil, fmt.Errorf("device: Launch %s: argument %d: %w", k.Name, i, err)
			}
			a.buffer = db
			keep = append(keep, v)
		case Local:
			if v <= 0 {
				return nil, fmt.Errorf("device: Launch %s: argument %d: local memory of %d bytes", k.Name, i, v)
			}
			a.local = int(v)
			shared += int(v)
		case int32:
			a.width = 4
			binary.LittleEndian.PutUint32(a.scalar[:], uint32(v))
		case uint32:
			a.width = 4
			binary.LittleEndian.PutUint32(a.scalar[:], v)
		case int64:
			a.width = 8
			binary.LittleEndian.PutUint64(a.scalar[:], uint64(v))
		case uint64:
			a.width = 8
			binary.LittleEndian.PutUint64(a.scalar[:], v)
		case float32:
			a.width = 4
			binary.LittleEndian.PutUint32(a.scalar[:], math.Float32bits(v))
		case float64:
			a.width = 8
			binary.LittleEndian.PutUint64(a.scalar[:], math.Float64bits(v))
		default:
			return nil, fmt.Errorf("device: Launch %s: argument %d has unsupported type %T", k.Name, i, arg)
		}
	}
	if uint64(shared) > k.dev.MaxSharedMem {
		return nil, fmt.Errorf("device: Launch %s: %d bytes of local memory; %s allows %d", k.Name, shared, k.dev.Name, k.dev.MaxSharedMem)
	}
	ev, err := q.q.launch(k.k, global, local, kargs)
	if err != nil {
		return nil, fmt.Errorf("device: Launch %s (global %d, local %d): %w", k.Name, global, local, err)
	}
	return newEvent(ev, q.q, nil, keep...), nil
}

// Write enqueues a copy of src into b at byte offset off and returns at
// once. src must not change until the event completes (it is kept alive
// until then).
func (q *Queue) Write(b *Buffer, off int, src []byte) (*Event, error) {
	if len(src) == 0 {
		return nil, fmt.Errorf("device: Write: empty host slice")
	}
	db, err := b.handle("Write", off, len(src))
	if err != nil {
		return nil, err
	}
	ev, err := q.q.write(db, off, src)
	if err != nil {
		return nil, err
	}
	return newEvent(ev, q.q, src, b), nil
}

// Read enqueues a copy of len(dst) bytes from byte offset off of b into
// dst and returns at once; dst holds them once the event completes.
func (q *Queue) Read(b *Buffer, off int, dst []byte) (*Event, error) {
	if len(dst) == 0 {
		return nil, fmt.Errorf("device: Read: empty host slice")
	}
	db, err := b.handle("Read", off, len(dst))
	if err != nil {
		return nil, err
	}
	ev, err := q.q.read(db, off, dst)
	if err != nil {
		return nil, err
	}
	return newEvent(ev, q.q, dst, b), nil
}

// Fill enqueues n bytes of b from off set to repetitions of pattern (1, 2
// or 4 bytes long; off and n multiples of its length, n > 0). Commands
// enqueued after it on the queue see the filled bytes, so a buffer may be
// reused, or released, right after.
func (q *Queue) Fill(b *Buffer, pattern []byte, off, n int) (*Event, error) {
	p := len(pattern)
	if p != 1 && p != 2 && p != 4 {
		return nil, fmt.Errorf("device: Fill: pattern of %d bytes; want 1, 2 or 4", p)
	}
	if off%p != 0 || n%p != 0 || n <= 0 {
		return nil, fmt.Errorf("device: Fill: offset %d and length %d must be multiples of the pattern length %d, length > 0", off, n, p)
	}
	db, err := b.handle("Fill", off, n)
	if err != nil {
		return nil, err
	}
	ev, err := q.q.fill(db, pattern, off, n)
	if err != nil {
		return nil, err
	}
	return newEvent(ev, q.q, nil, b), nil
}

// WaitFor makes the queue's later commands wait until events (of any
// queue of the device) have completed.
func (q *Queue) WaitFor(events ...*Event) error {
	var list []driverEvent
	for _, e := range events {
		if e != nil {
			list = append(list, e.ev)
		}
	}
	if len(list) == 0 {
		return nil
	}
	return q.q.waitFor(list)
}

// Finish waits until every command of the queue has completed.
func (q *Queue) Finish() error { return q.q.finish() }

// Release frees a queue from NewQueue once its commands are done (the
// default queue lives as long as the device).
func (q *Queue) Release() error {
	if q == q.dev.queue {
		return nil
	}
	return q.q.release()
}

// Buffer is device memory. Its methods use the device's default queue;
// Queue methods reach it from other queues.
type Buffer struct {
	dev  *Device
	mu   sync.Mutex
	b    driverBuffer
	size int
	// stranded: a command on the buffer failed, and its queue could not
	// say it was done (strand): the buffer is neither freed nor used again
	stranded bool
}

// NewBuffer allocates size bytes of device memory. Its content is
// undefined: zero it where that matters.
func (d *Device) NewBuffer(size int) (*Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("device: NewBuffer: size %d: a buffer must hold at least one byte", size)
	}
	if uint64(size) > d.MaxAlloc {
		return nil, fmt.Errorf("device: NewBuffer: %d bytes exceed the largest allocation of %s (%d bytes)", size, d.Name, d.MaxAlloc)
	}
	db, err := d.drv.newBuffer(size)
	if err != nil {
		return nil, fmt.Errorf("device: NewBuffer of %d bytes on %s: %w", size, d.Name, err)
	}
	b := &Buffer{dev: d, b: db, size: size}
	runtime.SetFinalizer(b, (*Buffer).Release)
	return b, nil
}

// Upload allocates a buffer of len(src) bytes holding a copy of src.
func (d *Device) Upload(src []byte) (*Buffer, error) {
	b, err := d.NewBuffer(len(src))
	if err != nil {
		return nil, err
	}
	if err := b.Write(0, src); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// Size is the buffer's length in bytes.
func (b *Buffer) Size() int { return b.size }

// Release frees the device memory once the commands already enqueued on
// it are done. It is safe to call more than once. A buffer that a failed
// command may still use (stranded) is left allocated, and Release says so.
func (b *Buffer) Release() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b == nil {
		return nil
	}
	if b.stranded {
		runtime.SetFinalizer(b, nil)
		return errStrandedBuffer
	}
	runtime.SetFinalizer(b, nil)
	err := b.b.release()
	b.b = nil
	return err
}

// handle returns the driver buffer for a command on [off, off+n).
func (b *Buffer) handle(op string, off, n int) (driverBuffer, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b == nil {
		return nil, fmt.Errorf("device: %s: buffer already released", op)
	}
	if b.stranded {
		return nil, fmt.Errorf("device: %s: %w", op, errStrandedBuffer)
	}
	if off < 0 || n < 0 || off+n > b.size || off+n < off {
		return nil, fmt.Errorf("device: %s: range [%d, %d) outside a buffer of %d bytes", op, off, off+n, b.size)
	}
	return b.b, nil
}

// on runs f with the default queue and waits for its event.
func (b *Buffer) on(f func(q *Queue) (*Event, error)) error {
	q, err := b.dev.Queue()
	if err != nil {
		return err
	}
	ev, err := f(q)
	if err != nil {
		return err
	}
	return ev.Release()
}

// Write copies src into the buffer at byte offset off and waits until done.
func (b *Buffer) Write(off int, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return b.on(func(q *Queue) (*Event, error) { return q.Write(b, off, src) })
}

// Read copies len(dst) bytes from byte offset off into dst and waits until
// done (and so until every earlier command of the default queue has
// finished).
func (b *Buffer) Read(off int, dst []byte) error {
	if len(dst) == 0 {
		return nil
	}
	return b.on(func(q *Queue) (*Event, error) { return q.Read(b, off, dst) })
}

// WriteAsync is Queue.Write on the default queue.
func (b *Buffer) WriteAsync(off int, src []byte) (*Event, error) {
	q, err := b.dev.Queue()
	if err != nil {
		return nil, err
	}
	return q.Write(b, off, src)
}

// ReadAsync is Queue.Read on the default queue.
func (b *Buffer) ReadAsync(off int, dst []byte) (*Event, error) {
	q, err := b.dev.Queue()
	if err != nil {
		return nil, err
	}
	return q.Read(b, off, dst)
}

// Fill is Queue.Fill on the default queue, waiting until done.
func (b *Buffer) Fill(pattern []byte, off, n int) error {
	return b.on(func(q *Queue) (*Event, error) { return q.Fill(b, pattern, off, n) })
}

// FillAsync is Queue.Fill on the default queue.
func (b *Buffer) FillAsync(pattern []byte, off, n int) (*Event, error) {
	q, err := b.dev.Queue()
	if err != nil {
		return nil, err
	}
	return q.Fill(b, pattern, off, n)
}

// Zero overwrites the whole buffer with zero bytes and waits until done
// (for buffers that held secrets).
func (b *Buffer) Zero() error {
	return b.on(func(q *Queue) (*Event, error) { return q.Fill(b, zeroPattern(0, b.size), 0, b.size) })
}

// ZeroAsync enqueues zero bytes over [0, n) of the buffer on the default
// queue.
func (b *Buffer) ZeroAsync(n int) (*Event, error) {
	return b.FillAsync(zeroPattern(0, n), 0, n)
}

// zeroPattern is the widest zero pattern that fits [off, off+n).
func zeroPattern(off, n int) []byte {
	if off%4 == 0 && n%4 == 0 {
		return make([]byte, 4)
	}
	return make([]byte, 1)
}

// Event is an enqueued command. Wait blocks until it completes; Duration
// gives its device execution time.
type Event struct {
	mu      sync.Mutex
	ev      driverEvent
	q       driverQueue // the command's queue (nil in tests: a failed wait then strands)
	keep    []byte      // host memory of a copy, alive and pinned until done
	buffers []*Buffer   // the device buffers of the command, alive until done (no finalizer frees them under it)
	pin     runtime.Pinner
	done    bool
	err     error
}

// newEvent wraps the driver event of a command on q, keeping host (a
// copy's host memory, pinned) and buffers (the device memory it reads or
// writes) alive until the command has completed.
func newEvent(ev driverEvent, q driverQueue, host []byte, buffers ...*Buffer) *Event {
	e := &Event{ev: ev, q: q, buffers: buffers}
	if len(host) > 0 {
		e.pin.Pin(&host[0])
		e.keep = host
	}
	runtime.SetFinalizer(e, (*Event).Release)
	return e
}

// Wait blocks until the command has completed, and reports a failed one.
//
// A failed wait does not say that the command is over: a driver may
// report a failure of the queue, or of a command before it, while the
// command is still pending, and a copy could then write into host memory
// already freed and reused. So after a failed wait the command's queue is
// finished; where that fails too, the command's host memory and buffers
// are stranded (strand): kept, never freed nor reused.
func (e *Event) Wait() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ev == nil {
		return fmt.Errorf("device: Wait on a released event")
	}
	if !e.done {
		e.err = e.ev.wait()
		e.done = true
		if e.err != nil && (e.q == nil || e.q.finish() != nil) {
			strand(e.keep, e.buffers)
		}
		e.pin.Unpin()
		e.keep, e.buffers = nil, nil
	}
	return e.err
}

// poll polls the command for up to budget, yielding to other goroutines
// between polls, where the driver can tell without waiting whether it has
// completed (pollingEvent); Wait then returns at once if it has.
//
// The queries back off: between two queries the goroutine yields once,
// then twice, four times, ... up to pollYields times. A query is a driver
// call, and one per yield over a poll of milliseconds takes a busy
// server's CPU from its own work. The gaps are counted in yields, not
// measured with the clock: on a busy host each yield runs other
// goroutines (and the gap grows with their work), on an idle one
// pollYields yields take microseconds; and on some hosts reading the
// clock costs as much as the query it would save.
func (e *Event) poll(budget time.Duration) {
	e.mu.Lock()
	pe, ok := e.ev.(pollingEvent)
	done := e.done
	e.mu.Unlock()
	if !ok || done {
		return
	}
	deadline := time.Now().Add(budget)
	for yields := 1; ; yields = nextYields(yields) {
		if finished, err := pe.query(); finished || err != nil || !time.Now().Before(deadline) {
			return
		}
		for range yields {
			runtime.Gosched()
		}
	}
}

// pollYields bounds the yields between two queries of a poll (Event.poll).
const pollYields = 32

// nextYields is the yields between a poll's next two queries after y.
func nextYields(y int) int { return min(2*y, pollYields) }

// Duration is the time the device spent on the command; it waits for it.
func (e *Event) Duration() (time.Duration, error) {
	if err := e.Wait(); err != nil {
		return 0, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ev.duration()
}

// Release waits for the command (so host memory is never freed under it)
// and frees the event. A nil event is fine.
func (e *Event) Release() error {
	if e == nil {
		return nil
	}
	werr := e.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ev == nil {
		return werr
	}
	runtime.SetFinalizer(e, nil)
	err := e.ev.release()
	e.ev = nil
	if werr != nil {
		return werr
	}
	return err
}

// Uint32Bytes views a []uint32 as its bytes in host order (every supported
// host and device is little-endian), for copies.
func Uint32Bytes(s []uint32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s))
}
