package aes

import (
	"sync"

	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// ProgramSource is programSource, for the build tests.
var ProgramSource = programSource

// SetFailHook makes every later device batch fail with f's error (nil:
// none).
func (e *Engine) SetFailHook(f func() error) {
	e.setHooks(func(h *engine.Hooks) {
		h.BeforeDevice = nil
		if f != nil {
			h.BeforeDevice = func(lo, hi int) error { return f() }
		}
	})
}

// SetStageBytes sets the bytes of a device batch (a multiple of 16), so
// that tests cross batch boundaries with small inputs.
func (e *Engine) SetStageBytes(n int) { e.batchBytes = n }

// SetAlterHook makes f change the device's results of every later batch
// (each staging region where they arrived) before the result check sees
// them (nil: none), as a faulty device would.
func (e *Engine) SetAlterHook(f func(staging [][]byte)) {
	e.setHooks(func(h *engine.Hooks) {
		h.AfterRun = nil
		if f != nil {
			h.AfterRun = func(lo, hi int, staging [][]byte) { f(staging) }
		}
	})
}

// SetLaunchHook runs f after each later batch has enqueued its device
// commands; an error from f fails them there, as a device that fails in
// the middle of a call would (nil: none).
func (e *Engine) SetLaunchHook(f func() error) {
	e.setHooks(func(h *engine.Hooks) {
		h.AfterEnqueue = nil
		if f != nil {
			h.AfterEnqueue = func(lo, hi int) error { return f() }
		}
	})
}

var hooksMu sync.Mutex

// setHooks changes e's hooks with change (one hook at a time).
func (e *Engine) setHooks(change func(h *engine.Hooks)) {
	hooksMu.Lock()
	defer hooksMu.Unlock()
	h := &engine.Hooks{}
	if old := e.core.Hooks(); old != nil {
		*h = *old
	}
	change(h)
	e.core.SetHooks(h)
}

// NonceForCounter is a 16-byte GCM nonce whose counter block J0 under k
// is j0: J0 = N·H² ⊕ L·H for a one-block nonce N and its lengths block
// L, so N = (J0 ⊕ L·H)·H⁻², with H⁻¹ = H^(2¹²⁸−2).
func NonceForCounter(k *Key, j0 [16]byte) []byte {
	h := k.hashPowers[0]
	inv := h
	for range 126 {
		inv = inv.mul(inv).mul(h)
	}
	inv = inv.mul(inv) // H^(2¹²⁸−2)
	l := fieldElement{0, 128}
	n := fieldElementFromBytes(j0[:]).xor(l.mul(h)).mul(inv).mul(inv)
	nonce := make([]byte, 16)
	n.bytes(nonce)
	if counterBlock(h, nonce) != j0 {
		panic("aes: NonceForCounter: the nonce does not give the counter block")
	}
	return nonce
}

// CloseStarted reports whether k.Close has been called (it may still be
// waiting for the calls that use k).
func (k *Key) CloseStarted() bool { return k.closed.Load() }

// The package's tests run the kernels on the test device, which is a CPU
// device (PoCL) where no GPU is: NewEngine refuses those outside the tests
// (ErrCPUDevice), here it builds them.
func init() { cpuDevicesAllowed.Store(true) }

// RefuseCPUDevices makes NewEngine refuse CPU devices, as it does outside
// the tests, until restore is called.
func RefuseCPUDevices() (restore func()) {
	cpuDevicesAllowed.Store(false)
	return func() { cpuDevicesAllowed.Store(true) }
}
