package device

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Stages are three queues of a device through which batches run so that
// their copies overlap other batches' kernels: one for uploads, one for
// kernels and one for read-backs. A batch's first kernel waits for its
// uploads and its first read-back for its last kernel (device events
// across queues), so one batch's uploads run while the kernels of the
// batch before it compute, and its read-back while the kernels of the
// next one compute. On the kernel queue the batches' kernels run one
// batch after the other, so their times add up to the device time of the
// work. Safe for concurrent use: each batch's commands are enqueued
// together, in one order on all three queues.
type Stages struct {
	dev                   *Device
	upload, kernels, read *Queue
	mu                    sync.Mutex // keeps each batch's commands together
	zeros                 []byte     // scrubs read-back buffers (Commands.Read); never written
	zerosMem              *HostMemory
	// lastWait is how long the last batch's wait for its commands took
	// (ns): it picks how the next one waits (Commands.wait)
	lastWait atomic.Int64
}

// scrubPiece is the size of the zero host memory that scrubs read-back
// buffers, one copy per piece.
const scrubPiece = 4 << 20

// NewStages makes the three queues.
func (d *Device) NewStages() (*Stages, error) {
	var qs [3]*Queue
	for i := range qs {
		q, err := d.NewQueue()
		if err != nil {
			for _, made := range qs[:i] {
				made.Release()
			}
			return nil, err
		}
		qs[i] = q
	}
	return &Stages{dev: d, upload: qs[0], kernels: qs[1], read: qs[2]}, nil
}

// Commands are the commands of one batch (Stages.Run), enqueued without
// waiting, in device buffers leased from a Pool.
type Commands struct {
	s       *Stages
	lease   *Lease
	writes  []*Event
	kernels []*Event
	reads   []*Event
	sizes   map[*Buffer]int // of the secret buffers: the bytes asked for

	// Uploaded, when set, runs once the batch's uploads have completed,
	// while its kernels may still run (to clear secret host inputs early).
	Uploaded func()

	// ReadDone, when set, runs with the index of each read-back (in the
	// order of the Read and ReadAt calls) once it has completed, while
	// the later ones may still travel: a batch read back in parts can use
	// its first results before its last ones arrive. It runs on the
	// goroutine that waits for the batch, before that waits for the next
	// read-back; it is not called for a read-back that failed, nor for
	// any after it.
	ReadDone func(i int)
}

// Buffer returns a device buffer of at least n bytes for the batch
// (Lease.Buffer: a secret one is zeroed after the batch).
func (c *Commands) Buffer(n int, secret bool) (*Buffer, error) {
	b, err := c.lease.Buffer(n, secret)
	if err == nil && secret {
		if c.sizes == nil {
			c.sizes = map[*Buffer]int{}
		}
		c.sizes[b] = n
	}
	return b, err
}

// Write enqueues a copy of src into b on the upload queue. src must not
// change until the batch is done.
func (c *Commands) Write(b *Buffer, src []byte) error {
	ev, err := c.s.upload.Write(b, 0, src)
	if err != nil {
		return err
	}
	c.writes = append(c.writes, ev)
	return nil
}

// Upload is Buffer and Write: a new buffer of the batch holding words.
func (c *Commands) Upload(words []uint32, secret bool) (*Buffer, error) {
	b, err := c.Buffer(4*len(words), secret)
	if err != nil {
		return nil, err
	}
	if err := c.Write(b, Uint32Bytes(words)); err != nil {
		return nil, err
	}
	return b, nil
}

// Launch enqueues kernel k over n work-items in groups of group on the
// kernel queue; the batch's first kernel waits for its uploads.
func (c *Commands) Launch(k *Kernel, n, group int, args ...any) error {
	if len(c.kernels) == 0 {
		if err := c.s.kernels.WaitFor(c.writes...); err != nil {
			return err
		}
	}
	ev, err := c.s.kernels.Launch(k, n, group, args...)
	if err != nil {
		return err
	}
	c.kernels = append(c.kernels, ev)
	return nil
}

// Read enqueues a copy of b into dst on the read-back queue; the batch's
// first read-back waits for its last kernel. dst holds the bytes once
// Stages.Run returns. A secret buffer is zeroed behind its read-back: it
// is read once.
func (c *Commands) Read(b *Buffer, dst []byte) error { return c.ReadAt(b, 0, dst) }

// ReadAt is Read of the bytes of b from off.
func (c *Commands) ReadAt(b *Buffer, off int, dst []byte) error {
	if len(c.reads) == 0 {
		if err := c.s.read.WaitFor(c.last()...); err != nil {
			return err
		}
	}
	ev, err := c.s.read.Read(b, off, dst)
	if err != nil {
		return err
	}
	c.reads = append(c.reads, ev)
	if n, secret := c.sizes[b]; secret {
		return c.scrub(b, n)
	}
	return nil
}

// scrub zeroes the first n bytes of b on the read-back queue, behind its
// read-back, by copies from zero host memory: a copy engine does it, so
// it does not wait behind the kernels of the next batch, as a fill would
// (a fill is a kernel, and the next batch's kernel takes every SM), and
// the batch completes when its results are back. Called once per buffer.
func (c *Commands) scrub(b *Buffer, n int) error {
	if c.s.zeros == nil {
		mem, err := c.s.dev.HostAlloc(scrubPiece)
		if err != nil {
			return err
		}
		c.s.zerosMem, c.s.zeros = mem, mem.Bytes[:scrubPiece]
	}
	var evs []*Event
	for off := 0; off < n; off += scrubPiece {
		ev, err := c.s.read.Write(b, off, c.s.zeros[:min(scrubPiece, n-off)])
		if err != nil {
			c.lease.Scrubbed(b, evs...)
			c.lease.failed = true // not all zeroed: Release zeroes and frees it
			return err
		}
		evs = append(evs, ev)
	}
	c.lease.Scrubbed(b, evs...)
	delete(c.sizes, b)
	return nil
}

// last is what the read-back queue must wait for: the last kernel, or the
// uploads of a batch without one.
func (c *Commands) last() []*Event {
	if len(c.kernels) > 0 {
		return c.kernels[len(c.kernels)-1:]
	}
	return c.writes
}

// Run runs one batch: enqueue enqueues its commands (holding the stages'
// lock), the zeroing of its secret buffers is enqueued behind its
// read-backs, and Run waits for all of it and returns the buffers to
// pool, zeroed where secret. It returns the device time of the batch's
// kernels. After a failed enqueue it waits for what was enqueued and
// frees the buffers instead of keeping them.
//
// The buffers read back are zeroed on the read-back queue behind their
// read-back (Commands.Read), the others on the kernel queue behind the
// batch's last kernel, before the next batch's kernels: so no batch waits
// for another's kernels.
//
// A panic in enqueue is a failed enqueue too: Run waits for the commands
// enqueued before it, as for an error, and returns it as an error, so
// no buffer or host memory is released under a copy still running and
// the stages stay usable.
func (s *Stages) Run(pool *Pool, enqueue func(c *Commands) error) (time.Duration, error) {
	c := &Commands{s: s, lease: pool.Lease(s.kernels)}
	err := s.enqueue(c, enqueue)
	if err != nil {
		c.lease.Fail()
	}
	dur, werr := c.wait()
	if err == nil {
		err = werr
	}
	c.release()
	if zerr := c.lease.Release(); err == nil {
		err = zerr
	}
	if err != nil {
		return 0, err
	}
	return dur, nil
}

// enqueue runs enqueue on c under the stages' lock, then enqueues the
// zeroing of the batch's secret buffers; a panic in enqueue is its error.
func (s *Stages) enqueue(c *Commands, enqueue func(c *Commands) error) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("device: a batch's enqueue panicked: %v\n%s", p, debug.Stack())
		}
	}()
	if err := enqueue(c); err != nil {
		return err
	}
	if len(c.kernels) == 0 {
		// the zeroing, on the kernel queue, must follow the uploads
		if err := s.kernels.WaitFor(c.writes...); err != nil {
			return err
		}
	}
	return c.lease.ZeroAsync()
}

// wait waits for every command (running Uploaded between the uploads and
// the rest, and ReadDone behind each read-back) and returns the kernels'
// device time.
//
// How it waits depends on how long the last batch's wait took: under
// pollWhile (a short batch: X25519 batches of thousands, a resident AES
// call of a gigabyte), it polls the batch's last command, yielding to
// other goroutines between polls, for up to pollWhile, so the batch ends
// without the wake-up of a sleeping thread, a delay that is a sizeable
// part of a short call; else it sleeps at once, and a long batch (RSA,
// tens of milliseconds) costs no core polling for it, a core a server's
// other work needs. Either way it polls only the last command: when it
// has completed, so have the others, whose waits then return at once.
func (c *Commands) wait() (time.Duration, error) {
	start := time.Now()
	poll := time.Duration(c.s.lastWait.Load()) < pollWhile
	var first error
	if poll && len(c.writes) > 0 {
		c.writes[len(c.writes)-1].poll(pollWhile)
	}
	for _, ev := range c.writes {
		if err := ev.Wait(); err != nil && first == nil {
			first = err
		}
	}
	if c.Uploaded != nil {
		c.Uploaded()
	}
	if poll {
		// the last command; with ReadDone the first read-back (it
		// follows the last kernel), the others polled one by one below
		target := c.finalEvent()
		if c.ReadDone != nil && len(c.reads) > 0 {
			target = c.reads[0]
		}
		if target != nil {
			target.poll(pollWhile - time.Since(start))
		}
	}
	for _, ev := range c.kernels {
		if err := ev.Wait(); err != nil && first == nil {
			first = err
		}
	}
	for i, ev := range c.reads {
		if poll && c.ReadDone != nil && i > 0 {
			ev.poll(pollWhile - time.Since(start))
		}
		if err := ev.Wait(); err != nil && first == nil {
			first = err
		}
		if first == nil && c.ReadDone != nil {
			c.ReadDone(i)
		}
	}
	c.s.lastWait.Store(int64(time.Since(start)))
	if first != nil {
		return 0, first
	}
	var total time.Duration
	for _, ev := range c.kernels {
		d, err := ev.Duration()
		if err != nil {
			return 0, err
		}
		total += d
	}
	return total, nil
}

// pollWhile bounds the polling of a batch's wait (Commands.wait), chosen
// so that short batches poll (a resident AES-CTR call of 1 GiB on a data
// centre GPU) and RSA's batches, longer, do not.
const pollWhile = 3 * time.Millisecond

// finalEvent is the batch's command that completes last: its last
// read-back (the read queue waits for the last kernel), else its last
// kernel; nil for a batch of uploads alone.
func (c *Commands) finalEvent() *Event {
	if len(c.reads) > 0 {
		return c.reads[len(c.reads)-1]
	}
	if len(c.kernels) > 0 {
		return c.kernels[len(c.kernels)-1]
	}
	return nil
}

// release frees the batch's events.
func (c *Commands) release() {
	for _, list := range [][]*Event{c.writes, c.kernels, c.reads} {
		for _, ev := range list {
			ev.Release()
		}
	}
}

// Release frees the queues once their commands are done, and the zero
// host memory of the scrubs after them.
func (s *Stages) Release() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for _, q := range []*Queue{s.upload, s.kernels, s.read} {
		// a stream's release does not wait for its commands (CUDA's),
		// and the scrubs may still copy from the zero memory
		if err := errors.Join(q.Finish(), q.Release()); err != nil && first == nil {
			first = err
		}
	}
	if s.zerosMem != nil {
		if err := s.zerosMem.Free(); err != nil && first == nil {
			first = err
		}
		s.zerosMem, s.zeros = nil, nil
	}
	return first
}
