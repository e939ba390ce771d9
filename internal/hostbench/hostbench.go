// Package hostbench measures the host side of an engine's device calls:
// everything a call does on the host (the outputs, packing, unpacking,
// checks, the release of its memory, the garbage collector) with the
// device's commands replaced by a stand-in, so that it runs without a GPU
// and the time left is the host's alone.
package hostbench

import (
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Run measures call, a call of n elements on core, b.N times, with each
// set of device commands of its batches replaced by device (nil: nothing;
// it writes the results the job reads into the batch's staging memory),
// and reports per element: ns/elem, the call's wall time less the
// stand-in's; <step>-ns/elem, the time of each step (Core.Step) summed
// over the batches; gc-cpu-ns/elem, the garbage collector's CPU time;
// alloc-B/elem, the bytes allocated.
//
// The batches run one at a time (the next one starts when the last one's
// memory is released), so that no step's time holds another batch's
// work: with -cpu 1 the steps add up to about ns/elem, each one's cost in
// core time (the garbage collector's, which runs when it must, spread over
// them).
func Run(b *testing.B, core *engine.Core, n int, device func(lo, hi int, staging [][]byte) error, call func() error) {
	var mu, oneBatch sync.Mutex
	steps := map[string]time.Duration{}
	core.SetHooks(&engine.Hooks{
		BeforeDevice: func(lo, hi int) error {
			oneBatch.Lock()
			return nil
		},
		Run: func(lo, hi int, staging [][]byte) error {
			if device == nil {
				return nil
			}
			return device(lo, hi, staging)
		},
		Step: func(name string, d time.Duration) {
			mu.Lock()
			steps[name] += d
			mu.Unlock()
			if name == "release" { // the batch's last step
				oneBatch.Unlock()
			}
		},
	})
	defer core.SetHooks(nil)
	if err := call(); err != nil { // warm: staging memory, the heap's size
		b.Fatal(err)
	}
	mu.Lock()
	clear(steps)
	mu.Unlock()
	before := read()
	var wall time.Duration
	for b.Loop() {
		start := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
	}
	after := read()
	per := func(v float64) float64 { return v / float64(b.N) / float64(n) }
	mu.Lock()
	defer mu.Unlock()
	b.ReportMetric(per(float64(wall-steps["device"])), "ns/elem")
	names := make([]string, 0, len(steps))
	for name := range steps {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if name != "device" {
			b.ReportMetric(per(float64(steps[name])), strings.ReplaceAll(name, " ", "-")+"-ns/elem")
		}
	}
	b.ReportMetric(per((after[0].Float64()-before[0].Float64())*1e9), "gc-cpu-ns/elem")
	b.ReportMetric(per(float64(after[1].Uint64()-before[1].Uint64())), "alloc-B/elem")
}

// read reads the garbage collector's CPU time (seconds) and the bytes
// allocated so far.
func read() [2]metrics.Value {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return [2]metrics.Value{s[0].Value, s[1].Value}
}

// Size is the number of elements of the benchmarks' calls: 1,048,576, a
// call large enough that its host side, not the device's fixed costs,
// holds it short of the kernels' rate on a GPU.
const Size = 1 << 20
