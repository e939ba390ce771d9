package ecdh

import (
	"crypto/rand"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// phaseTimes are the times of one device batch: pack (the keys into the
// staging memory), run (uploads, kernels, read-back, zeroing: the wall
// time the host waits) and unpack (the results into the callers'
// strings), in ms from a start.
type phaseTimes struct {
	lo                      int
	start, packed, ran, end float64
}

// timePhases makes e's device batches record their phases into record
// (ms from start) and returns the function that stops it.
func timePhases(e *Engine, start *time.Time, record func(phaseTimes)) func() {
	ms := func() float64 { return float64(time.Since(*start).Microseconds()) / 1000 }
	e.core.SetHooks(&engine.Hooks{Device: func(job engine.Job, ch *engine.Chunk) error {
		j := job.(*ladderJob)
		p := phaseTimes{lo: ch.Lo, start: ms()}
		err := j.onDevice(ch, func(ch *engine.Chunk, m *montgomery, b *ladderBatch) error {
			p.packed = ms()
			err := e.enqueue(ch, m, b)
			p.ran = ms()
			return err
		})
		p.end = ms()
		record(p)
		return err
	}})
	return func() { e.core.SetHooks(nil) }
}

// BenchmarkPhases times the phases of one device batch of X25519 shared
// secrets and X448 shared secrets alone, with the kernels' device time:
// it says where a lone caller's time goes (issue #11).
func BenchmarkPhases(b *testing.B) {
	e, err := NewEngine(devicetest.Device(b))
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	for _, c := range Curves() {
		for _, n := range []int{65536, 262144} {
			privs, peers := randomKeys(c, n), randomKeys(c, n)
			b.Run(fmt.Sprintf("%s/%d", c, n), func(b *testing.B) {
				var start time.Time
				var sum phaseTimes
				defer timePhases(e, &start, func(p phaseTimes) {
					sum.packed += p.packed - p.start
					sum.ran += p.ran - p.packed
					sum.end += p.end - p.ran
				})()
				kernels := e.Stats().DeviceTime
				for b.Loop() {
					start = time.Now()
					if _, err := e.SharedSecrets(c, privs, peers); err != nil {
						b.Fatal(err)
					}
				}
				per := func(ms float64) float64 { return ms / float64(b.N) }
				b.ReportMetric(per(sum.packed), "prepare-ms")
				b.ReportMetric(per(sum.ran), "run-ms")
				b.ReportMetric(per(float64((e.Stats().DeviceTime-kernels).Microseconds())/1000), "kernel-ms")
				b.ReportMetric(per(sum.end), "finish-ms")
			})
		}
	}
}

// BenchmarkPhasesPipelined is the pipelined chunks of one large X25519
// call (GPUCRYPTO_BENCH_ECDH_BATCH, default 1048576) with a timeline:
// when each chunk packed, ran and unpacked, in ms from the start of the
// call (logged with -test.v).
func BenchmarkPhasesPipelined(b *testing.B) {
	e, err := NewEngine(devicetest.Device(b))
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	n := 1 << 20
	if s := os.Getenv("GPUCRYPTO_BENCH_ECDH_BATCH"); s != "" {
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	c := X25519()
	privs, peers := randomKeys(c, n), randomKeys(c, n)
	var mu sync.Mutex
	var lines []string
	var start time.Time
	defer timePhases(e, &start, func(p phaseTimes) {
		mu.Lock()
		lines = append(lines, fmt.Sprintf("chunk %7d: prepare %7.2f-%7.2f  run %7.2f-%7.2f  finish %7.2f-%7.2f", p.lo, p.start, p.packed, p.packed, p.ran, p.ran, p.end))
		mu.Unlock()
	})()
	for b.Loop() {
		lines = lines[:0]
		start = time.Now()
		if _, err := e.SharedSecrets(c, privs, peers); err != nil {
			b.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("call: %.2f ms", float64(time.Since(start).Microseconds())/1000))
	}
	b.Logf("last call, %d elements:\n%s", n, strings.Join(lines, "\n"))
}

// randomKeys returns n random byte strings of c's key size.
func randomKeys(c Curve, n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = make([]byte, c.Size())
		rand.Read(keys[i])
	}
	return keys
}
