package aes

import (
	"sync"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// The host-memory calls move their data through a pipeline of stages. A
// stage is a device queue (a CUDA stream) with its own staging memory on
// the host (pinned where the driver has it, so copies run without the
// CPU). While the device copies and computes one stage's chunk, the host
// fills the next stage and empties the previous one, and chunks of
// different stages copy in both directions at once.

const (
	stageCount = 4        // default stages per call (Engine.stageCount)
	stageBytes = 32 << 20 // default staging per stage (Engine.stageSize)
	stageTail  = 4 << 10  // after the staging: a schedule, and the like
)

// stage is one slot of the pipeline.
type stage struct {
	q    *device.Queue
	host *device.HostMemory // Engine.stageSize bytes of staging
}

// stageSet is the stages of one call.
type stageSet []*stage

// stageSets hands out stage sets: one per concurrent host-memory call,
// kept for later calls (ReleaseBuffers frees them).
type stageSets struct {
	mu   sync.Mutex
	free []stageSet
}

func (e *Engine) takeStages() (stageSet, error) {
	e.stages.mu.Lock()
	if n := len(e.stages.free); n > 0 {
		s := e.stages.free[n-1]
		e.stages.free = e.stages.free[:n-1]
		e.stages.mu.Unlock()
		return s, nil
	}
	e.stages.mu.Unlock()
	var s stageSet
	for range e.stageCount {
		q, err := e.dev.NewQueue()
		if err != nil {
			s.release()
			return nil, err
		}
		h, err := e.dev.HostAlloc(e.stageSize + stageTail)
		if err != nil {
			q.Release()
			s.release()
			return nil, err
		}
		s = append(s, &stage{q: q, host: h})
	}
	return s, nil
}

// putStages zeroes the staging memory (it held data) and keeps the set.
func (e *Engine) putStages(s stageSet, failed bool) {
	for _, st := range s {
		parallelClear(st.host.Bytes)
	}
	if failed {
		s.release()
		return
	}
	e.stages.mu.Lock()
	e.stages.free = append(e.stages.free, s)
	e.stages.mu.Unlock()
}

func (s stageSet) release() {
	for _, st := range s {
		st.q.Finish()
		st.q.Release()
		st.host.Free()
	}
}

func (e *Engine) releaseStages() {
	e.stages.mu.Lock()
	sets := e.stages.free
	e.stages.free = nil
	e.stages.mu.Unlock()
	for _, s := range sets {
		s.release()
	}
}

// pipeline runs jobs 0..n−1, job k on stage k mod stages: job(k, st)
// fills stage st on the host and enqueues its copies and kernels on st.q
// without waiting; the function it returns waits for them and finishes on
// the host. With hostWork, each stage has a goroutine of its own, so the
// host work of one stage (packing, copying, unpacking) overlaps the device
// work and the host work of the others; without, one goroutine enqueues
// every job and finishes each only when its stage is needed again (the
// faster order when the host has little to do: copies straight from
// pinned memory). The first error stops the pipeline; every enqueued job
// is still waited for.
func (e *Engine) pipeline(n int, hostWork bool, job func(k int, st *stage) (func() error, error)) error {
	if err := e.fail(); err != nil {
		return err
	}
	stages, err := e.takeStages()
	if err != nil {
		return err
	}
	if !hostWork {
		err := runInOrder(stages, n, job)
		e.putStages(stages, err != nil)
		return err
	}
	var (
		failed atomic.Bool
		mu     sync.Mutex
		first  error
		wg     sync.WaitGroup
	)
	for i, st := range stages[:min(len(stages), n)] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := i; k < n && !failed.Load(); k += len(stages) {
				finish, err := job(k, st)
				if finish != nil {
					if ferr := finish(); err == nil {
						err = ferr
					}
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	e.putStages(stages, first != nil)
	return first
}

// runInOrder runs the jobs from one goroutine: job k goes on stage k mod
// stages once that stage's previous job is finished.
func runInOrder(stages stageSet, n int, job func(k int, st *stage) (func() error, error)) error {
	pending := make([]func() error, len(stages))
	var first error
	settle := func(i int) {
		if pending[i] != nil {
			if err := pending[i](); err != nil && first == nil {
				first = err
			}
			pending[i] = nil
		}
	}
	for k := 0; k < n && first == nil; k++ {
		i := k % len(stages)
		settle(i)
		if first != nil {
			break
		}
		f, err := job(k, stages[i])
		pending[i] = f
		if err != nil && first == nil {
			first = err
		}
	}
	for j := range len(stages) {
		settle((n + j) % len(stages))
	}
	return first
}

// parallelCopy is copy on all cores, for large buffers.
func parallelCopy(dst, src []byte) {
	n := min(len(dst), len(src))
	const piece = 1 << 20
	batch.Parallel((n+piece-1)/piece, 1, func(lo, hi int) {
		copy(dst[lo*piece:min(hi*piece, n)], src[lo*piece:min(hi*piece, n)])
	})
}

func parallelClear(b []byte) {
	const piece = 1 << 20
	batch.Parallel((len(b)+piece-1)/piece, 1, func(lo, hi int) {
		clear(b[lo*piece : min(hi*piece, len(b))])
	})
}

// waitAll waits for and releases events, returning the first error.
func waitAll(evs ...*device.Event) error {
	var first error
	for _, ev := range evs {
		if ev == nil {
			continue
		}
		if err := ev.Wait(); err != nil && first == nil {
			first = err
		}
		ev.Release()
	}
	return first
}
