package cl

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Buffer is device memory. Its methods are safe for concurrent use; the
// commands they enqueue run in order on the device's queue.
type Buffer struct {
	dev  *Device
	mu   sync.Mutex
	mem  uintptr
	size int
}

// NewBuffer allocates size bytes of read-write device memory.
func (d *Device) NewBuffer(size int) (*Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("cl: NewBuffer: size %d: a buffer must hold at least one byte", size)
	}
	if uint64(size) > d.MaxAlloc {
		return nil, fmt.Errorf("cl: NewBuffer: size %d exceeds the device's largest allocation (%d bytes) on %s", size, d.MaxAlloc, d.Name)
	}
	if err := d.open(); err != nil {
		return nil, err
	}
	var st int32
	const readWrite = 1
	mem := d.api.CreateBuffer(d.ctx, readWrite, uintptr(size), nil, &st)
	if err := check("clCreateBuffer", st); err != nil {
		return nil, fmt.Errorf("%w (size %d)", err, size)
	}
	b := &Buffer{dev: d, mem: mem, size: size}
	runtime.SetFinalizer(b, (*Buffer).Release)
	return b, nil
}

// Upload allocates a buffer of len(src) bytes and copies src into it.
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

// Release frees the device memory. It is safe to call more than once.
func (b *Buffer) Release() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == 0 {
		return nil
	}
	runtime.SetFinalizer(b, nil)
	err := check("clReleaseMemObject", b.dev.api.ReleaseMemObject(b.mem))
	b.mem = 0
	return err
}

func (b *Buffer) handle(op string, off, n int) (uintptr, error) {
	if b.mem == 0 {
		return 0, fmt.Errorf("cl: %s: buffer already released", op)
	}
	if off < 0 || n < 0 || off+n > b.size || off+n < off {
		return 0, fmt.Errorf("cl: %s: range [%d, %d) outside a buffer of %d bytes", op, off, off+n, b.size)
	}
	return b.mem, nil
}

// Write copies src to the buffer at byte offset off and waits until done.
func (b *Buffer) Write(off int, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	mem, err := b.handle("Write", off, len(src))
	if err != nil {
		return err
	}
	st := b.dev.api.EnqueueWriteBuffer(b.dev.queue, mem, 1, uintptr(off), uintptr(len(src)), unsafe.Pointer(&src[0]), 0, nil, nil)
	runtime.KeepAlive(src)
	return check("clEnqueueWriteBuffer", st)
}

// Read copies len(dst) bytes from byte offset off of the buffer into dst and
// waits until done (and so until every earlier command has finished).
func (b *Buffer) Read(off int, dst []byte) error {
	if len(dst) == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	mem, err := b.handle("Read", off, len(dst))
	if err != nil {
		return err
	}
	st := b.dev.api.EnqueueReadBuffer(b.dev.queue, mem, 1, uintptr(off), uintptr(len(dst)), unsafe.Pointer(&dst[0]), 0, nil, nil)
	runtime.KeepAlive(dst)
	return check("clEnqueueReadBuffer", st)
}

// WriteAsync enqueues a copy of src to the buffer and returns at once. src is
// pinned and kept alive until the returned event is waited on or released;
// the caller must not modify src before then.
func (b *Buffer) WriteAsync(off int, src []byte) (*Event, error) {
	return b.async("WriteAsync", off, src, true)
}

// ReadAsync enqueues a copy from the buffer into dst and returns at once; dst
// holds the data once the event has completed (Event.Wait).
func (b *Buffer) ReadAsync(off int, dst []byte) (*Event, error) {
	return b.async("ReadAsync", off, dst, false)
}

func (b *Buffer) async(op string, off int, host []byte, write bool) (*Event, error) {
	if len(host) == 0 {
		return nil, fmt.Errorf("cl: %s: empty host slice", op)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	mem, err := b.handle(op, off, len(host))
	if err != nil {
		return nil, err
	}
	ev := &Event{api: b.dev.api}
	ev.pin.Pin(&host[0])
	ev.keep = host
	var st int32
	call := "clEnqueueReadBuffer"
	if write {
		call = "clEnqueueWriteBuffer"
		st = b.dev.api.EnqueueWriteBuffer(b.dev.queue, mem, 0, uintptr(off), uintptr(len(host)), unsafe.Pointer(&host[0]), 0, nil, &ev.ev)
	} else {
		st = b.dev.api.EnqueueReadBuffer(b.dev.queue, mem, 0, uintptr(off), uintptr(len(host)), unsafe.Pointer(&host[0]), 0, nil, &ev.ev)
	}
	if err := check(call, st); err != nil {
		ev.pin.Unpin()
		return nil, err
	}
	runtime.SetFinalizer(ev, (*Event).finalize)
	return ev, nil
}

// Fill sets n bytes starting at off to repetitions of pattern (1, 2, 4, 8,
// 16, 32, 64 or 128 bytes long; off and n multiples of its length) and
// waits until done.
func (b *Buffer) Fill(pattern []byte, off, n int) error {
	if err := checkFill("Fill", pattern, off, n); err != nil || n == 0 {
		return err
	}
	ev, err := b.fill("Fill", pattern, off, n)
	if err != nil {
		return err
	}
	return ev.Release() // waits
}

// Zero overwrites the whole buffer with zero bytes (used on buffers that
// held secrets before they are released).
func (b *Buffer) Zero() error {
	p := 4
	if b.size%4 != 0 {
		p = 1
	}
	return b.Fill(make([]byte, p), 0, b.size)
}

// FillAsync enqueues what Fill does and returns at once; the bytes hold the
// pattern once the returned event has completed (Event.Wait). Commands
// enqueued later on the device's in-order queue see the filled bytes, so
// a buffer can be reused, or released, right after FillAsync.
func (b *Buffer) FillAsync(pattern []byte, off, n int) (*Event, error) {
	if err := checkFill("FillAsync", pattern, off, n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("cl: FillAsync: offset %d and length %d must be multiples of the pattern length %d, length > 0", off, n, len(pattern))
	}
	return b.fill("FillAsync", pattern, off, n)
}

// checkFill checks the pattern length and that off and n are multiples of it.
func checkFill(op string, pattern []byte, off, n int) error {
	p := len(pattern)
	switch p {
	case 1, 2, 4, 8, 16, 32, 64, 128:
	default:
		return fmt.Errorf("cl: %s: pattern of %d bytes; want 1, 2, 4, ... or 128", op, p)
	}
	if off%p != 0 || n%p != 0 {
		return fmt.Errorf("cl: %s: offset %d and length %d must be multiples of the pattern length %d", op, off, n, p)
	}
	return nil
}

// fill enqueues the fill of a checked, non-empty range.
func (b *Buffer) fill(op string, pattern []byte, off, n int) (*Event, error) {
	p := len(pattern)
	if b.dev.api.EnqueueFillBuffer == nil {
		// OpenCL 1.1 library: write the pattern from the host.
		buf := make([]byte, n)
		for i := 0; i < n; i += p {
			copy(buf[i:], pattern)
		}
		return b.async(op, off, buf, true)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	mem, err := b.handle(op, off, n)
	if err != nil {
		return nil, err
	}
	ev := &Event{api: b.dev.api}
	// The pattern is copied at enqueue time (OpenCL 1.2 §5.2.3); keep it
	// alive anyway until the command is done.
	ev.pin.Pin(&pattern[0])
	ev.keep = pattern
	st := b.dev.api.EnqueueFillBuffer(b.dev.queue, mem, unsafe.Pointer(&pattern[0]), uintptr(p), uintptr(off), uintptr(n), 0, nil, &ev.ev)
	if err := check("clEnqueueFillBuffer", st); err != nil {
		ev.pin.Unpin()
		return nil, err
	}
	runtime.SetFinalizer(ev, (*Event).finalize)
	return ev, nil
}

// ZeroAsync enqueues zero bytes over [0, n) of the buffer (n a multiple of
// 4) and returns at once, like FillAsync.
func (b *Buffer) ZeroAsync(n int) (*Event, error) {
	return b.FillAsync(make([]byte, 4), 0, n)
}

// Event is an enqueued command. Wait blocks until it completes; Duration
// gives its device execution time from the profiling counters.
type Event struct {
	api  *api
	mu   sync.Mutex
	ev   uintptr
	pin  runtime.Pinner
	keep []byte
	done bool
}

// Wait blocks until the command has completed.
func (e *Event) Wait() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ev == 0 {
		return fmt.Errorf("cl: Wait on a released event")
	}
	if e.done {
		return nil
	}
	ev := e.ev
	err := check("clWaitForEvents", e.api.WaitForEvents(1, &ev))
	if err == nil {
		// Every command ends with a status of CL_COMPLETE (0) or a negative
		// error code; a failed command is reported, not silently accepted.
		var status int32
		if e2 := check("clGetEventInfo", e.api.GetEventInfo(ev, 0x11D3, 4, unsafe.Pointer(&status), nil)); e2 != nil {
			err = e2
		} else if status < 0 {
			err = &Error{Call: "command execution", Status: status}
		}
	}
	e.done = true
	e.pin.Unpin()
	e.keep = nil
	return err
}

// Duration is the time the device spent executing the command (end − start
// profiling counters). The event must have completed.
func (e *Event) Duration() (time.Duration, error) {
	if err := e.Wait(); err != nil {
		return 0, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var start, end uint64
	if err := check("clGetEventProfilingInfo", e.api.GetEventProfiling(e.ev, 0x1282, 8, unsafe.Pointer(&start), nil)); err != nil {
		return 0, err
	}
	if err := check("clGetEventProfilingInfo", e.api.GetEventProfiling(e.ev, 0x1283, 8, unsafe.Pointer(&end), nil)); err != nil {
		return 0, err
	}
	return time.Duration(end - start), nil
}

// Release waits for the command (so pinned host memory is never freed under
// it) and frees the event.
func (e *Event) Release() error {
	if e == nil {
		return nil
	}
	werr := e.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ev == 0 {
		return werr
	}
	runtime.SetFinalizer(e, nil)
	err := check("clReleaseEvent", e.api.ReleaseEvent(e.ev))
	e.ev = 0
	if werr != nil {
		return werr
	}
	return err
}

func (e *Event) finalize() { _ = e.Release() }

// Uint32Bytes views a []uint32 as its bytes in host order (every supported
// host and device is little-endian), for Buffer.Write and Read.
func Uint32Bytes(s []uint32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s))
}

// Buffers allocates device buffers that are released together: the
// buffers of one batched call. Buffers marked Secret are zeroed on the
// device before they are released. Not safe for concurrent use.
type Buffers struct {
	dev    *Device
	list   []*Buffer
	secret []*Buffer
}

// Buffers returns an empty set of buffers on d.
func (d *Device) Buffers() *Buffers { return &Buffers{dev: d} }

// New allocates a buffer of size bytes in the set.
func (s *Buffers) New(size int) (*Buffer, error) {
	b, err := s.dev.NewBuffer(size)
	if err == nil {
		s.list = append(s.list, b)
	}
	return b, err
}

// Upload allocates a buffer in the set holding a copy of src.
func (s *Buffers) Upload(src []byte) (*Buffer, error) {
	b, err := s.dev.Upload(src)
	if err == nil {
		s.list = append(s.list, b)
	}
	return b, err
}

// Secret marks b (a buffer of the set, or nil) to be zeroed before release
// and returns it.
func (s *Buffers) Secret(b *Buffer) *Buffer {
	if b != nil {
		s.secret = append(s.secret, b)
	}
	return b
}

// Release zeroes the secret buffers, then releases every buffer of the set.
func (s *Buffers) Release() {
	for _, b := range s.secret {
		b.Zero()
	}
	for _, b := range s.list {
		b.Release()
	}
	s.list, s.secret = nil, nil
}
