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
)

// BenchmarkPhases times the phases of one device batch of X25519 shared
// secrets and X448 shared secrets alone: prepare (decode into the
// limb-major rows), run (uploads, kernels, read-back, zeroing: the wall
// time the host waits) with the kernels' device time, and finish
// (encode). It says where a lone caller's time goes (issue #11).
func BenchmarkPhases(b *testing.B) {
	e, err := NewEngine(devicetest.Device(b))
	if err != nil {
		b.Fatal(err)
	}
	defer e.ReleaseBuffers()
	for _, c := range Curves {
		for _, n := range []int{65536, 262144} {
			privs, peers := randomKeys(c, n), randomKeys(c, n)
			out := resultStrings(c, n)
			b.Run(fmt.Sprintf("%s/%d", c, n), func(b *testing.B) {
				var prep, run, kern, fin time.Duration
				for b.Loop() {
					s := e.slots.get(c, true, n)
					w := c.limbs() * n
					s.dirty = w
					t0 := time.Now()
					errs := prepare(c, privs, peers, out, s.scal[:w], s.us[:w])
					t1 := time.Now()
					dur, err := e.run(c, s, n)
					if err != nil {
						b.Fatal(err)
					}
					t2 := time.Now()
					finish(c, s.res[:w], true, errs, out)
					t3 := time.Now()
					e.slots.put(s)
					prep, run, kern, fin = prep+t1.Sub(t0), run+t2.Sub(t1), kern+dur, fin+t3.Sub(t2)
				}
				per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
				b.ReportMetric(per(prep), "prepare-ms")
				b.ReportMetric(per(run), "run-ms")
				b.ReportMetric(per(kern), "kernel-ms")
				b.ReportMetric(per(fin), "finish-ms")
			})
		}
	}
}

// BenchmarkPhasesPipelined is compute's pipelined chunks of one large
// X25519 call (GPUCRYPTO_BENCH_ECDH_BATCH, default 1048576) with a
// timeline: when each chunk prepared, ran and finished, in ms from the
// start of the call (logged with -test.v).
func BenchmarkPhasesPipelined(b *testing.B) {
	e, err := NewEngine(devicetest.Device(b))
	if err != nil {
		b.Fatal(err)
	}
	defer e.ReleaseBuffers()
	n := 1 << 20
	if s := os.Getenv("GPUCRYPTO_BENCH_ECDH_BATCH"); s != "" {
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	c := X25519
	privs, peers := randomKeys(c, n), randomKeys(c, n)
	out := resultStrings(c, n)
	var mu sync.Mutex
	var lines []string
	for b.Loop() {
		lines = lines[:0]
		start := time.Now()
		ms := func() float64 { return float64(time.Since(start).Microseconds()) / 1000 }
		err := batch.Chunks(n, batch.EvenChunk(n, pipelineChunk), pipelineDepth, func(lo, hi int) error {
			m := hi - lo
			t0 := ms()
			s := e.slots.get(c, true, m)
			defer e.slots.put(s)
			w := c.limbs() * m
			s.dirty = w
			errs := prepare(c, privs[lo:hi], peers[lo:hi], out[lo:hi], s.scal[:w], s.us[:w])
			t1 := ms()
			dur, err := e.run(c, s, m)
			if err != nil {
				return err
			}
			t2 := ms()
			finish(c, s.res[:w], true, errs, out[lo:hi])
			t3 := ms()
			mu.Lock()
			lines = append(lines, fmt.Sprintf("chunk %7d: prepare %7.2f-%7.2f  run %7.2f-%7.2f (kernels %.2f)  finish %7.2f-%7.2f", lo, t0, t1, t1, t2, float64(dur.Microseconds())/1000, t2, t3))
			mu.Unlock()
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("call: %.2f ms", ms()))
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
