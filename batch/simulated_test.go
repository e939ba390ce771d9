package batch_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/cputime"
)

// simulatedDevice runs one batch at a time, in max(fixed, n/rate) (a GPU
// that a small batch does not fill: a batch of RSA-2048 signatures takes
// about as long at half the size), with host work before and after it of
// host per request, outside the device's lock.
type simulatedDevice struct {
	fixed, host time.Duration
	rate        float64
	mu          sync.Mutex
	sizes       []int
}

func (d *simulatedDevice) run(reqs []int) ([]int, error) {
	n := len(reqs)
	time.Sleep(time.Duration(n) * d.host / 2)
	d.mu.Lock()
	time.Sleep(d.kernel(n))
	d.sizes = append(d.sizes, n)
	d.mu.Unlock()
	time.Sleep(time.Duration(n) * d.host / 2)
	return reqs, nil
}

func (d *simulatedDevice) kernel(n int) time.Duration {
	return max(d.fixed, time.Duration(float64(n)/d.rate*float64(time.Second)))
}

// batches is how many batches the device has run so far.
func (d *simulatedDevice) batches() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.sizes)
}

// sizesFrom are the sizes of the batches the device ran from batch first on.
func (d *simulatedDevice) sizesFrom(first int) []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.sizes[first:])
}

// blockingCallers starts n goroutines, each calling bt.Do once answered
// (a closed loop) and counting in ops, until stop is set.
func blockingCallers(bt *batch.Batcher[int, int], n int, ops *atomic.Int64, stop *atomic.Bool, wg *sync.WaitGroup) {
	for caller := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				bt.Do(context.Background(), caller)
				ops.Add(1)
			}
		}()
	}
}

// BenchmarkSimulatedDevice is the Batcher under closed loops of callers
// over a simulated device shaped as RSA-2048 signing on a GPU (a batch
// of up to 7,000 in 65 ms, then 108K/s; host work 2 µs a
// request; MaxDelay 20 ms): blocking callers (each sends its next request
// once answered, as a TLS server's handshakes do), or 16 goroutines that
// keep as many requests in flight with Go (async). It reports ops/s, that
// as a share of the device's rate at batches of callers/2 (two in flight:
// what the engine alone does at that concurrency), the CPU time and the
// lock wait per operation (measureLoop), and the batch sizes' 10th and
// 90th percentiles. The wall-clock time of a run is -benchtime
// (use 4s).
func BenchmarkSimulatedDevice(b *testing.B) {
	for _, c := range []struct {
		form    string
		callers int
	}{{"blocking", 16384}, {"blocking", 65536}, {"async", 16384}} {
		callers := c.callers
		b.Run(fmt.Sprintf("rsa-shape/%s/callers=%d", c.form, callers), func(b *testing.B) {
			d := &simulatedDevice{fixed: 65 * time.Millisecond, rate: 108e3, host: 2 * time.Microsecond}
			bt := batch.New(batch.Options{MaxBatch: 16384, MaxDelay: 20 * time.Millisecond, Pipeline: 2, CPUOffload: -1}, d.run)
			defer bt.Close()
			var ops atomic.Int64
			var stop atomic.Bool
			var wg sync.WaitGroup
			if c.form == "blocking" {
				blockingCallers(bt, callers, &ops, &stop, &wg)
			} else {
				const submitters = 16
				for range submitters {
					wg.Add(1)
					go func() {
						defer wg.Done()
						done := make(completions, callers/submitters)
						for i := range callers / submitters {
							if err := bt.Go(context.Background(), i, done); err != nil {
								b.Error(err)
								return
							}
						}
						for range done {
							ops.Add(1)
							if stop.Load() {
								return
							}
							if err := bt.Go(context.Background(), 0, done); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
			}
			time.Sleep(time.Second) // the batches' sizes settle
			first := d.batches()
			rate := measureLoop(b, &ops)
			stop.Store(true)
			wg.Wait()
			sizes := d.sizesFrom(first)
			slices.Sort(sizes)
			even := min(callers/2, 16384)
			b.ReportMetric(100*rate/(float64(even)/d.kernel(even).Seconds()), "%-of-even-batches")
			if len(sizes) > 0 {
				b.ReportMetric(float64(sizes[len(sizes)/10]), "p10-batch")
				b.ReportMetric(float64(sizes[len(sizes)*9/10]), "p90-batch")
			}
		})
	}
}

// BenchmarkSimulatedCallers is the Batcher under closed loops of blocking
// callers over a simulated device shaped as X25519 through ecdh.Server
// (MaxBatch 16,384, Pipeline 4, AnswerPiece 128, the default MaxDelay
// and QueueSize), its device slow enough (a batch of 16,384 in about 80
// ms) that the host's cores are not the limit: callers 4 and 16 times
// MaxBatch (beyond the queue's limit and the batches in flight, callers
// wait for room); and
// shaped as a fast GPU's X25519 (0.2 ms, then 45M/s: the host's cores are
// the limit), 4 times MaxBatch, behind one engine and two; and over
// devices that take no time (instant, instant-2: the Batcher's own
// ceiling, to set beside BenchmarkGoroutineTurnaround's). It reports
// ops/s, the process's CPU time per operation, the time goroutines spent
// waiting for locks (the runtime's included) per operation, and the mean
// batch of the first engine.
func BenchmarkSimulatedCallers(b *testing.B) {
	for _, c := range []struct {
		shape   string
		callers int
		fixed   time.Duration // the simulated device's time per batch, and its rate after that
		rate    float64
		devices int
	}{
		{"x25519-shape", 65536, 10 * time.Millisecond, 200e3, 1},
		{"x25519-shape", 262144, 10 * time.Millisecond, 200e3, 1},
		{"x25519-h100", 65536, 200 * time.Microsecond, 45e6, 1},
		{"x25519-2xh100", 65536, 200 * time.Microsecond, 45e6, 2},
		// a device that takes no time: the Batcher's own ceiling on the host
		{"instant", 65536, 0, math.Inf(1), 1},
		{"instant-2", 65536, 0, math.Inf(1), 2},
	} {
		callers := c.callers
		b.Run(fmt.Sprintf("%s/blocking/callers=%d", c.shape, callers), func(b *testing.B) {
			devices := make([]*simulatedDevice, c.devices)
			runs := make([]batch.RunFunc[int, int], c.devices)
			for i := range devices {
				devices[i] = &simulatedDevice{fixed: c.fixed, rate: c.rate}
				runs[i] = devices[i].run
			}
			d := devices[0]
			bt := batch.New(batch.Options{MaxBatch: 16384, Pipeline: 4, AnswerPiece: 128, CPUOffload: -1}, runs...)
			defer bt.Close()
			var ops atomic.Int64
			var stop atomic.Bool
			var wg sync.WaitGroup
			blockingCallers(bt, callers, &ops, &stop, &wg)
			time.Sleep(2 * time.Second) // the queue fills, the batches' sizes settle
			first := d.batches()
			measureLoop(b, &ops)
			stop.Store(true)
			wg.Wait()
			sizes := d.sizesFrom(first)
			if len(sizes) > 0 {
				sum := 0
				for _, n := range sizes {
					sum += n
				}
				b.ReportMetric(float64(sum)/float64(len(sizes)), "mean-batch")
			}
		})
	}
}

// measureLoop is the measured window of a benchmark over closed loops
// that are running already and count their operations in ops: it reports
// ops/s, the process's CPU time per operation and the time goroutines
// waited for locks per operation, and returns the ops/s.
func measureLoop(b *testing.B, ops *atomic.Int64) float64 {
	before, start := ops.Load(), time.Now()
	cpu0, _ := cputime.Process()
	wait0 := lockWait()
	for b.Loop() {
		time.Sleep(10 * time.Millisecond)
	}
	cpu1, _ := cputime.Process()
	wait1 := lockWait()
	done := ops.Load() - before
	rate := float64(done) / time.Since(start).Seconds()
	b.ReportMetric(rate, "ops/s")
	if done > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(time.Microsecond)/float64(done), "cpu-µs/op")
		b.ReportMetric((wait1-wait0)*1e6/float64(done), "lock-wait-µs/op")
	}
	return rate
}

// lockWait is the time goroutines have spent blocked on a sync.Mutex or
// a lock of the runtime's own (its scheduler's, its channels'), in
// seconds, so far.
func lockWait() float64 {
	s := []metrics.Sample{{Name: "/sync/mutex/wait/total:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return s[0].Value.Float64()
}

// BenchmarkGoroutineTurnaround is the Go runtime's ceiling for blocking
// callers, with no Batcher: callers goroutines each wait on a channel of
// their own, and answerers goroutines each answer their share of them in
// rounds, sending on each one's channel (which makes it runnable) and
// then waiting until every one of them has come back (each woken caller
// counts itself in and waits on its channel again; the last one of a
// round wakes its answerer). An answerer sends on all of its share's
// channels itself (piece=0), or starts a goroutine for each piece of
// 128 of them, as ecdh.Server's Batchers answer a batch (piece=128). An
// operation is one caller woken and parked again: the least that a
// blocking Do costs the scheduler. Compare its ops/s with
// BenchmarkSimulatedCallers' instant device on the same host.
//
// The first of its runs in a process reads higher than the others: a
// process that has had 65,536 other goroutines before (these runs' own
// callers, or another benchmark's) turns its goroutines around more
// slowly. A server that has run for a while is such a process.
func BenchmarkGoroutineTurnaround(b *testing.B) {
	for _, answerers := range []int{1, 8, runtime.GOMAXPROCS(0)} {
		for _, piece := range []int{0, 128} { // 128: ecdh.Server's AnswerPiece
			const callers = 65536
			b.Run(fmt.Sprintf("callers=%d/answerers=%d/piece=%d", callers, answerers, piece), func(b *testing.B) {
				turnaround(b, callers, answerers, piece)
			})
		}
	}
}

// turnaround is BenchmarkGoroutineTurnaround's run with callers,
// answerers and pieces of piece callers (0: none).
func turnaround(b *testing.B, callers, answerers, piece int) {
	var ops atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for a := range answerers {
		share := callers / answerers
		if a == answerers-1 {
			share = callers - a*share
		}
		inbox := make([]chan struct{}, share)
		back := make(chan struct{}, 1)
		var count atomic.Int64
		for i := range inbox {
			inbox[i] = make(chan struct{}, 1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range inbox[i] {
					if count.Add(1) == int64(share) {
						back <- struct{}{}
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				for _, c := range inbox {
					close(c)
				}
			}()
			for !stop.Load() {
				count.Store(0)
				if piece == 0 {
					wakeAll(inbox)
				} else {
					for lo := 0; lo < len(inbox); lo += piece {
						go wakeAll(inbox[lo:min(lo+piece, len(inbox))])
					}
				}
				<-back
				ops.Add(int64(share))
			}
		}()
	}
	time.Sleep(time.Second)
	measureLoop(b, &ops)
	stop.Store(true)
	wg.Wait()
}

// wakeAll sends on each of inbox's channels.
func wakeAll(inbox []chan struct{}) {
	for _, c := range inbox {
		c <- struct{}{}
	}
}
