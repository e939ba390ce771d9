package aes

import "unsafe"

// inexactOverlap reports whether x and y share memory other than at the
// same start (crypto/cipher's rule: in place is allowed, shifted is not).
func inexactOverlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 || &x[0] == &y[0] {
		return false
	}
	xs, ys := uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&y[0]))
	return xs < ys+uintptr(len(y)) && ys < xs+uintptr(len(x))
}

// inPlace reports whether x and y start at the same byte: a call computing
// in place, whose output overwrites its input.
func inPlace(x, y []byte) bool {
	return len(x) > 0 && len(y) > 0 && &x[0] == &y[0]
}
