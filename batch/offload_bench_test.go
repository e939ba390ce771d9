package batch_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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

// BenchmarkOffloadAsync: requests of about 40 µs on the CPU (an Ed25519
// signature's cost) kept in flight with Go by GOMAXPROCS submitters (as
// `gpucrypto bench server` does), with a slow device, beside as many
// goroutines as requests in flight each computing the operation in a loop
// (go): the asynchronous CPU path's own cost.
func BenchmarkOffloadAsync(b *testing.B) {
	work := func(x int) int { return fixedWork(x, 40_000) }
	submitters := runtime.GOMAXPROCS(0)
	for _, inFlight := range []int{submitters, 4 * submitters, 16 * submitters} {
		b.Run(fmt.Sprintf("server/in-flight=%d", inFlight), func(b *testing.B) {
			cpu := func(in []int) ([]int, error) { return []int{work(in[0])}, nil }
			dev := func(in []int) ([]int, error) { time.Sleep(5 * time.Millisecond); return make([]int, len(in)), nil }
			bt := batch.NewWithCPU(batch.Options{}, cpu, dev)
			defer bt.Close()
			for range 10 {
				bt.Do(context.Background(), 1)
			}
			b.ResetTimer()
			keepInFlight(b, bt, submitters, inFlight)
			b.ReportMetric(float64(bt.OnCPU())/float64(b.N+10), "cpu-share")
		})
		b.Run(fmt.Sprintf("go/goroutines=%d", inFlight), func(b *testing.B) {
			var next, sink atomic.Int64
			var wg sync.WaitGroup
			for range inFlight {
				wg.Add(1)
				go func() {
					defer wg.Done()
					x := 0
					for next.Add(1) <= int64(b.N) {
						x += work(x)
					}
					sink.Add(int64(x)) // the work's result is used, as the Batcher's is
				}()
			}
			wg.Wait()
		})
	}
}

// BenchmarkOffloadSigning: crypto/ecdsa P-256 signatures (which allocate
// and read crypto/rand, so that their goroutines leave the core in the
// runtime) from GOMAXPROCS, 4x and 16x as many blocking callers, with a
// slow device, beside as many goroutines each signing in a loop (go): what
// the CPU path costs an operation that is not pure computation.
func BenchmarkOffloadSigning(b *testing.B) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(b, err)
	hash := sha256.Sum256([]byte("message"))
	sign := func() (int, error) {
		sig, err := ecdsa.SignASN1(rand.Reader, key, hash[:])
		return len(sig), err
	}
	for _, callers := range []int{runtime.GOMAXPROCS(0), 4 * runtime.GOMAXPROCS(0), 16 * runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("server/callers=%d", callers), func(b *testing.B) {
			cpu := func(int) (int, error) { return sign() }
			dev := func(in []int) ([]int, error) { time.Sleep(5 * time.Millisecond); return make([]int, len(in)), nil }
			bt := batch.NewWithCPUOne(batch.Options{}, cpu, dev)
			defer bt.Close()
			for range 10 {
				bt.Do(context.Background(), 1)
			}
			b.ResetTimer()
			inParallel(callers, b.N, func() {
				if _, err := bt.Do(context.Background(), 1); err != nil {
					b.Error(err)
				}
			})
			b.ReportMetric(float64(bt.OnCPU())/float64(b.N+10), "cpu-share")
		})
		b.Run(fmt.Sprintf("go/goroutines=%d", callers), func(b *testing.B) {
			inParallel(callers, b.N, func() {
				if _, err := sign(); err != nil {
					b.Error(err)
				}
			})
		})
	}
}

// inParallel calls f n times in all from as many goroutines as callers.
func inParallel(callers, n int, f func()) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				f()
			}
		}()
	}
	wg.Wait()
}

// BenchmarkOffloadClosedLoop: many requests in flight, each followed
// by the next as soon as it is answered, with requests of about 80 µs on
// the CPU and a device whose batches take about 100 µs of host work and 2
// ms of waiting: blocking callers, and calls kept in flight with Go by
// GOMAXPROCS submitters, each beside "device" (CPUOffload negative: every
// request batched). At 4 a core the CPU path is the faster; at 256 a core
// the device is, and this measures what the CPU path costs a load that
// is the device's. A caller that has been answered but not yet run again,
// or a submitter not yet run to submit the next, is in no count that take
// reads, and with the CPU path's requests computing on every core such
// goroutines wait for a core for many milliseconds: the load reads light,
// the CPU path takes it, and the batches' host work and answers wait
// behind it.
func BenchmarkOffloadClosedLoop(b *testing.B) {
	const cpuWork, hostWork = 80_000, 100_000 // about 80 and 100 µs
	cpu := func(in []int) ([]int, error) { return []int{fixedWork(in[0], cpuWork)}, nil }
	dev := func(in []int) ([]int, error) {
		fixedWork(len(in), hostWork)
		time.Sleep(2 * time.Millisecond)
		return in, nil
	}
	cores := runtime.GOMAXPROCS(0)
	for _, form := range []string{"blocking", "async"} {
		for _, inFlight := range []int{4 * cores, 256 * cores} {
			for _, path := range []struct {
				name    string
				offload int
			}{{"server", 0}, {"device", -1}} {
				b.Run(fmt.Sprintf("%s/%s/in-flight=%d", path.name, form, inFlight), func(b *testing.B) {
					bt := batch.NewWithCPU(batch.Options{CPUOffload: path.offload}, cpu, dev)
					defer bt.Close()
					start := time.Now()
					if form == "blocking" {
						inParallel(inFlight, b.N, func() {
							if _, err := bt.Do(context.Background(), 1); err != nil {
								b.Error(err)
							}
						})
					} else {
						keepInFlight(b, bt, cores, inFlight)
					}
					b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
					b.ReportMetric(float64(bt.OnCPU())/float64(b.N), "cpu-share")
				})
			}
		}
	}
}

// keepInFlight submits b.N requests to bt with Go from submitters
// goroutines, keeping inFlight of them in flight.
func keepInFlight(b *testing.B, bt *batch.Batcher[int, int], submitters, inFlight int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := make(chanCompleter, inFlight/submitters)
			out := 0
			submit := func() {
				if next.Add(1) > int64(b.N) {
					return
				}
				if err := bt.Go(context.Background(), 1, done); err != nil {
					b.Error(err)
					return
				}
				out++
			}
			for range inFlight / submitters {
				submit()
			}
			for out > 0 {
				<-done
				out--
				submit()
			}
		}()
	}
	wg.Wait()
}

// fixedWork is n multiply-adds from x: a fixed amount of work, whatever
// the scheduling.
func fixedWork(x, n int) int {
	for range n {
		x = x*31 + 7
	}
	return x
}
