package batch_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
)

// BenchmarkOffloadCheap: requests that the CPU computes in about a
// microsecond, from many goroutines, with a slow device: the CPU path's
// own cost per request.
func BenchmarkOffloadCheap(b *testing.B) {
	cpu := func(in []int) ([]int, error) {
		x := in[0]
		for range 200 {
			x = x*31 + 7
		}
		return []int{x}, nil
	}
	dev := func(in []int) ([]int, error) { time.Sleep(5 * time.Millisecond); return make([]int, len(in)), nil }
	bt := batch.NewWithCPU(batch.Options{}, cpu, dev)
	defer bt.Close()
	for range 10 {
		bt.Do(context.Background(), 1)
	}
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			bt.Do(context.Background(), 1)
		}
	})
	b.ReportMetric(float64(bt.OnCPU())/float64(b.N+10), "cpu-share")
}
