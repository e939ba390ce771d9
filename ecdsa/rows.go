package ecdsa

import "encoding/binary"

// The kernels read and write 256-bit numbers in limb-major rows: 8 rows
// of n words for a batch of n elements, limb w of element k at w·n + k.
// The host's passes move them a tile of elements at a time, so that each
// row takes runs of neighbouring words instead of one scattered word per
// element.

// tile is the number of elements pack and unpack move at
// once: runs of 16 words (64 bytes) of each row.
const tile = 16

// limbs are a 256-bit number as the kernels' rows hold it: 8 words, the
// least significant first; word w is bytes 28 − 4w … 31 − 4w of the
// number's 32 big-endian bytes.
type limbs [8]uint32

// limbsOf is the number of the 32 big-endian bytes v.
func limbsOf(v *[32]byte) (out limbs) {
	for w := range 8 {
		out[w] = binary.BigEndian.Uint32(v[28-4*w:])
	}
	return out
}

// bytes is the number's 32 big-endian bytes.
func (v *limbs) bytes() (out [32]byte) {
	for w, x := range v {
		binary.BigEndian.PutUint32(out[28-4*w:], x)
	}
	return out
}

// putTile writes the numbers v into the limb-major rows words (8 rows of
// n words) as elements t, t+1, …: limb w of v[e] at w·n + t + e.
func putTile(words []uint32, n, t int, v []limbs) {
	for w := range 8 {
		row := words[w*n+t:][:len(v)]
		for e := range row {
			row[e] = v[e][w]
		}
	}
}

// getTile reads elements t, t+1, … of the limb-major rows words (8 rows
// of n words) into the 32 big-endian bytes of each v[e].
func getTile(v [][32]byte, words []uint32, n, t int) {
	for w := range 8 {
		row := words[w*n+t:][:len(v)]
		for e, x := range row {
			binary.BigEndian.PutUint32(v[e][28-4*w:], x)
		}
	}
}
