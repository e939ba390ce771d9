//go:build linux

package rsa

import (
	"crypto"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"math/big"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// BenchmarkHostSign2048 measures the host side of device signing: a batch
// of RSA-2048 PKCS #1 v1.5 signatures with one key through
// Engine.SignPKCS1v15 on a device engine, with the device work (the
// uploads, kernels and reads of runPrivate) replaced by a stub whose time
// is left out (the key tables are still made and uploaded): host-ns/elem is wall time per element on this machine
// (GOMAXPROCS cores), host-cpu-ns/elem the CPU time of all threads per
// element (GC included; Linux). GPUCRYPTO_BENCH_RSA_BATCH sets the batch
// (default 65536).
func BenchmarkHostSign2048(b *testing.B) {
	n := benchBatch(b, 65536)
	k := loadKey(b, "rsa2048a")
	const period = 256 // distinct digests; the stub looks their signatures up
	keys := make([]*stdrsa.PrivateKey, n)
	digests := make([][]byte, n)
	sigs := map[[8]uint32][]uint32{} // low input words → signature limbs
	for i := range n {
		d := sha256.Sum256([]byte(strconv.Itoa(i % period)))
		keys[i], digests[i] = k, d[:]
		if i < period {
			em, err := emsaPKCS1v15(crypto.SHA256, digestInfoPrefixes[crypto.SHA256], d[:], k.Size())
			if err != nil {
				b.Fatal(err)
			}
			x, err := arith.ToLimbs(new(big.Int).SetBytes(em), 64)
			if err != nil {
				b.Fatal(err)
			}
			s, err := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d[:])
			if err != nil {
				b.Fatal(err)
			}
			if sigs[[8]uint32(x)], err = arith.ToLimbs(new(big.Int).SetBytes(s), 64); err != nil {
				b.Fatal(err)
			}
		}
	}
	e := testDeviceEngine(b)
	var stubNs, stubCPU atomic.Int64
	stub := func(ch *engine.Chunk, pb *privateBatch) error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		t0, c0 := time.Now(), threadCPU()
		defer func() {
			stubNs.Add(int64(time.Since(t0)))
			stubCPU.Add(int64(threadCPU() - c0))
		}()
		m, F, xs, vals := len(pb.kidx), pb.j.mf.W, pb.xs, pb.vals
		for col := range m {
			var lo [8]uint32
			for j := range lo {
				lo[j] = xs[j*m+col]
			}
			s := sigs[lo]
			for j := range F {
				vals[j*m+col] = s[j]
			}
			pb.ok[col] = 1
		}
		return nil
	}
	e.core.SetHooks(&engine.Hooks{Device: func(job engine.Job, ch *engine.Chunk) error {
		return job.(*privateJob).onDevice(ch, stub)
	}})
	e.OnFallback(func(err error) { b.Fatal(err) })
	if _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); err != nil {
		b.Fatal(err)
	}
	stubNs.Store(0)
	stubCPU.Store(0)
	var wall time.Duration
	cpu0 := processCPU()
	for b.Loop() {
		t0 := time.Now()
		if _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0)
	}
	cpu := processCPU() - cpu0 - time.Duration(stubCPU.Load())
	b.ReportMetric(float64((wall-time.Duration(stubNs.Load())).Nanoseconds())/float64(n*b.N), "host-ns/elem")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n*b.N), "host-cpu-ns/elem")
}

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU is the CPU time of the process so far, threadCPU that of the
// calling thread.
func processCPU() time.Duration { return rusage(syscall.RUSAGE_SELF) }
func threadCPU() time.Duration  { return rusage(1) } // RUSAGE_THREAD (Linux)
