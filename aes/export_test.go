package aes

// ProgramSource is programSource, for the build tests.
var ProgramSource = programSource

// SetFailHook makes every later device call fail with f's error (nil: none).
func (e *Engine) SetFailHook(f func() error) {
	e.mu.Lock()
	e.failHook = f
	e.mu.Unlock()
}
