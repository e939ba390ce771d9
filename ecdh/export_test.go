package ecdh

import "github.com/gpucrypto/gpucrypto/cl"

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
	dxz, err := e.dev.Upload(cl.Uint32Bytes(append(append([]uint32(nil), x...), z...)))
	if err != nil {
		return nil, err
	}
	defer dxz.Release()
	dout, err := e.dev.NewBuffer(4 * len(x))
	if err != nil {
		return nil, err
	}
	defer dout.Release()
	ev, err := e.invertBatch(c, dout, dxz, n, k)
	if err != nil {
		return nil, err
	}
	defer ev.Release()
	out := make([]uint32, len(x))
	err = dout.Read(0, cl.Uint32Bytes(out))
	return out, err
}
