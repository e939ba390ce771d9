package ecdh

// The RFC 7748 §5 decoding written out plainly: the tests' reference for
// the masked block decoding of putKey (export_test.go) and the input of the raw
// kernel tests.

// decode reads a little-endian key into limbs as RFC 7748 §5 does: a scalar
// is clamped (decodeScalar25519 / decodeScalar448); an X25519() u-coordinate
// has its unused top bit masked (decodeUCoordinate). Non-canonical u (≥ p)
// is accepted and reduced by the field code. The stack copy is cleared.
func decode(c Curve, in []byte, dst []uint32, scalar bool) {
	var buf [56]byte
	b := buf[:c.Size()]
	copy(b, in)
	switch {
	case scalar && c == X25519():
		b[0] &= 248
		b[31] = b[31]&127 | 64
	case scalar:
		b[0] &= 252
		b[55] |= 128
	case c == X25519():
		b[31] &= 127
	}
	leLimbs(b, dst)
	clear(buf[:])
}

func leLimbs(b []byte, dst []uint32) {
	for j := range dst {
		dst[j] = uint32(b[4*j]) | uint32(b[4*j+1])<<8 | uint32(b[4*j+2])<<16 | uint32(b[4*j+3])<<24
	}
}

func limbsLE(l []uint32, dst []byte) {
	for j, w := range l {
		dst[4*j], dst[4*j+1], dst[4*j+2], dst[4*j+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	}
}
