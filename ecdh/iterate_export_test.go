package ecdh

import (
	"embed"
	"fmt"
	"io/fs"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// iterateKernels are the test programs of RFC 7748's iterated vectors:
// the curves' programs as the engine builds them, plus a kernel on their
// ladder. They live with the tests, apart from the library's kernels.
//
//go:embed testdata/kernels
var iterateKernels embed.FS

// IterateProgram is c's iteration program with defines.
func IterateProgram(c Curve, defines map[string]string) device.Source {
	sub, err := fs.Sub(iterateKernels, "testdata/kernels")
	if err != nil {
		panic(err)
	}
	return kernels.ProgramFrom(sub, c.params().prefix+"_iterate.cl", defines)
}

// Iterator runs RFC 7748 §5.2's iterated test on a device: k, u =
// X(k, u), k, over and over, in one work-item (kernels/ladder_iterate.h,
// on the ladder of the production program), the state k, u kept in
// device memory from one Run to the next.
type Iterator struct {
	c     Curve
	kern  *device.Kernel
	state *device.Buffer // k, u, the decoded scalar: c.limbs() words each
}

// NewIterator builds c's iteration program on d (with the defines of
// WithProgramDefines, as an engine would) and uploads the starting k and
// u (c.Size() bytes each).
func NewIterator(d *device.Device, c Curve, k, u []byte) (*Iterator, error) {
	m := c.params()
	if err := m.checkLen("private", k); err != nil {
		return nil, err
	}
	if err := m.checkLen("public", u); err != nil {
		return nil, err
	}
	src := IterateProgram(c, ProgramDefines(d, c))
	p, err := d.Program(src)
	if err != nil {
		return nil, fmt.Errorf("ecdh: building %s for %s: %w", src.Name, d.Name, err)
	}
	kern, err := p.Kernel(m.prefix + "_iterate")
	if err != nil {
		return nil, err
	}
	state := make([]byte, 3*c.Size()) // the scalar's words start at zero
	copy(state, k)
	copy(state[c.Size():], u)
	buf, err := d.Upload(state)
	if err != nil {
		return nil, fmt.Errorf("ecdh: uploading the %s iteration state to %s: %w", c, d.Name, err)
	}
	return &Iterator{c: c, kern: kern, state: buf}, nil
}

// Run runs n more iterations (1 ≤ n < 2^32) in one launch and waits for
// them.
func (it *Iterator) Run(n int) error {
	if n < 1 || uint64(n) > 1<<32-1 {
		return fmt.Errorf("ecdh: %d iterations in one launch: want 1 to 2^32−1", n)
	}
	m := it.c.params()
	sm, um := m.scalarMask, m.uMask
	ev, err := it.kern.Launch(1, 1, it.state, uint32(n), sm.and0, sm.andTop, sm.orTop, um.and0, um.andTop, um.orTop)
	if err != nil {
		return err
	}
	return ev.Release() // waits
}

// K is the current k (c.Size() bytes; the device holds it as the RFC's
// little-endian words): after n iterations in all, the value RFC 7748
// §5.2 gives for n.
func (it *Iterator) K() ([]byte, error) {
	k := make([]byte, it.c.Size())
	if err := it.state.Read(0, k); err != nil {
		return nil, err
	}
	return k, nil
}

// U is the current u (c.Size() bytes): the k of the iteration before.
func (it *Iterator) U() ([]byte, error) {
	u := make([]byte, it.c.Size())
	if err := it.state.Read(it.c.Size(), u); err != nil {
		return nil, err
	}
	return u, nil
}

// Release frees the device state.
func (it *Iterator) Release() error { return it.state.Release() }
