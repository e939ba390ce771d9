package ecdh

// SetFailHook makes every device run of e call f first and fail with its
// error (nil: run normally). Tests use it to prove the CPU fallback.
func (e *Engine) SetFailHook(f func() error) {
	e.mu.Lock()
	e.failHook = f
	e.mu.Unlock()
}
