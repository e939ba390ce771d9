package rsa

import (
	"crypto"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"strconv"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
)

// BenchmarkPhases times the phases of RSA-2048 signatures with one key on
// the device, as one Engine.SignPKCS1v15 call would run them but with the
// padding taken out of the pipeline: pad (the encoded messages, on all
// cores), private (the engine's call: grouping, conversions to and from
// limb columns, the device work in pipelined batches, the sample check)
// with the kernels' device time. It says where a lone caller's time goes
// (issue #11). GPUCRYPTO_BENCH_RSA_BATCH sets the batch (default 262144).
func BenchmarkPhases(b *testing.B) {
	n := benchBatch(b, 262144)
	k := loadKey(b, "rsa2048a")
	e := testDeviceEngine(b)
	e.OnFallback(func(err error) { b.Fatal(err) })
	keys := make([]*stdrsa.PrivateKey, n)
	digests := make([][]byte, n)
	for i := range n {
		d := sha256.Sum256([]byte(strconv.Itoa(i)))
		keys[i], digests[i] = k, d[:]
	}
	prefix, err := pkcs1v15Prefix(crypto.SHA256)
	if err != nil {
		b.Fatal(err)
	}
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, k.Size())
	}
	// builds and first allocations, outside the timing
	if _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); err != nil {
		b.Fatal(err)
	}
	var pad, priv, kern time.Duration
	for b.Loop() {
		t0 := time.Now()
		errs := make([]error, n)
		ks := preparePrivates(keys, errs)
		in := valueSlab(ks)
		batch.Parallel(n, 256, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				errs[i] = emsaPKCS1v15Into(in[i], crypto.SHA256, prefix, digests[i])
			}
		})
		t1 := time.Now()
		before := e.Stats().DeviceTime
		_, err := e.private(&call[*privateKey]{keys: ks, errs: errs, out: out,
			input: func(i int, _ []byte) ([]byte, error) { return in[i], nil }})
		t2 := time.Now()
		kern += e.Stats().DeviceTime - before
		if err != nil {
			b.Fatal(err)
		}
		pad, priv = pad+t1.Sub(t0), priv+t2.Sub(t1)
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(pad), "pad-ms")
	b.ReportMetric(per(priv), "private-ms")
	b.ReportMetric(per(kern), "kernel-ms")
}
