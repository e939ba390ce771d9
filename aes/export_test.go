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

// SetLaunchHook runs f before every later kernel launch; an error from f
// fails the launch, as a device that fails in the middle of a call would
// (nil: none).
func (e *Engine) SetLaunchHook(f func() error) {
	e.mu.Lock()
	e.launchErr = f
	e.mu.Unlock()
}

// NonceForCounter is a 16-byte GCM nonce whose counter block J0 under k
// is j0: J0 = N·H² ⊕ L·H for a one-block nonce N and its lengths block
// L, so N = (J0 ⊕ L·H)·H⁻², with H⁻¹ = H^(2¹²⁸−2).
func NonceForCounter(k *Key, j0 [16]byte) []byte {
	h := k.hashPowers[0]
	inv := h
	for range 126 {
		inv = inv.mul(inv).mul(h)
	}
	inv = inv.mul(inv) // H^(2¹²⁸−2)
	l := fieldElement{0, 128}
	n := fieldElementFromBytes(j0[:]).xor(l.mul(h)).mul(inv).mul(inv)
	nonce := make([]byte, 16)
	n.bytes(nonce)
	if counterBlock(h, nonce) != j0 {
		panic("aes: NonceForCounter: the nonce does not give the counter block")
	}
	return nonce
}

// DestroyStarted reports whether k.Destroy has been called (it may still
// be waiting for the calls that use k).
func (k *Key) DestroyStarted() bool { return k.destroyed.Load() }
