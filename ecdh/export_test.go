package ecdh

import (
	"fmt"

	"github.com/gpucrypto/gpucrypto/device"
)

// SetFailHook makes every device run of e call f first and fail with its
// error (nil: run normally). Tests use it to prove the CPU fallback.
func (e *Engine) SetFailHook(f func() error) {
	e.mu.Lock()
	e.failHook = f
	e.mu.Unlock()
}

// InvertBatch runs the batched-inversion kernel of c alone: u = X/Z for
// limb-major x and z of n elements each, in groups of at most k.
func (e *Engine) InvertBatch(c Curve, x, z []uint32, k int) ([]uint32, error) {
	n := len(x) / c.limbs()
	out := make([]uint32, len(x))
	_, err := e.stages.Run(e.pool, func(cmds *device.Commands) error {
		dxz, err := cmds.Upload(append(append([]uint32(nil), x...), z...), true)
		if err != nil {
			return err
		}
		dout, err := cmds.Buffer(4*len(x), true)
		if err != nil {
			return err
		}
		if err := e.invertBatch(cmds, c, dout, dxz, n, k); err != nil {
			return err
		}
		return cmds.Read(dout, device.Uint32Bytes(out))
	})
	return out, err
}

// SetDeviceStub replaces the device step of e's batches with f (nil: the
// device again): f gets the batch inversion group the batch would use and
// the limb-major scalars, u-coordinates (nil for public keys) and result
// rows, which it fills. Tests of the host side and host-time benchmarks
// use it.
func (e *Engine) SetDeviceStub(f func(c Curve, binv int, scal, us, res []uint32)) {
	e.mu.Lock()
	e.stub = f
	e.mu.Unlock()
}

// IdleSlots is the number of idle batch buffer sets e keeps.
func (e *Engine) IdleSlots() int {
	e.slots.mu.Lock()
	defer e.slots.mu.Unlock()
	return len(e.slots.idle)
}

// CheckIdleZero returns an error unless every idle buffer of e is zero
// where it may have held secrets: the host scalars and results of its
// slots, and every idle device buffer.
func (e *Engine) CheckIdleZero() error {
	e.slots.mu.Lock()
	for _, s := range e.slots.idle {
		for _, h := range [][]uint32{s.scal, s.res} {
			for i, w := range h {
				if w != 0 {
					e.slots.mu.Unlock()
					return fmt.Errorf("%v slot (shared %v, %d elements): host word %d is %#x", s.c, s.shared, s.cap, i, w)
				}
			}
		}
	}
	e.slots.mu.Unlock()
	idle, err := e.pool.IdleContents()
	if err != nil {
		return err
	}
	for n, b := range idle {
		for i, x := range b {
			if x != 0 {
				return fmt.Errorf("idle device buffer %d of %d bytes: byte %d is %#x", n, len(b), i, x)
			}
		}
	}
	return nil
}

// PutKey and Decode expose the two key decoders for a comparison test.
func PutKey(c Curve, k []byte, scalar bool, dst []uint32, i, n int) {
	sm, um := masks(c)
	if !scalar {
		sm = um
	}
	putKey(k, sm, dst, i, n)
}

func Decode(c Curve, k []byte, dst []uint32, scalar bool) { decode(c, k, dst, scalar) }

// EdgeU are the edge u-coordinates of the tests (edge_internal_test.go).
func EdgeU(c Curve) [][]byte { return edgeU(c) }

// SetPipelineChunk sets the size above which batches run as pipelined
// chunks and returns the function that restores it.
func SetPipelineChunk(n int) (restore func()) {
	old := pipelineChunk
	pipelineChunk = n
	return func() { pipelineChunk = old }
}

// WithProgramDefines makes the engines built until restore is called
// compile each curve's program with its defines (kernel forms under test).
func WithProgramDefines(defines map[Curve]map[string]string) (restore func()) {
	old := programDefines
	programDefines = defines
	return func() { programDefines = old }
}
