package rsa

import (
	"crypto"
	stdrsa "crypto/rsa"
	"math/big"
	"sync/atomic"
	"testing"
	"weak"
)

// SetFailHook makes every device call of e call f first and fail with its
// error (nil: run normally). Tests use it to prove the CPU fallback; it has
// no effect on a CPU engine.
func (e *Engine) SetFailHook(f func() error) {
	e.mu.Lock()
	e.failHook = f
	e.mu.Unlock()
}

// NewFaultyCPUEngine returns a CPU engine whose private operations pass
// the mod-p half of each CRT computation through corrupt before
// recombination, to exercise the fault check.
func NewFaultyCPUEngine(corrupt func(mp *big.Int)) *Engine {
	c := &cpuBackend{corrupt: corrupt}
	return &Engine{be: c, cpu: c}
}

// NewGatedEngine returns an engine whose backend computes on the CPU once
// gate is closed, and stands for a stuck device until then. It counts the
// batches it was given in calls.
func NewGatedEngine(gate <-chan struct{}, calls *atomic.Int64) *Engine {
	g := &gatedBackend{gate: gate, calls: calls, cpu: &cpuBackend{}}
	return &Engine{be: g, cpu: g.cpu}
}

type gatedBackend struct {
	gate  <-chan struct{}
	calls *atomic.Int64
	cpu   *cpuBackend
}

func (g *gatedBackend) String() string { return "gated test backend" }

func (g *gatedBackend) wait() {
	<-g.gate
	g.calls.Add(1)
}

func (g *gatedBackend) private(keys []*privateKey, in, out [][]byte) error {
	g.wait()
	return g.cpu.private(keys, in, out)
}

func (g *gatedBackend) public(keys []*publicKey, in, out [][]byte) error {
	g.wait()
	return g.cpu.public(keys, in, out)
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

// InjectDeviceFault makes the next private batch of a device engine flip a
// bit of element i's mod-p half on the device, before recombination and
// the check. It reports false on an engine without a device backend.
func (e *Engine) InjectDeviceFault(i int) bool {
	d, ok := e.be.(*deviceBackend)
	if ok {
		d.fault.Store(int64(i))
	}
	return ok
}

// ProgramCount is the number of programs the engine's device has built or
// loaded (0 on a CPU engine).
func ProgramCount(e *Engine) int {
	if e.dev == nil {
		return 0
	}
	return e.dev.Programs()
}

// SignLoop is a benchmark's loop of e.SignPKCS1v15(keys, SHA-256,
// digests) after one untimed call (builds, warm-up): it reports ops/s and,
// on a device engine, kernel-ops/s (the work over the kernels' device
// time).
func SignLoop(b *testing.B, e *Engine, keys []*stdrsa.PrivateKey, digests [][]byte) {
	if _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); err != nil {
		b.Fatal(err)
	}
	t0 := e.DeviceTime()
	for b.Loop() {
		if _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(keys)*b.N)/b.Elapsed().Seconds(), "ops/s")
	if dt := e.DeviceTime() - t0; dt > 0 {
		b.ReportMetric(float64(len(keys)*b.N)/dt.Seconds(), "kernel-ops/s")
	}
}
