package arith

import (
	"github.com/gpucrypto/gpucrypto/device"
)

// ModExpArgs are the buffers and sizes of one launch of the modexp
// kernel (kernels/modexp.h and its fp64 and multi-thread forms: one
// interface for every form): its Go binding, used by Engine.RunModExp and
// by package rsa for the CRT halves.
type ModExpArgs struct {
	Out  *device.Buffer // W words per element, limb-major: the results, canonical
	Base *device.Buffer // W words per element, limb-major, each below 2^(32·N)
	// Exp holds EWords words per element (ExpPerModulus false) or per
	// modulus, limb-major; the running time depends on EWords alone.
	Exp           *device.Buffer
	EWords        int
	ExpPerModulus bool
	// Mods, Ones, R2s and N0s are the moduli's Constants (M, One, R2: W
	// words each, N0: one word), limb-major with stride K.
	Mods, Ones, R2s, N0s *device.Buffer
	K                    int
	Index                *device.Buffer // one word per element: its modulus
	Table                *device.Buffer // scratch: TableWords() words per element
	Count                int
}

// ModExpKernel returns m's modexp kernel on dev (built once per device
// and form: Program, KernelFile).
func (m Mont) ModExpKernel(dev *device.Device) (*device.Kernel, error) {
	p, err := m.Program(dev, m.KernelFile(), nil)
	if err != nil {
		return nil, err
	}
	return p.Kernel("modexp")
}

// EnqueueModExp enqueues kern, m's modexp kernel (ModExpKernel), over the
// a.Count elements of a among cmds.
func (m Mont) EnqueueModExp(cmds *device.Commands, kern *device.Kernel, a ModExpArgs) error {
	perElement := uint32(1)
	if a.ExpPerModulus {
		perElement = 0
	}
	global, local, extra := m.ModExpLaunch(a.Count)
	args := append([]any{a.Out, a.Base, a.Exp, uint32(a.EWords), perElement,
		a.Mods, a.Ones, a.R2s, a.N0s, a.Index, uint32(a.K), a.Table, uint32(a.Count)}, extra...)
	return cmds.Launch(kern, global, local, args...)
}
