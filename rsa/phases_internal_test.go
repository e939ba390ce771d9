package rsa

import (
	"crypto"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"math/big"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
)

// BenchmarkPhases times the phases of one Engine.SignPKCS1v15 call of
// RSA-2048 signatures with one key on the device: pad (the encoded
// messages as integers), private (grouping, conversions, the device work
// in pipelined chunks, the sample check) with the kernels' device time,
// and encode (the signatures as bytes). It says where a lone caller's
// time goes (issue #11). GPUCRYPTO_BENCH_RSA_BATCH sets the batch
// (default 262144).
func BenchmarkPhases(b *testing.B) {
	n := 262144
	if s := os.Getenv("GPUCRYPTO_BENCH_RSA_BATCH"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	k := loadKey(b, "rsa2048a")
	e := &Engine{be: testDeviceBackend(b), cpu: &cpuBackend{}}
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
	// builds and first allocations, outside the timing
	if _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); err != nil {
		b.Fatal(err)
	}
	var pad, priv, kern, enc time.Duration
	for b.Loop() {
		t0 := time.Now()
		errs := make([]error, n)
		ks := preparePrivates(keys, errs)
		in := make([]*big.Int, n)
		batch.Parallel(n, 256, func(lo, hi int) {
			em := make([]byte, (MaxKeyBits+7)/8)
			for i := lo; i < hi; i++ {
				in[i], errs[i] = pkcs1v15SignInput(ks[i].k.pub, crypto.SHA256, prefix, digests[i], em)
			}
		})
		t1 := time.Now()
		before := e.DeviceTime()
		m := e.private(ks, in, errs)
		t2 := time.Now()
		kern += e.DeviceTime() - before
		batch.Parallel(n, 1024, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if errs[i] == nil {
					m[i].FillBytes(make([]byte, modBytes(ks[i].k.pub)))
				}
			}
		})
		t3 := time.Now()
		if err := batch.Collect(errs); err != nil {
			b.Fatal(err)
		}
		pad, priv, enc = pad+t1.Sub(t0), priv+t2.Sub(t1), enc+t3.Sub(t2)
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(pad), "pad-ms")
	b.ReportMetric(per(priv), "private-ms")
	b.ReportMetric(per(kern), "kernel-ms")
	b.ReportMetric(per(enc), "encode-ms")
}
