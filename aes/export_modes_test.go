package aes

import (
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// ModesSource is the CBC and XTS program (kernels/aes_modes.cl) of an
// engine of layout l with work-groups of 512: the defines of the AES
// program, as Engine.modesProgram builds it, for the build tests.
var ModesSource = func(l Layout) device.Source {
	return kernels.Program("aes_modes.cl", programSource(l, 512, 16).Defines)
}

// SetModeChunkBytes bounds the data of one CBC or XTS launch, so that
// tests split small batches over several launches; it returns a function
// that restores the bound.
func SetModeChunkBytes(n int) (restore func()) {
	old := modeChunkBytes
	modeChunkBytes = n
	return func() { modeChunkBytes = old }
}
