// Package engine is the execution layer under every algorithm of
// gpucrypto. An algorithm's Engine (rsa, ecdh, ed25519, ecdsa, aes, mlkem,
// arith) holds a Core and hands it each batch call as a Job: how to
// compute a range of the call's elements on the device and on the CPU,
// and how to check one device result. The Core does the rest, the same
// way for every algorithm:
//
//   - the choice of device or CPU per call, from measured times (route.go),
//     so that no call is slower than the CPU would be;
//   - cutting a device call into batches of at most Plan.Chunk elements,
//     Plan.Depth of them in flight at once, so that the host's packing and
//     unpacking of one overlaps the device work of another;
//   - pinned staging memory and device buffers kept between batches, and
//     zeroed when a batch is done but where they held public values alone
//     (Chunk.Staging, Chunk.Public, Chunk.Run);
//   - recomputing on the CPU a batch that the device failed or whose
//     sampled result check failed, and reporting it (OnFallback, a
//     logger; nothing is logged unless asked);
//   - the statistics (batch.Stats) and the device time;
//   - the hooks through which tests fail a device or slow a path
//     (Hooks);
//   - the end of its life (Close).
package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// BufferIdle is how long a Core keeps the device buffers and staging
// memory of its last batches for the next ones (and an engine what else
// it keeps on the device for later batches: rsa's key tables).
const BufferIdle = 10 * time.Second

// Core runs the calls of one algorithm's engine on one device, or on the
// CPU alone. It is safe for concurrent use: concurrent calls overlap on
// the device as the batches of one call do.
type Core struct {
	name string         // the algorithm, in errors and reports ("ecdh")
	dev  *device.Device // nil: the CPU alone

	pool    *device.Pool     // device buffers
	staging *device.HostPool // pinned host memory
	stages  lazy[*device.Stages]

	route      atomic.Int32 // batch.Route
	checkEvery atomic.Int64 // SetResultCheck
	times      estimates
	stats      recorder
	// selfTesting counts the self-tests running (SelfTest): their calls
	// are counted in selfStats, apart from the user's
	selfTesting atomic.Int32
	selfStats   recorder

	notify atomic.Pointer[func(error)]
	logger atomic.Pointer[slog.Logger]
	hooks  atomic.Pointer[Hooks]

	mu     sync.RWMutex // closed, against calls that start
	closed bool
	calls  sync.WaitGroup
	onExit []func() error // Close runs them after the calls end
}

// New returns a Core on dev, or on the CPU alone when dev is nil. name
// is the algorithm's package name, in errors and reports.
func New(name string, dev *device.Device) *Core {
	c := &Core{name: name, dev: dev}
	if dev != nil {
		c.pool = dev.NewPool(BufferIdle)
		c.staging = dev.NewHostPool(BufferIdle)
		c.stages.make = dev.NewStages
	}
	c.times.shapes = map[shapeKey]*shape{}
	return c
}

// Device is the Core's device (nil: the CPU alone).
func (c *Core) Device() *device.Device { return c.dev }

// String names where the Core computes: "device <name>" or "CPU".
func (c *Core) String() string {
	if c.dev == nil {
		return "CPU"
	}
	return "device " + c.dev.Name
}

// Stages returns the Core's device stages (made on first use).
func (c *Core) Stages() (*device.Stages, error) {
	if c.dev == nil {
		return nil, errors.New(c.name + ": no device")
	}
	s, err := c.stages.get()
	if err != nil {
		return nil, fmt.Errorf("%s: making the queues of %s: %w", c.name, c.dev.Name, err)
	}
	return s, nil
}

// Pool is the Core's pool of device buffers (nil on the CPU).
func (c *Core) Pool() *device.Pool { return c.pool }

// SetRoute sets where calls run (batch.RouteAuto by default).
func (c *Core) SetRoute(r batch.Route) { c.route.Store(int32(r)) }

// Route is the setting of SetRoute.
func (c *Core) Route() batch.Route { return batch.Route(c.route.Load()) }

// SetResultCheck makes the jobs check about one device result in every
// on the CPU (and the first of every batch: Chunk.Sample); 0 turns the
// check off.
func (c *Core) SetResultCheck(every int) { c.checkEvery.Store(int64(max(every, 0))) }

// ResultCheck is the setting of SetResultCheck.
func (c *Core) ResultCheck() int { return int(c.checkEvery.Load()) }

// OnFallback sets the function told about each device batch recomputed on
// the CPU (nil: none).
func (c *Core) OnFallback(f func(error)) {
	if f == nil {
		c.notify.Store(nil)
		return
	}
	c.notify.Store(&f)
}

// SetLogger makes the Core log each fallback at level Warn on l (nil: no
// logging, the default).
func (c *Core) SetLogger(l *slog.Logger) { c.logger.Store(l) }

// Stats returns the Core's counts.
func (c *Core) Stats() batch.Stats { return c.stats.snapshot() }

// recorder is where the Core counts a call now: its Stats, or apart from
// them while a self-test runs.
func (c *Core) recorder() *recorder {
	if c.selfTesting.Load() > 0 {
		return &c.selfStats
	}
	return &c.stats
}

// SelfTest runs test, a package's known-answer test of the Core's engine,
// with the calls it makes counted apart from the user's (Stats leaves
// them out; SelfTestStats has them). Calls of other goroutines while it
// runs are counted apart too: a self-test runs before an engine is
// handed out, or on its own.
func (c *Core) SelfTest(test func() error) error {
	c.selfTesting.Add(1)
	defer c.selfTesting.Add(-1)
	return test()
}

// SelfTestStats are the counts of the calls of self-tests (SelfTest).
func (c *Core) SelfTestStats() batch.Stats { return c.selfStats.snapshot() }

// ReleaseBuffers frees the device buffers and staging memory kept for
// later batches (they are zero where they held secrets).
func (c *Core) ReleaseBuffers() {
	if c.dev != nil {
		c.pool.Drain()
		c.staging.Drain()
	}
}

// OnClose registers f to run when the Core closes, after its calls have
// ended (an engine frees its programs' tables there).
func (c *Core) OnClose(f func() error) {
	c.mu.Lock()
	c.onExit = append(c.onExit, f)
	c.mu.Unlock()
}

// ErrClosed is the error of a call on a closed Core (it wraps
// batch.ErrClosed).
func (c *Core) ErrClosed() error { return fmt.Errorf("%s: engine closed: %w", c.name, batch.ErrClosed) }

// Err is the error of a call on the Core now: ErrClosed's once it is
// closed, else nil.
func (c *Core) Err() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return c.ErrClosed()
	}
	return nil
}

// Close makes later calls fail (ErrClosed), waits for the running ones,
// and frees what the Core keeps on the device. Calling it again does
// nothing and returns nil.
func (c *Core) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	exit := c.onExit
	c.mu.Unlock()
	c.calls.Wait()
	var errs []error
	for _, f := range exit {
		errs = append(errs, f())
	}
	c.ReleaseBuffers()
	if s, ok := c.stages.made(); ok {
		errs = append(errs, s.Release())
	}
	return errors.Join(errs...)
}

// begin starts a call: an error once the Core is closed.
func (c *Core) begin() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return c.ErrClosed()
	}
	c.calls.Add(1)
	return nil
}

// Use runs f as a call of the Core's (Close waits for it), for work
// outside Run on the Core's device: device-resident calls, say.
func (c *Core) Use(f func() error) error {
	if err := c.begin(); err != nil {
		return err
	}
	defer c.calls.Done()
	return f()
}

// fellBack counts a device batch of n elements recomputed on the CPU
// and reports err, which says what failed.
func (c *Core) fellBack(n int, err error) {
	c.recorder().fallback(n)
	err = fmt.Errorf("%s: %s failed, batch recomputed on the CPU: %w", c.name, c, err)
	if f := c.notify.Load(); f != nil {
		(*f)(err)
	}
	if l := c.logger.Load(); l != nil {
		l.Warn("gpucrypto: device batch recomputed on the CPU", "engine", c.name, "device", c.dev.Name, "elements", n, "error", err)
	}
}

// lazy is a value made on first use, once.
type lazy[T any] struct {
	make func() (T, error)
	once sync.Once
	val  T
	err  error
	done atomic.Bool
}

func (l *lazy[T]) get() (T, error) {
	l.once.Do(func() {
		l.val, l.err = l.make()
		l.done.Store(true)
	})
	return l.val, l.err
}

// made returns the value if it was made without error.
func (l *lazy[T]) made() (T, bool) {
	var zero T
	if !l.done.Load() || l.err != nil {
		return zero, false
	}
	return l.val, true
}

// CheckIdleZero returns an error unless every buffer the Core keeps for
// later batches (staging memory and device buffers) is all zero: none
// holds a secret of an earlier batch. Tests call it while no call runs,
// on Cores whose jobs mark no staging memory Chunk.Public (that keeps its
// public values).
func (c *Core) CheckIdleZero() error {
	if c.dev == nil {
		return nil
	}
	if err := allZero("staging memory", c.staging.IdleContents()); err != nil {
		return err
	}
	idle, err := c.pool.IdleContents()
	if err != nil {
		return err
	}
	return allZero("device buffer", idle)
}

// allZero returns an error naming the first of bufs (what) with a byte
// that is not zero.
func allZero(what string, bufs [][]byte) error {
	for n, b := range bufs {
		for i, x := range b {
			if x != 0 {
				return fmt.Errorf("idle %s %d of %d bytes: byte %d is %#x", what, n, len(b), i, x)
			}
		}
	}
	return nil
}

// IdleStaging is the number of staging allocations the Core keeps.
func (c *Core) IdleStaging() int {
	if c.dev == nil {
		return 0
	}
	n, _ := c.staging.Idle()
	return n
}

// Auto is every package's Auto: an engine made by onDevice on the device
// that device.Choose picks, or cpu() where it picks none or onDevice
// fails; the Choice says which and why.
func Auto[E any](onDevice func(*device.Device) (E, error), cpu func() E) (E, device.Choice) {
	choice := device.Choose()
	if choice.Device != nil {
		e, err := onDevice(choice.Device)
		if err == nil {
			return e, choice
		}
		choice = choice.Fallback(err)
	}
	return cpu(), choice
}
