package engine

import "time"

// Hooks are the points where tests reach into a Core: to fail or slow its
// device, slow its CPU, or stand in for a job's device step. Production
// code sets none; a package's export_test.go sets them through SetHooks.
type Hooks struct {
	// BeforeDevice runs before each device batch [lo, hi); an error fails
	// the batch as a device fault would (the CPU recomputes it). A hook
	// that sleeps makes a slow device.
	BeforeDevice func(lo, hi int) error
	// Device, when set, runs in place of the job's device step (tests and
	// benchmarks of the host side give the job's device work to the host).
	Device func(job Job, c *Chunk) error
	// BeforeCPU runs before each computation of [lo, hi) on the CPU (a
	// hook that sleeps makes a slow CPU).
	BeforeCPU func(lo, hi int)
	// AfterEnqueue runs after a batch [lo, hi) has enqueued a set of
	// device commands (Chunk.Run); an error fails them there, as a device
	// that fails in the middle of a batch would.
	AfterEnqueue func(lo, hi int) error
	// AfterRun runs after a set of device commands of a batch has
	// completed, with the batch's staging memory, where its results
	// arrived: a hook that alters them makes a device that returns wrong
	// results.
	AfterRun func(lo, hi int, staging [][]byte)
	// Run, when set, runs in place of each set of device commands of a
	// batch [lo, hi) (Chunk.Run: the uploads, kernels and read-backs),
	// with the batch's staging memory, where it writes the results the
	// job reads: benchmarks of the host side keep all of a job's host work
	// but the device's.
	Run func(lo, hi int, staging [][]byte) error
	// Step, when set, is told the duration of each step of the host work
	// (Core.Step) when it ends: benchmarks add them up per step.
	Step func(name string, d time.Duration)
}

// SetHooks sets the Core's hooks (nil: none).
func (c *Core) SetHooks(h *Hooks) { c.hooks.Store(h) }

// Hooks returns the Core's hooks (nil: none).
func (c *Core) Hooks() *Hooks { return c.hooks.Load() }
