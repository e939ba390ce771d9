package hostbench

import (
	"sync"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Pipeline measures a call of n elements on core as the GPU runs it, with
// the device's commands replaced by a simulated device: the batches' sets
// of commands run one at a time, each taking perElement per element
// (after device, which writes the results the job reads, as for Run), and
// the host's work of the batches in flight overlaps them as it would a
// GPU's. It reports kernel-%, the simulated kernels' share of the call's
// wall time (what end to end against the kernel rate is on a GPU), and
// first-kernel-ms, when the first batch's commands started. A perElement
// that makes the host's share of a call about what it is on the GPU's
// host (its cores against this machine's) makes changes to the pipeline
// (batches in flight, their order, the first batch's size) comparable
// without a GPU; the figures are a model's, not a GPU's.
func Pipeline(b *testing.B, core *engine.Core, n int, perElement time.Duration, device func(lo, hi int, staging [][]byte) error, call func() error) {
	var mu sync.Mutex // the device: one set of commands at a time
	var kernels, first time.Duration
	var start time.Time
	var started bool
	core.SetHooks(&engine.Hooks{Run: func(lo, hi int, staging [][]byte) error {
		if device != nil {
			if err := device(lo, hi, staging); err != nil {
				return err
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if !started {
			started, first = true, time.Since(start)
		}
		d := time.Duration(hi-lo) * perElement
		time.Sleep(d)
		kernels += d
		return nil
	}})
	defer core.SetHooks(nil)
	if err := call(); err != nil { // warm: staging memory, the heap's size
		b.Fatal(err)
	}
	var wall, sumKernels, sumFirst time.Duration
	for b.Loop() {
		mu.Lock()
		kernels, started = 0, false
		start = time.Now()
		mu.Unlock()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
		mu.Lock()
		sumKernels += kernels
		sumFirst += first
		mu.Unlock()
	}
	b.ReportMetric(100*sumKernels.Seconds()/wall.Seconds(), "kernel-%")
	b.ReportMetric(sumFirst.Seconds()*1e3/float64(b.N), "first-kernel-ms")
}
