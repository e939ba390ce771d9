package ecdh

import (
	stdecdh "crypto/ecdh"
	"encoding/binary"
	"errors"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// SetFailHook makes every device batch of e call f first and fail with its
// error (nil: run normally). Tests use it to prove the CPU fallback.
func (e *Engine) SetFailHook(f func() error) {
	if f == nil {
		e.core.SetHooks(nil)
		return
	}
	e.core.SetHooks(&engine.Hooks{BeforeDevice: func(lo, hi int) error { return f() }})
}

// InvertBatch runs the batched-inversion kernel of c alone: u = X/Z for
// limb-major x and z of n elements each, in groups of at most k.
func (e *Engine) InvertBatch(c Curve, x, z []uint32, k int) ([]uint32, error) {
	m := c.params()
	n := len(x) / m.limbs()
	out := make([]uint32, len(x))
	s, err := e.core.Stages()
	if err != nil {
		return nil, err
	}
	_, err = s.Run(e.core.Pool(), func(cmds *device.Commands) error {
		dxz, err := cmds.Upload(append(append([]uint32(nil), x...), z...), true)
		if err != nil {
			return err
		}
		dout, err := cmds.Buffer(4*len(x), true)
		if err != nil {
			return err
		}
		if err := e.invertBatch(cmds, m, dout, dxz, n, k); err != nil {
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
	if f == nil {
		e.core.SetHooks(nil)
		return
	}
	e.core.SetHooks(&engine.Hooks{Device: func(job engine.Job, ch *engine.Chunk) error {
		j, ok := job.(*ladderJob)
		if !ok {
			return errors.New("ecdh: a stubbed engine ran a job that is not a ladder")
		}
		return j.onDevice(ch, func(ch *engine.Chunk, m *montgomery, b *ladderBatch) error {
			// the stub sees what the device's kernels see: limb-major
			// rows, decoded (kernels/ecdh_codec.h, here on the host)
			w := m.limbs() * b.n
			scal, res := make([]uint32, w), make([]uint32, w)
			decodeRows(m, b.scal, m.scalarMask, scal, b.n)
			var us []uint32
			if b.us != nil {
				us = make([]uint32, w)
				decodeRows(m, b.us, m.uMask, us, b.n)
			}
			f(m, b.binv, scal, us, res)
			clear(scal)
			encodeRows(m, res, b.res, b.n)
			clear(res)
			return nil
		})
	}})
}

// decodeRows is the device's decoding kernel on the host (for the device
// stub): the n byte strings of keys, decoded with mask into the
// limb-major rows.
func decodeRows(m *montgomery, keys []uint32, mask keyMask, rows []uint32, n int) {
	size, kb := m.size, device.Uint32Bytes(keys)
	for i := range n {
		putKey(kb[i*size:(i+1)*size], mask, rows, i, n)
	}
}

// encodeRows is the device's encoding kernel on the host (for the device
// stub): the limb-major rows as n byte strings (little-endian words) in
// out.
func encodeRows(m *montgomery, rows []uint32, out []uint32, n int) {
	L := m.limbs()
	for i := range n {
		for j := range L {
			out[i*L+j] = rows[j*n+i]
		}
	}
}

// IdleStaging is the number of staging allocations e keeps.
func (e *Engine) IdleStaging() int { return e.core.IdleStaging() }

// CheckIdleZero returns an error unless every idle buffer of e, host and
// device, is zero.
func (e *Engine) CheckIdleZero() error { return e.core.CheckIdleZero() }

// PutKey and Decode expose the two key decoders for a comparison test.
func PutKey(c Curve, k []byte, scalar bool, dst []uint32, i, n int) {
	m := c.params()
	mask := m.scalarMask
	if !scalar {
		mask = m.uMask
	}
	putKey(k, mask, dst, i, n)
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

// Masks are c's key masks, as the iteration kernel takes them.
func Masks(c Curve) (scalar, u [3]uint32) {
	m := c.params()
	return [3]uint32{m.scalarMask.and0, m.scalarMask.andTop, m.scalarMask.orTop}, [3]uint32{m.uMask.and0, m.uMask.andTop, m.uMask.orTop}
}

// Prefix names c's kernels and kernel file.
func Prefix(c Curve) string { return c.params().prefix }

// putKey decodes the key k (c.Size() bytes) with m into column i of the
// limb-major rows dst (row j holds limb j of the n elements). Non-canonical
// u (≥ p) is kept as it is and reduced by the field code.
func putKey(k []byte, m keyMask, dst []uint32, i, n int) {
	L := len(k) / 4
	_ = dst[(L-1)*n+i]
	dst[i] = binary.LittleEndian.Uint32(k) & m.and0
	for j := 1; j < L-1; j++ {
		dst[j*n+i] = binary.LittleEndian.Uint32(k[4*j:])
	}
	dst[(L-1)*n+i] = binary.LittleEndian.Uint32(k[4*(L-1):])&m.andTop | m.orTop
}

// ServerBackend is what a Server computes on: an *Engine, or a test's
// stand-in (NewServerOver).
type ServerBackend = backend

// NewServerOver is NewServer over any backends (stand-ins for a device
// that cost nothing, or that block).
func NewServerOver(opts batch.Options, backends ...ServerBackend) (*Server, error) {
	return newServer(opts, backends)
}

// PublicKeysOn and SharedSecretsOn are Engine.ECDHPublicKeys and
// Engine.ECDHKeys on any backend (one that records what it is handed).
func PublicKeysOn(b Backend, privs []*stdecdh.PrivateKey) ([]*stdecdh.PublicKey, error) {
	return publicKeysOf(b, privs)
}

func SharedSecretsOn(b Backend, privs []*stdecdh.PrivateKey, peers []*stdecdh.PublicKey) ([][]byte, error) {
	return sharedSecretsOf(b, privs, peers)
}

// CurveBuilt reports whether e has built c's kernels.
func CurveBuilt(e *Engine, c Curve) bool {
	cp := e.curves[c.params()]
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.built
}
