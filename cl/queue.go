package cl

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Queue is an in-order command queue of a device, with profiling on. Its
// methods are safe for concurrent use.
type Queue struct {
	dev *Device
	mu  sync.Mutex // keeps a kernel's arguments and its launch together
	q   uintptr
}

// Queue returns the device's default queue (created with its context).
func (d *Device) Queue() (*Queue, error) {
	if err := d.open(); err != nil {
		return nil, err
	}
	return d.queue0, nil
}

// NewQueue creates another queue on the device: commands of different
// queues may run at the same time.
func (d *Device) NewQueue() (*Queue, error) {
	if err := d.open(); err != nil {
		return nil, err
	}
	return d.newQueue()
}

func (d *Device) newQueue() (*Queue, error) {
	var st int32
	const profiling = 1 << 1
	q := d.api.CreateCommandQueue(d.ctx, d.id, profiling, &st)
	if err := check("clCreateCommandQueue", st); err != nil {
		return nil, err
	}
	return &Queue{dev: d, q: q}, nil
}

// Release frees the queue after its commands have completed.
func (q *Queue) Release() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.q == 0 {
		return nil
	}
	err := check("clFinish", q.dev.api.Finish(q.q))
	if e := check("clReleaseCommandQueue", q.dev.api.ReleaseCommandQueue(q.q)); err == nil {
		err = e
	}
	q.q = 0
	return err
}

// Finish waits until every command of the queue has completed.
func (q *Queue) Finish() error {
	return check("clFinish", q.dev.api.Finish(q.q))
}

// Write enqueues a copy of src into b at byte offset off. With wait it
// returns once the copy is done (and the event is nil); else src is kept
// pinned until the returned event completes, and must not change before.
func (q *Queue) Write(b *Buffer, off int, src []byte, wait bool) (*Event, error) {
	return q.copy("clEnqueueWriteBuffer", b, off, src, wait, q.dev.api.EnqueueWriteBuffer)
}

// Read enqueues a copy of len(dst) bytes at byte offset off of b into dst;
// with wait it returns once dst holds them, else dst holds them once the
// returned event completes.
func (q *Queue) Read(b *Buffer, off int, dst []byte, wait bool) (*Event, error) {
	return q.copy("clEnqueueReadBuffer", b, off, dst, wait, q.dev.api.EnqueueReadBuffer)
}

func (q *Queue) copy(call string, b *Buffer, off int, host []byte, wait bool,
	enqueue func(q, m uintptr, blocking uint32, off, size uintptr, ptr unsafe.Pointer, nwait uint32, wl *uintptr, ev *uintptr) int32) (*Event, error) {
	if len(host) == 0 {
		return nil, fmt.Errorf("cl: %s: empty host slice", call)
	}
	mem, err := b.handle(call, off, len(host))
	if err != nil {
		return nil, err
	}
	if wait {
		st := enqueue(q.q, mem, 1, uintptr(off), uintptr(len(host)), unsafe.Pointer(&host[0]), 0, nil, nil)
		runtime.KeepAlive(host)
		return nil, check(call, st)
	}
	ev := newEvent(q.dev.api, host)
	st := enqueue(q.q, mem, 0, uintptr(off), uintptr(len(host)), unsafe.Pointer(&host[0]), 0, nil, &ev.ev)
	return ev.enqueued(check(call, st))
}

// Fill enqueues n bytes from off of b set to repetitions of pattern (1, 2,
// 4, ... or 128 bytes; off and n multiples of its length, n > 0).
func (q *Queue) Fill(b *Buffer, pattern []byte, off, n int) (*Event, error) {
	p := len(pattern)
	switch p {
	case 1, 2, 4, 8, 16, 32, 64, 128:
	default:
		return nil, fmt.Errorf("cl: Fill: pattern of %d bytes; want 1, 2, 4, ... or 128", p)
	}
	if off%p != 0 || n%p != 0 || n <= 0 {
		return nil, fmt.Errorf("cl: Fill: offset %d and length %d must be multiples of the pattern length %d, length > 0", off, n, p)
	}
	if q.dev.api.EnqueueFillBuffer == nil {
		// OpenCL 1.1 library: write the pattern from the host.
		buf := make([]byte, n)
		for i := 0; i < n; i += p {
			copy(buf[i:], pattern)
		}
		return q.Write(b, off, buf, false)
	}
	mem, err := b.handle("Fill", off, n)
	if err != nil {
		return nil, err
	}
	// The pattern is copied at enqueue time (OpenCL 1.2 §5.2.3); keep it
	// alive anyway until the command is done.
	ev := newEvent(q.dev.api, pattern)
	st := q.dev.api.EnqueueFillBuffer(q.q, mem, unsafe.Pointer(&pattern[0]), uintptr(p), uintptr(off), uintptr(n), 0, nil, &ev.ev)
	return ev.enqueued(check("clEnqueueFillBuffer", st))
}

// WaitFor makes the queue's later commands wait for events (of any queue
// of the device).
func (q *Queue) WaitFor(events ...*Event) error {
	if len(events) == 0 {
		return nil
	}
	if q.dev.api.EnqueueBarrierWithWaitList == nil {
		for _, e := range events {
			if err := e.Wait(); err != nil {
				return err
			}
		}
		return nil
	}
	list := make([]uintptr, len(events))
	for i, e := range events {
		list[i] = e.ev
	}
	return check("clEnqueueBarrierWithWaitList", q.dev.api.EnqueueBarrierWithWaitList(q.q, uint32(len(list)), &list[0], nil))
}

// Local asks for n bytes of local (shared) memory as a kernel argument.
type Local int

// Launch enqueues k over a 1-D range of global work-items in groups of
// local (0 lets the driver choose). global is rounded up to a multiple of
// local, so kernels must bound-check their index. Arguments may be *Buffer,
// Local, int32, uint32, int64, uint64, float32 or float64.
func (q *Queue) Launch(k *Kernel, global, local int, args ...any) (*Event, error) {
	if global <= 0 {
		return nil, fmt.Errorf("cl: Launch %s: global size %d must be positive", k.Name, global)
	}
	if local < 0 || local > k.dev.MaxWorkGroup {
		return nil, fmt.Errorf("cl: Launch %s: work-group size %d outside [0, %d]", k.Name, local, k.dev.MaxWorkGroup)
	}
	if local > 0 && global%local != 0 {
		global += local - global%local
	}
	// one kernel object's arguments are state: set and launch under its lock
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.k == 0 {
		return nil, fmt.Errorf("cl: Launch %s: kernel released", k.Name)
	}
	a := k.dev.api
	var keep []*Buffer
	for i, arg := range args {
		var st int32
		switch v := arg.(type) {
		case *Buffer:
			mem, err := v.handle("Launch", 0, 0)
			if err != nil {
				return nil, fmt.Errorf("cl: Launch %s: argument %d: %w", k.Name, i, err)
			}
			st = a.SetKernelArg(k.k, uint32(i), unsafe.Sizeof(mem), unsafe.Pointer(&mem))
			keep = append(keep, v)
		case Local:
			st = a.SetKernelArg(k.k, uint32(i), uintptr(v), nil)
		case int32:
			st = a.SetKernelArg(k.k, uint32(i), 4, unsafe.Pointer(&v))
		case uint32:
			st = a.SetKernelArg(k.k, uint32(i), 4, unsafe.Pointer(&v))
		case int64:
			st = a.SetKernelArg(k.k, uint32(i), 8, unsafe.Pointer(&v))
		case uint64:
			st = a.SetKernelArg(k.k, uint32(i), 8, unsafe.Pointer(&v))
		case float32:
			st = a.SetKernelArg(k.k, uint32(i), 4, unsafe.Pointer(&v))
		case float64:
			st = a.SetKernelArg(k.k, uint32(i), 8, unsafe.Pointer(&v))
		default:
			return nil, fmt.Errorf("cl: Launch %s: argument %d has unsupported type %T", k.Name, i, arg)
		}
		if err := check("clSetKernelArg", st); err != nil {
			return nil, fmt.Errorf("%w (kernel %s, argument %d)", err, k.Name, i)
		}
	}
	g := uintptr(global)
	l := uintptr(local)
	var lp *uintptr
	if local > 0 {
		lp = &l
	}
	ev := newEvent(a, nil)
	st := a.EnqueueNDRangeKernel(q.q, k.k, 1, nil, &g, lp, 0, nil, &ev.ev)
	runtime.KeepAlive(keep)
	if err := check("clEnqueueNDRangeKernel", st); err != nil {
		return nil, fmt.Errorf("%w (kernel %s, global %d, local %d)", err, k.Name, global, local)
	}
	a.Flush(q.q)
	return ev.enqueued(nil)
}
