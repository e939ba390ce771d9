package rsa

import (
	"crypto"
	stdrsa "crypto/rsa"
	"math/big"
	"sync/atomic"
	"testing"
	"weak"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// SetFailHook makes every device batch of e call f first and fail with its
// error (nil: run normally). Tests use it to prove the CPU fallback; it has
// no effect on a CPU engine.
func (e *Engine) SetFailHook(f func() error) {
	if f == nil {
		e.core.SetHooks(nil)
		return
	}
	e.core.SetHooks(&engine.Hooks{BeforeDevice: func(lo, hi int) error { return f() }})
}

// NewFaultyCPUEngine returns a CPU engine whose private operations pass
// the mod-p half of each CRT computation through corrupt before
// recombination, to exercise the fault check.
func NewFaultyCPUEngine(corrupt func(mp *big.Int)) *Engine {
	e := CPUEngine()
	e.corrupt = corrupt
	return e
}

// NewGatedEngine returns a CPU engine that stands for a stuck device until
// gate is closed, and computes afterwards. It counts the jobs it was
// given (one per size class of a call) in calls.
func NewGatedEngine(gate <-chan struct{}, calls *atomic.Int64) *Engine {
	e := CPUEngine()
	e.core.SetHooks(&engine.Hooks{BeforeCPU: func(lo, hi int) {
		<-gate
		calls.Add(1)
	}})
	return e
}

// GateDevice makes the device engine e stand for a stuck device until gate
// is closed: every device batch waits for it, then computes (counted in
// calls). Its calls go to the device whatever their size.
func GateDevice(e *Engine, gate <-chan struct{}, calls *atomic.Int64) {
	e.SetRoute(batch.RouteDevice)
	e.core.SetHooks(&engine.Hooks{BeforeDevice: func(lo, hi int) error {
		<-gate
		calls.Add(1)
		return nil
	}})
}

// CachedPrivate returns the cache entry of the private key w points to
// (nil when none): its identity tells whether a key was prepared again.
func CachedPrivate(w weak.Pointer[stdrsa.PrivateKey]) any {
	privCache.mu.Lock()
	defer privCache.mu.Unlock()
	if e, ok := privCache.m[w]; ok {
		return e
	}
	return nil
}

// CachedPublic is CachedPrivate for public keys.
func CachedPublic(w weak.Pointer[stdrsa.PublicKey]) any {
	pubCache.mu.Lock()
	defer pubCache.mu.Unlock()
	if e, ok := pubCache.m[w]; ok {
		return e
	}
	return nil
}

// faultsOn makes the test run with fault injection (faults): rsa.cl built
// with RSA_FAULT_INJECTION until the test ends.
func faultsOn(t testing.TB) {
	t.Helper()
	if faults != nil {
		return
	}
	faults = new(atomic.Int64)
	faults.Store(-1)
	t.Cleanup(func() { faults = nil })
}

// InjectDeviceFault makes the next private job of a device engine (the
// elements of one size class of a call) flip a bit of its element i's
// mod-p half on the device, before recombination and the check, with
// rsa.cl built for fault injection until the test ends. It reports false
// on a CPU engine.
func (e *Engine) InjectDeviceFault(t testing.TB, i int) bool {
	if e.d == nil {
		return false
	}
	faultsOn(t)
	faults.Store(int64(i))
	return true
}

// ProgramCount is the number of programs the engine's device has built or
// loaded (0 on a CPU engine).
func ProgramCount(e *Engine) int {
	if e.Device() == nil {
		return 0
	}
	return e.Device().Programs()
}

// SignLoop is a benchmark's loop of e.SignPKCS1v15(keys, SHA-256,
// digests) after one untimed call (builds, warm-up), with e's calls routed
// to its device (batch.RouteDevice, left so; none on a CPU engine): it
// reports ops/s and, on a device engine, kernel-ops/s (the work over the
// kernels' device time).
func SignLoop(b *testing.B, e *Engine, keys []*stdrsa.PrivateKey, digests [][]byte) {
	e.SetRoute(batch.RouteDevice)
	if _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); err != nil {
		b.Fatal(err)
	}
	t0 := e.Stats().DeviceTime
	for b.Loop() {
		if _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(keys)*b.N)/b.Elapsed().Seconds(), "ops/s")
	if dt := e.Stats().DeviceTime - t0; dt > 0 {
		b.ReportMetric(float64(len(keys)*b.N)/dt.Seconds(), "kernel-ops/s")
	}
}

// CheckIdleZero returns an error unless every idle buffer of e, host and
// device, is zero.
func (e *Engine) CheckIdleZero() error { return e.core.CheckIdleZero() }

// Offloaded is the number of requests s computed on its CPU path instead
// of batching them (Stats counts them among CPUOps, with the engines').
func (s *Server) Offloaded() int64 { return s.b.OnCPU() }
