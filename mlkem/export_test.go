package mlkem

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
// ("ML-KEM-768", "ML-KEM-1024") on seeds (SeedSize bytes each) and returns
// their expanded decapsulation keys, FIPS 203's dk = dk_PKE ‖ ek ‖ H(ek) ‖
// z, which the Engine never reads back.
func ExpandOnDevice(e *Engine, set string, seeds [][]byte) ([][]byte, error) {
	p := paramsOf(set)
	in := make([]byte, 0, SeedSize*len(seeds))
	for _, s := range seeds {
		in = append(in, s...)
	}
	out, err := e.runKernel(p.kernel+"_expand", len(seeds), p.expandedSize()*len(seeds), in)
	return split(out, p.expandedSize()), err
}

// DecapsulateExpandedOnDevice runs the decapsulation kernel of the
// parameter set named set on expanded keys (FIPS 203's dk, the form of
// C2SP's vectors) and ciphertexts of the set's sizes, element i under
// dks[i].
func DecapsulateExpandedOnDevice(e *Engine, set string, dks, cts [][]byte) ([][]byte, error) {
	p := paramsOf(set)
	var keys, ciphertexts []byte
	index := make([]uint32, len(dks))
	for i := range dks {
		keys, ciphertexts = append(keys, dks[i]...), append(ciphertexts, cts[i]...)
		index[i] = uint32(i)
	}
	out, err := e.runKernel(p.kernel+"_decapsulate", len(dks), SharedKeySize*len(dks), keys, wordBytes(index), ciphertexts)
	return split(out, SharedKeySize), err
}

// runKernel runs kernel name of e's program over n work-items with
// arguments (an output of outBytes bytes, the inputs uploaded, the table,
// n) and returns the output.
func (e *Engine) runKernel(name string, n, outBytes int, inputs ...[]byte) ([]byte, error) {
	dev := e.Device()
	kern, err := e.prog.Kernel(name)
	if err != nil {
		return nil, err
	}
	out, err := dev.NewBuffer(outBytes)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	args := []any{out}
	for _, in := range inputs {
		b, err := dev.Upload(in)
		if err != nil {
			return nil, err
		}
		defer b.Release()
		args = append(args, b)
	}
	ev, err := kern.Launch(n, WorkGroup, append(args, e.table, uint32(n))...)
	if err != nil {
		return nil, err
	}
	if err := ev.Release(); err != nil {
		return nil, err
	}
	result := make([]byte, outBytes)
	return result, out.Read(0, result)
}

// split cuts b into pieces of size bytes.
func split(b []byte, size int) [][]byte {
	var pieces [][]byte
	for len(b) >= size && size > 0 {
		pieces, b = append(pieces, b[:size:size]), b[size:]
	}
	return pieces
}
