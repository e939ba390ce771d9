package engine

import (
	"context"
	"fmt"
	"iter"
	"math"
	"math/bits"
	mrand "math/rand/v2"
	"runtime/debug"
	"runtime/trace"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// Plan is how the Core cuts and routes one call.
type Plan struct {
	// Op and Size name the call's shape: the measured times that choose
	// between device and CPU are kept per operation ("X25519 shared
	// secret") and element size (key bits, say), and by batch size.
	Op   string
	Size int
	// N is the number of elements; a Job's ranges are within [0, N).
	N int
	// Chunk is the most elements of one device batch (0: N); a larger
	// call runs as batches of about equal size.
	Chunk int
	// Cut, when set, cuts the batches instead of Chunk: the end of the
	// batch that starts at element lo, for a device part that ends at hi
	// (elements of different sizes, cut by bytes).
	Cut func(lo, hi int) int
	// Depth is the number of device batches of the call in flight at
	// once (0: 2): while the device computes one, the host packs the next
	// and unpacks the last.
	Depth int
	// PackInTurn makes each device batch's host work before its first
	// Chunk.Run (its packing) wait until the batch before it has reached
	// its own first Run. For jobs that pack on all cores: the batches in
	// flight at a call's start then pack one after another, each on all
	// cores, so the first reaches the device after its own packing
	// rather than after all of theirs together. Later batches start as
	// one ends, when the one before has long packed: no change there.
	PackInTurn bool
	// Resident: the data lies in device memory, so the call runs on the
	// device whatever the route, and a device failure is its error (there
	// is nothing the CPU could compute from).
	Resident bool
}

// Job is one call of an algorithm. The Core calls its methods on
// disjoint ranges of elements, several at once: a Job must be safe for
// that.
type Job interface {
	// Device computes the elements [c.Lo, c.Hi) on the device, writing
	// their results only once the device has completed them, and checks
	// those of c.Sample() on the CPU. An error says the device failed, or
	// returned a result that the check found wrong: the Core then
	// recomputes the range with CPU, so Device must leave what CPU needs
	// (the inputs) untouched.
	Device(c *Chunk) error
	// CPU computes the elements [lo, hi) on the CPU (on all cores),
	// overwriting whatever the device wrote there, per-element errors
	// included.
	CPU(lo, hi int)
}

// Preparer is a Job with work to do before its first device batch and
// after its last, on the calls that run on the device (key tables, say).
type Preparer interface {
	// Prepare runs before the device batches of the elements [lo, hi);
	// an error sends them to the CPU, reported as a fallback.
	Prepare(lo, hi int) error
	// Finish runs after them (also when Prepare failed); failed says
	// that a batch failed.
	Finish(failed bool)
}

// Run computes the call p with job: on the CPU or on the device as the
// route and the measured times say (route.go), in batches on the device,
// a failed batch recomputed on the CPU. Its error is the call's as a
// whole (a closed Core, a resident call whose device failed); the
// elements' own errors are the job's.
func (c *Core) Run(p Plan, job Job) error {
	if err := c.begin(); err != nil {
		return err // a closed Core, even for an empty call
	}
	defer c.calls.Done()
	if p.N <= 0 {
		return nil
	}
	start := time.Now()
	defer func() { c.recorder().call(time.Since(start)) }()
	if p.Resident {
		if c.dev == nil {
			return fmt.Errorf("%s: a device-resident call on the CPU engine", c.name)
		}
		return c.runBatch(job, 0, p.N, nil) // one batch: no route, no fallback
	}
	choice := c.choose(p)
	if !choice.device {
		c.runCPU(p, job, 0, p.N, true)
		return nil
	}
	var wg sync.WaitGroup
	if choice.cpuPrefix > 0 { // renews the CPU's time while the device runs the rest
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.runCPU(p, job, 0, choice.cpuPrefix, true)
		}()
	}
	c.runDevice(p, job, choice.cpuPrefix, p.N)
	wg.Wait()
	return nil
}

// runCPU computes [lo, hi) on the CPU; measured adds its time to the
// estimates.
func (c *Core) runCPU(p Plan, job Job, lo, hi int, measured bool) {
	start := time.Now()
	if h := c.hooks.Load(); h != nil && h.BeforeCPU != nil {
		h.BeforeCPU(lo, hi) // a slow CPU: inside the time measured
	}
	job.CPU(lo, hi)
	if measured && c.dev != nil { // a CPU Core has no choice to make: no estimate (and no lock) per call
		c.times.cpuDone(p, hi-lo, time.Since(start))
	}
	c.recorder().cpu(hi - lo)
}

// runDevice computes [lo, hi) on the device in batches, recomputing on
// the CPU those that fail.
func (c *Core) runDevice(p Plan, job Job, lo, hi int) {
	start := time.Now()
	var failed atomic.Bool
	prep, _ := job.(Preparer)
	if prep != nil {
		if err := prepare(prep, lo, hi); err != nil {
			prep.Finish(true)
			c.fellBack(hi-lo, err)
			c.runCPU(p, job, lo, hi, false)
			return
		}
	}
	depth := p.Depth
	if depth <= 0 {
		depth = 2
	}
	inFlight := make(chan struct{}, depth)
	var wg sync.WaitGroup
	var packed chan struct{} // closed when the last batch started has packed (PackInTurn)
	for r := range batches(p, lo, hi) {
		inFlight <- struct{}{}
		wg.Add(1)
		turn, mine := packed, chan struct{}(nil) // the batch before's, this one's
		if p.PackInTurn {
			mine = make(chan struct{})
			packed = mine
		}
		go func() {
			defer func() { <-inFlight; wg.Done() }()
			if turn != nil {
				<-turn
			}
			if err := c.runBatch(job, r[0], r[1], mine); err != nil {
				failed.Store(true)
				c.fellBack(r[1]-r[0], err)
				c.runCPU(p, job, r[0], r[1], false)
			}
		}()
		if mine != nil {
			// the next batch, cut only now, could not pack before this
			// one has anyway; cut at once, its Cut's pass over the
			// elements on all cores took the cores, the goroutine just
			// started included, from this batch's packing
			<-mine
		}
	}
	wg.Wait()
	if prep != nil {
		prep.Finish(failed.Load())
	}
	if !failed.Load() {
		c.times.deviceDone(p, hi-lo, time.Since(start))
	}
}

// prepare is prep.Prepare(lo, hi), a panic there an error (as in
// deviceStep).
func prepare(prep Preparer, lo, hi int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("preparing the device batches panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return prep.Prepare(lo, hi)
}

// batches cuts [lo, hi) into the device batches of p, in order, each
// when the loop over them asks for it: a Cut that reads every element (a
// million messages' lengths, a millisecond and more) then runs while the
// batches before run, not on one core before the first.
func batches(p Plan, lo, hi int) iter.Seq[[2]int] {
	return func(yield func([2]int) bool) {
		if p.Cut != nil {
			for a := lo; a < hi; {
				b := min(max(p.Cut(a, hi), a+1), hi)
				if !yield([2]int{a, b}) {
					return
				}
				a = b
			}
			return
		}
		n := hi - lo
		chunk := n
		if p.Chunk > 0 {
			chunk = batch.EvenChunk(n, p.Chunk)
		}
		for a := lo; a < hi; a += chunk {
			if !yield([2]int{a, min(a+chunk, hi)}) {
				return
			}
		}
	}
}

// runBatch computes one device batch. Its time, in the Stats, includes
// the release of its memory (the zeroing): host work that holds one of
// the call's places in flight as packing does.
func (c *Core) runBatch(job Job, lo, hi int, packed chan struct{}) error {
	defer trace.StartRegion(context.Background(), "device batch").End()
	ch := &Chunk{Lo: lo, Hi: hi, core: c}
	if packed != nil {
		ch.packed.Store(&packed)
		defer ch.donePacking() // a batch that failed or panicked before its first Run
	}
	start := time.Now()
	err := c.deviceStep(job, ch)
	end := c.Step("release")
	ch.release()
	end()
	whole := time.Since(start)
	if err != nil {
		return err
	}
	rec := c.recorder()
	rec.batch(hi - lo)
	rec.batchTime(whole, ch.wait)
	return nil
}

// deviceStep is job.Device on ch, or what the hooks put in its place. A
// panic there (a bug, or a driver that misbehaves) fails the batch as a
// device fault does: the CPU recomputes it, and the report says why.
func (c *Core) deviceStep(job Job, ch *Chunk) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the device step panicked: %v\n%s", p, debug.Stack())
		}
	}()
	if h := c.hooks.Load(); h != nil {
		if h.BeforeDevice != nil {
			if err := h.BeforeDevice(ch.Lo, ch.Hi); err != nil {
				return err
			}
		}
		if h.Device != nil {
			return h.Device(job, ch)
		}
	}
	return job.Device(ch)
}

// Step starts the step name of a call's host work ("pack", "unpack"): a
// runtime/trace region of that name on the calling goroutine, so that a
// trace (gpucrypto bench --trace) shows each batch's steps on its
// timeline, and, with Hooks.Step set, a measured time. The function it
// returns ends the step, on the same goroutine.
func (c *Core) Step(name string) (end func()) {
	region := trace.StartRegion(context.Background(), name)
	h := c.hooks.Load()
	if h == nil || h.Step == nil {
		return region.End
	}
	start := time.Now()
	return func() {
		region.End()
		h.Step(name, time.Since(start))
	}
}

// Step is the Core's Step, for a step of the batch.
func (c *Chunk) Step(name string) (end func()) { return c.core.Step(name) }

// Chunk is one device batch of a call: the elements [Lo, Hi), and the
// means to compute them.
type Chunk struct {
	Lo, Hi  int
	core    *Core
	mems    []*staged
	scratch [][]byte
	time    time.Duration // of the kernels run so far
	wait    time.Duration // spent in Run, waiting for the device's commands
	// afterUpload are the staging regions to zero once the next Run's
	// uploads have completed (ZeroAfterUpload)
	afterUpload [][]byte
	// packed is closed once the batch has packed (Plan.PackInTurn): at
	// its first Run, or when its device step ends without one
	packed atomic.Pointer[chan struct{}]
}

// donePacking tells the next batch of the call that this one has packed
// (Plan.PackInTurn), once.
func (c *Chunk) donePacking() {
	if p := c.packed.Swap(nil); p != nil {
		close(*p)
	}
}

// staged is a staging allocation of a batch: the bytes handed out, and
// the ranges of them already zeroed (by the job, or after the uploads) or
// public (Chunk.Public), which release leaves alone.
type staged struct {
	mem   *device.HostMemory
	used  int
	clean [][2]int // offsets in mem.Bytes
}

// Staging returns n bytes of host memory for the batch, pinned where the
// driver has it (copies to and from the device run at the bus's speed).
// Its content is undefined; the Core zeroes it when the batch is done
// (it may have held secrets), but for the parts the job marked Public,
// and keeps it for later batches.
func (c *Chunk) Staging(n int) ([]byte, error) {
	mem, err := c.core.staging.Get(max(n, 1))
	if err != nil {
		return nil, err
	}
	c.mems = append(c.mems, &staged{mem: mem, used: n})
	return mem.Bytes[:n:n], nil
}

// Zeroed tells the Core that the job has zeroed b, a part of the batch's
// staging memory, itself (say, while it read the results there): release
// does not zero it again.
func (c *Chunk) Zeroed(b []byte) { c.leave(b) }

// Public tells the Core that b, a part of the batch's staging memory,
// holds public values alone (public keys, messages, hashes, signatures,
// verdicts: what the device buffers that held them keep too, unzeroed),
// so release need not zero it: zeroing all of a batch's memory cost its
// host more than packing its messages did. Secrets (seeds, private keys,
// nonces, shared secrets) must not be in b.
func (c *Chunk) Public(b []byte) { c.leave(b) }

// leave makes release leave b, a part of the batch's staging memory, as
// it is.
func (c *Chunk) leave(b []byte) {
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for _, s := range c.mems {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(s.mem.Bytes)))
		if start >= base && start+uintptr(len(b)) <= base+uintptr(s.used) {
			off := int(start - base)
			s.clean = append(s.clean, [2]int{off, off + len(b)})
			return
		}
	}
}

// ZeroAfterUpload zeroes b, a part of the batch's staging memory that the
// next Run uploads (secret inputs), as soon as its uploads have
// completed, while the kernels still run; release does not zero it again.
func (c *Chunk) ZeroAfterUpload(b []byte) { c.afterUpload = append(c.afterUpload, b) }

// Scratch returns n bytes of host memory for the batch's host work alone
// (never copied to or from the device: ordinary memory, which needs no
// pinning). Its content is undefined; the Core zeroes it when the batch is
// done and keeps it for later batches.
func (c *Chunk) Scratch(n int) []byte {
	b := getScratch(n)
	c.scratch = append(c.scratch, b)
	return b
}

// scratchPools keep scratch memory by size class (a power of two).
var scratchPools [48]sync.Pool

func getScratch(n int) []byte {
	k := bits.Len(uint(max(n, 1) - 1))
	if p, ok := scratchPools[k].Get().(*[]byte); ok {
		return (*p)[:n]
	}
	return make([]byte, n, 1<<k)
}

// putScratch zeroes b, the bytes handed out (it may have held secrets;
// those beyond were never written), and keeps it.
func putScratch(b []byte) {
	clearParallel(b)
	b = b[:cap(b)]
	k := bits.Len(uint(len(b)) - 1)
	scratchPools[k].Put(&b)
}

// Words is Staging of n 32-bit words.
func (c *Chunk) Words(n int) ([]uint32, error) {
	b, err := c.Staging(4 * n)
	if err != nil {
		return nil, err
	}
	return device.Uint32s(b, n), nil
}

// Run runs one set of device commands on the Core's stages with its pool
// of buffers (device.Stages.Run: the uploads overlap other batches'
// kernels, secret buffers are zeroed behind their last use) and counts
// the kernels' device time. The first Run of a batch ends its packing
// (Plan.PackInTurn).
func (c *Chunk) Run(enqueue func(cmds *device.Commands) error) error {
	c.donePacking()
	s, err := c.core.Stages()
	if err != nil {
		return err
	}
	h := c.core.hooks.Load()
	inner, zero := enqueue, c.afterUpload
	c.afterUpload = nil
	enqueue = func(cmds *device.Commands) error {
		if len(zero) > 0 {
			cmds.Uploaded = func() {
				for _, b := range zero {
					clearParallel(b)
					c.Zeroed(b)
				}
			}
		}
		if err := inner(cmds); err != nil {
			return err
		}
		if h != nil && h.AfterEnqueue != nil {
			return h.AfterEnqueue(c.Lo, c.Hi)
		}
		return nil
	}
	defer c.Step("device")()
	if h != nil && h.Run != nil {
		return c.runHook(h, zero)
	}
	start := time.Now()
	d, err := s.Run(c.core.pool, enqueue)
	c.wait += time.Since(start)
	c.core.recorder().deviceTime(d)
	c.time += d
	if err == nil && h != nil && h.AfterRun != nil {
		h.AfterRun(c.Lo, c.Hi, c.stagingBytes())
	}
	return err
}

// runHook is Run with h.Run in place of the device's commands: the host
// work around them (the zeroing of the uploaded secrets zero) as Run does
// it, and the time counted as the wait.
func (c *Chunk) runHook(h *Hooks, zero [][]byte) error {
	start := time.Now()
	err := h.Run(c.Lo, c.Hi, c.stagingBytes())
	c.wait += time.Since(start)
	for _, b := range zero {
		clearParallel(b)
		c.Zeroed(b)
	}
	return err
}

// stagingBytes are the batch's staging memory, as handed out.
func (c *Chunk) stagingBytes() [][]byte {
	staging := make([][]byte, len(c.mems))
	for i, s := range c.mems {
		staging[i] = s.mem.Bytes[:s.used]
	}
	return staging
}

// DeviceTime is the device time of the kernels the batch has run.
func (c *Chunk) DeviceTime() time.Duration { return c.time }

// Sample is the elements of the batch whose device results the job
// checks on the CPU (Core.SetResultCheck): the first one and about one in
// every of the others, each with that chance independently; none when the
// check is off.
func (c *Chunk) Sample() []int {
	every := c.core.checkEvery.Load()
	if every <= 0 {
		return nil
	}
	sample := []int{c.Lo}
	for i := c.Lo + nextGap(every); i < c.Hi; i += nextGap(every) {
		sample = append(sample, i)
	}
	return sample
}

// nextGap is the distance to the next element sampled when each is with
// chance 1/every: geometric, drawn once per element sampled rather than
// a draw per element of the batch (serial work for every element, on the
// batch's host step).
func nextGap(every int64) int {
	if every == 1 {
		return 1
	}
	u := 1 - mrand.Float64() // in (0, 1]
	gap := math.Floor(math.Log(u)/math.Log1p(-1/float64(every))) + 1
	return int(min(gap, math.MaxInt32))
}

// CheckFailed is the error of a batch whose result check found element
// i's device result wrong.
func CheckFailed(i int) error {
	return fmt.Errorf("the device's result of element %d differs from the CPU's (result check)", i)
}

// Check runs ok on each element of the sample on all cores and returns
// CheckFailed for one that fails (nil: none).
func Check(sample []int, ok func(i int) bool) error {
	var bad atomic.Int64
	bad.Store(-1)
	batch.Parallel(len(sample), 1, func(a, b int) {
		for _, i := range sample[a:b] {
			if !ok(i) {
				bad.Store(int64(i))
			}
		}
	})
	if i := bad.Load(); i >= 0 {
		return CheckFailed(int(i))
	}
	return nil
}

// Device is the device the batch runs on.
func (c *Chunk) Device() *device.Device { return c.core.dev }

// Fault counts an element of the batch whose device result the device's
// own fault check refused, and which the job computes on the CPU instead
// (batch.Stats.Faults). Safe for concurrent use.
func (c *Chunk) Fault() { c.core.recorder().faults.Add(1) }

// release zeroes the staging (but for the ranges already zeroed or
// public) and scratch memory and gives it back.
func (c *Chunk) release() {
	for _, s := range c.mems {
		slices.SortFunc(s.clean, func(a, b [2]int) int { return a[0] - b[0] })
		at := 0
		for _, r := range s.clean {
			if r[0] > at {
				clearParallel(s.mem.Bytes[at:r[0]])
			}
			at = max(at, r[1])
		}
		if at < s.used {
			clearParallel(s.mem.Bytes[at:s.used])
		}
		c.core.staging.Put(s.mem)
	}
	for _, b := range c.scratch {
		putScratch(b)
	}
	c.mems, c.scratch = nil, nil
}

// clearParallel zeroes b, on all cores when it is large.
func clearParallel(b []byte) {
	const piece = 1 << 20
	batch.Parallel((len(b)+piece-1)/piece, 1, func(lo, hi int) {
		clear(b[lo*piece : min(hi*piece, len(b))])
	})
}
