package ed25519

import "github.com/gpucrypto/gpucrypto/batch"

// WithProgramDefines makes the engines built until restore is called use
// defines (a form of the kernels) instead of ProgramDefines' choice.
func WithProgramDefines(defines map[string]string) (restore func()) {
	old := programDefines
	programDefines = defines
	return func() { programDefines = old }
}

// WithBatches makes device calls cut their batches at chunk elements and
// messageBytes bytes of messages until restore is called.
func WithBatches(chunk, messageBytes int) (restore func()) {
	oldChunk, oldBytes := pipelineChunk, batchMessageBytes
	pipelineChunk, batchMessageBytes = chunk, messageBytes
	return func() { pipelineChunk, batchMessageBytes = oldChunk, oldBytes }
}

// WithReadHalves makes signing batches of at least 2·min elements come
// back in two halves (readHalfMin) until restore is called.
func WithReadHalves(min int) (restore func()) {
	old := readHalfMin
	readHalfMin = min
	return func() { readHalfMin = old }
}

// InjectFaults makes e's signing batches hand faults(i), for element i of
// each call, to a kernel built with ED25519_FAULT_INJECTION
// (WithProgramDefines; kernels/ed25519.cl says what the word corrupts);
// nil: zeros. Set it while no call runs.
func (e *Engine) InjectFaults(faults func(i int) uint32) { e.faults = faults }

// SelfTestStats are the counts of e's self-tests (kept apart from Stats).
func SelfTestStats(e *Engine) batch.Stats { return e.core.SelfTestStats() }
