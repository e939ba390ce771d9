package cl

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Buffer is device memory. Copies to and from it, fills and kernels that
// use it are commands of a Queue.
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

// Size is the buffer's length in bytes.
func (b *Buffer) Size() int { return b.size }

// Release frees the device memory once the commands using it are done. It
// is safe to call more than once.
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

// handle returns the memory object for a command on [off, off+n).
func (b *Buffer) handle(op string, off, n int) (uintptr, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == 0 {
		return 0, fmt.Errorf("cl: %s: buffer already released", op)
	}
	if off < 0 || n < 0 || off+n > b.size || off+n < off {
		return 0, fmt.Errorf("cl: %s: range [%d, %d) outside a buffer of %d bytes", op, off, off+n, b.size)
	}
	return b.mem, nil
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

// newEvent returns an event that keeps host (if any) pinned until done.
func newEvent(a *api, host []byte) *Event {
	ev := &Event{api: a}
	if len(host) > 0 {
		ev.pin.Pin(&host[0])
		ev.keep = host
	}
	return ev
}

// enqueued finishes an event after its enqueue call: on failure it unpins
// and returns the error, else it arms the finalizer.
func (e *Event) enqueued(err error) (*Event, error) {
	if err != nil {
		e.pin.Unpin()
		e.keep = nil
		return nil, err
	}
	runtime.SetFinalizer(e, (*Event).finalize)
	return e, nil
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
// host and device is little-endian).
func Uint32Bytes(s []uint32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s))
}
