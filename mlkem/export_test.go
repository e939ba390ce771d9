package mlkem

import "github.com/gpucrypto/gpucrypto/device"

// DeviceTable is the table of the kernels' NTT factors (deviceTable).
func DeviceTable() []uint32 { return deviceTable() }

// WithProgramDefines makes the engines built until restore is called use
// defines (a form of the kernels) instead of ProgramDefines' choice.
func WithProgramDefines(defines map[string]string) (restore func()) {
	old := programDefines
	programDefines = defines
	return func() { programDefines = old }
}

// WithBatches makes device calls cut their batches at chunk elements
// until restore is called.
func WithBatches(chunk int) (restore func()) {
	old := pipelineChunk
	pipelineChunk = chunk
	return func() { pipelineChunk = old }
}

// paramsOf is the parameter set named name ("ML-KEM-768").
func paramsOf(name string) *params {
	if name == mlkem1024.name {
		return mlkem1024
	}
	return mlkem768
}

// ExpandOnDevice runs the expansion kernel of the parameter set named set
// ("ML-KEM-768", "ML-KEM-1024") on seeds (SeedSize bytes each; after the
// matrix kernel, in the form MLKEM_MATRIX) and returns their expanded
// decapsulation keys, FIPS 203's dk = dk_PKE ‖ ek ‖ H(ek) ‖ z, which the
// Engine never reads back.
func ExpandOnDevice(e *Engine, set string, seeds [][]byte) ([][]byte, error) {
	p := paramsOf(set)
	in := make([]byte, 0, SeedSize*len(seeds))
	for _, s := range seeds {
		in = append(in, s...)
	}
	args := []any{in}
	if e.matrix {
		dseeds, err := e.Device().Upload(in)
		if err != nil {
			return nil, err
		}
		defer dseeds.Release()
		entries := len(seeds) * p.k * p.k
		matrices, err := e.runKernel(p.kernel+"_matrix", entries, 512*entries, dseeds, uint32(SeedSize/4), uint32(0), uint32(1))
		if err != nil {
			return nil, err
		}
		defer matrices.Release()
		args = []any{dseeds, matrices}
	}
	out, err := e.runKernel(p.kernel+"_expand", len(seeds), p.expandedSize()*len(seeds), args...)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return read(out, p.expandedSize(), len(seeds))
}

// DecapsulateExpandedOnDevice runs the decapsulation kernel of the
// parameter set named set on expanded keys (FIPS 203's dk, the form of
// C2SP's vectors) and ciphertexts of the set's sizes, element i under
// dks[i] (after the matrix kernel, in the form MLKEM_MATRIX).
func DecapsulateExpandedOnDevice(e *Engine, set string, dks, cts [][]byte) ([][]byte, error) {
	p := paramsOf(set)
	var keys, ciphertexts []byte
	index := make([]uint32, len(dks))
	for i := range dks {
		keys, ciphertexts = append(keys, dks[i]...), append(ciphertexts, cts[i]...)
		index[i] = uint32(i)
	}
	dev := e.Device()
	dkeys, err := dev.Upload(keys)
	if err != nil {
		return nil, err
	}
	defer dkeys.Release()
	args := []any{dkeys}
	if e.matrix {
		entries := len(dks) * p.k * p.k
		matrices, err := e.runKernel(p.kernel+"_matrix", entries, 512*entries, dkeys, uint32(p.expandedSize()/4), uint32(192*p.k), uint32(0))
		if err != nil {
			return nil, err
		}
		defer matrices.Release()
		args = append(args, matrices)
	}
	shared, err := e.runKernel(p.kernel+"_decapsulate", len(dks), SharedKeySize*len(dks), append(args, wordBytes(index), ciphertexts)...)
	if err != nil {
		return nil, err
	}
	defer shared.Release()
	return read(shared, SharedKeySize, len(dks))
}

// runKernel runs kernel name of e's program over n work-items with the
// arguments: a new output buffer of outBytes bytes, which it returns,
// then args (a []byte uploaded into a buffer of its own, anything else as
// it is), the table and n.
func (e *Engine) runKernel(name string, n, outBytes int, args ...any) (*device.Buffer, error) {
	dev := e.Device()
	kern, err := e.prog.Kernel(name)
	if err != nil {
		return nil, err
	}
	out, err := dev.NewBuffer(outBytes)
	if err != nil {
		return nil, err
	}
	launch := []any{out}
	for _, a := range args {
		if b, ok := a.([]byte); ok {
			buf, err := dev.Upload(b)
			if err != nil {
				out.Release()
				return nil, err
			}
			defer buf.Release()
			a = buf
		}
		launch = append(launch, a)
	}
	ev, err := kern.Launch(n, WorkGroup, append(launch, e.table, uint32(n))...)
	if err == nil {
		err = ev.Release()
	}
	if err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// read returns the n pieces of size bytes of b.
func read(b *device.Buffer, size, n int) ([][]byte, error) {
	all := make([]byte, size*n)
	if err := b.Read(0, all); err != nil {
		return nil, err
	}
	pieces := make([][]byte, n)
	for i := range pieces {
		pieces[i] = all[i*size : (i+1)*size : (i+1)*size]
	}
	return pieces, nil
}
