package hpke

import (
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/engine"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

// Engine seals and opens batches of HPKE messages on one device
// (NewEngine) or on all CPU cores (CPUEngine), composed of the engines of
// the packages it runs each step on: ML-KEM-768 on an mlkem.Engine,
// X25519 on an ecdh.Engine, AES-GCM on an aes.Engine or on the host. It
// is safe for concurrent use, and concurrent calls overlap as the
// batches of one large call do.
//
// Each step of a device Engine runs where it measured faster: the mlkem,
// ecdh and aes engines choose between the device and the CPU per call
// (their SetRoute), and the Engine chooses between its aes.Engine and
// crypto/cipher on the host for the AES-GCM step (the aes.Engine needs an
// aes.Key per message, whose expansion costs more host time than
// crypto/cipher's). A device failure is recomputed on the CPU by the
// engine it happened in and reported through OnFallback: results are
// never wrong and never missing because of a device fault.
//
// Its controls are batch.Engine's, applied to every engine it is made
// of; Stats adds up theirs (its Calls are the Engine's own calls, and its
// latencies are not measured: zero).
type Engine struct {
	life    *engine.Core // Close and the calls it waits for; it runs nothing
	dev     *device.Device
	kem     *mlkem.Engine
	x25519  *ecdh.Engine
	aead    *aes.Engine // nil: AES-GCM on the host alone
	route   atomic.Int32
	calls   atomic.Int64
	choices aeadChoices
}

// NewEngine builds the engines of ML-KEM, X25519 and AES on dev (nil:
// device.Default()). On a CPU device (an OpenCL CPU runtime such as
// PoCL), which aes.NewEngine refuses (aes.ErrCPUDevice: its tables' reads
// there are visible through cache timing), AES-GCM runs on the host with
// crypto/cipher.
func NewEngine(dev *device.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	kem, err := mlkem.NewEngine(dev)
	if err != nil {
		return nil, fmt.Errorf("hpke: %w", err)
	}
	x, err := ecdh.NewEngine(dev)
	if err != nil {
		kem.Close()
		return nil, fmt.Errorf("hpke: %w", err)
	}
	a, err := aes.NewEngine(dev)
	if errors.Is(err, aes.ErrCPUDevice) {
		a, err = nil, nil
	}
	if err != nil {
		kem.Close()
		x.Close()
		return nil, fmt.Errorf("hpke: %w", err)
	}
	return newEngine(dev, kem, x, a), nil
}

// CPUEngine returns an Engine that computes on all CPU cores: crypto/mlkem,
// the ecdh CPU engine's X25519 (circl), and crypto/cipher's AES-GCM in the
// same pass over the messages as the key schedule.
func CPUEngine() *Engine { return newEngine(nil, mlkem.CPUEngine(), ecdh.CPUEngine(), nil) }

// Auto returns an Engine on the default device (device.Choose: a GPU,
// or GPUCRYPTO_DEVICE's choice), or CPUEngine() where there is none or its
// kernels do not build; the Choice says which and why.
func Auto() (*Engine, device.Choice) { return engine.Auto(NewEngine, CPUEngine) }

func newEngine(dev *device.Device, kem *mlkem.Engine, x *ecdh.Engine, a *aes.Engine) *Engine {
	e := &Engine{life: engine.New("hpke", nil), dev: dev, kem: kem, x25519: x, aead: a}
	e.choices.init()
	e.life.OnClose(func() error { return errors.Join(e.each(batch.Engine.Close)...) })
	return e
}

// parts are the engines the Engine is made of.
func (e *Engine) parts() []batch.Engine {
	out := []batch.Engine{e.kem, e.x25519}
	if e.aead != nil {
		out = append(out, e.aead)
	}
	return out
}

// each calls f on every part, returning their errors.
func (e *Engine) each(f func(batch.Engine) error) []error {
	var errs []error
	for _, p := range e.parts() {
		errs = append(errs, f(p))
	}
	return errs
}

// Device is batch.Engine's: the engine's device, nil for the CPU engine.
func (e *Engine) Device() *device.Device { return e.dev }

// String is batch.Engine's: "device <name>" or "CPU".
func (e *Engine) String() string {
	if e.dev == nil {
		return "CPU"
	}
	return "device " + e.dev.Name
}

// SetRoute is batch.Engine's, for every step: RouteDevice keeps AES-GCM
// on the aes.Engine (where there is one), RouteCPU on the host.
func (e *Engine) SetRoute(r batch.Route) {
	e.route.Store(int32(r))
	e.each(func(p batch.Engine) error { p.SetRoute(r); return nil })
}

// Stats is batch.Engine's: the counts of the engines it is made of,
// added up, and the Engine's own calls.
func (e *Engine) Stats() batch.Stats {
	var s batch.Stats
	e.each(func(p batch.Engine) error { s.Add(p.Stats()); return nil })
	s.Calls = e.calls.Load()
	return s
}

// OnFallback is batch.Engine's, for every engine it is made of.
func (e *Engine) OnFallback(f func(error)) {
	e.each(func(p batch.Engine) error { p.OnFallback(f); return nil })
}

// SetLogger is batch.Engine's, for every engine it is made of.
func (e *Engine) SetLogger(l *slog.Logger) {
	e.each(func(p batch.Engine) error { p.SetLogger(l); return nil })
}

// SetResultCheck is batch.Engine's, for every engine it is made of.
func (e *Engine) SetResultCheck(every int) {
	e.each(func(p batch.Engine) error { p.SetResultCheck(every); return nil })
}

// ReleaseBuffers is batch.Engine's, for every engine it is made of.
func (e *Engine) ReleaseBuffers() {
	e.each(func(p batch.Engine) error { p.ReleaseBuffers(); return nil })
}

// Close is batch.Engine's: later calls fail with an error wrapping
// batch.ErrClosed, the running ones are waited for, and the engines it is
// made of are closed.
func (e *Engine) Close() error { return e.life.Close() }

var _ batch.Engine = (*Engine)(nil)
