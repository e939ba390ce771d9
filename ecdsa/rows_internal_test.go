package ecdsa

import "encoding/binary"

// The kernels' limb-major rows element by element, for the tests that
// run the kernels without the engine (the engine moves them a tile at a
// time: putTile, getTile).

// putRow writes the 32 big-endian bytes v into the limb-major rows words
// (8 rows of n) as element k, least significant word first.
func putRow(words []uint32, n, k int, v *[32]byte) {
	for w := range 8 {
		words[w*n+k] = binary.BigEndian.Uint32(v[32-4*(w+1):])
	}
}

// getRow reads element k of the limb-major rows words into the 32
// big-endian bytes v (the inverse of putRow).
func getRow(v *[32]byte, words []uint32, n, k int) {
	for w := range 8 {
		x := words[w*n+k]
		o := 32 - 4*(w+1)
		v[o], v[o+1], v[o+2], v[o+3] = byte(x>>24), byte(x>>16), byte(x>>8), byte(x)
	}
}
