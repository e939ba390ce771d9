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
