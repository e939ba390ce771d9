package aes

// ProgramSource is programSource, for the build tests.
var ProgramSource = programSource

// SetFailHook makes every later device call fail with f's error (nil: none).
func (e *Engine) SetFailHook(f func() error) {
	e.mu.Lock()
	e.failHook = f
	e.mu.Unlock()
}

// SetStageBytes sets the staging size of a pipeline stage (a multiple of
// 16), so that tests cross chunk boundaries with small inputs.
func (e *Engine) SetStageBytes(n int) {
	e.releaseStages()
	e.stageSize = n
}

// SetAlterHook makes f change the device's results of every later batch
// call (Seal, Open, CBC, XTS) before the result check sees them (nil:
// none), as a faulty device would.
func (e *Engine) SetAlterHook(f func(out [][]byte)) {
	e.mu.Lock()
	e.alter = f
	e.mu.Unlock()
}
