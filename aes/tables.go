package aes

import "sync"

// The tables the kernels replicate into shared memory are computed here,
// once, from the definition of the S-box (FIPS-197 §5.1.1), and uploaded
// to each device an Engine uses. All words are little-endian column words:
// byte r of a column (row r of the state) is bits 8r..8r+7, the order the
// kernels load blocks from memory in, so no byte swap happens per block.

// tables holds the S-box, its inverse and the two round tables.
type tables struct {
	sbox, invSbox [256]byte
	// enc[x] is the column that MixColumns makes of S[x] in row 0:
	// bytes (2·S[x], S[x], S[x], 3·S[x]); rows 1–3 use it rotated left by
	// 8, 16 and 24 bits.
	enc [256]uint32
	// dec[x] is the same for InvMixColumns and the inverse S-box:
	// bytes (14·s, 9·s, 13·s, 11·s) with s = S⁻¹[x].
	dec [256]uint32
}

var aesTables = sync.OnceValue(func() *tables {
	t := new(tables)
	// S[x] = affine(x⁻¹) in GF(2⁸) mod x⁸+x⁴+x³+x+1, with 0⁻¹ = 0.
	for x := 0; x < 256; x++ {
		inv := byte(0)
		if x != 0 {
			inv = gfPow254(byte(x))
		}
		s := inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63
		t.sbox[x] = s
		t.invSbox[s] = byte(x)
	}
	for x := 0; x < 256; x++ {
		s := t.sbox[x]
		t.enc[x] = uint32(gfMul8(s, 2)) | uint32(s)<<8 | uint32(s)<<16 | uint32(gfMul8(s, 3))<<24
		si := t.invSbox[x]
		t.dec[x] = uint32(gfMul8(si, 14)) | uint32(gfMul8(si, 9))<<8 | uint32(gfMul8(si, 13))<<16 | uint32(gfMul8(si, 11))<<24
	}
	return t
})

// deviceTables is the table buffer of the kernels (kernels/aes_tables.h):
// enc (256 words), dec (256 words), the inverse S-box packed four bytes to
// a little-endian word (64 words).
func deviceTables() []uint32 {
	t := aesTables()
	out := make([]uint32, 0, 576)
	out = append(out, t.enc[:]...)
	out = append(out, t.dec[:]...)
	for i := 0; i < 256; i += 4 {
		out = append(out, uint32(t.invSbox[i])|uint32(t.invSbox[i+1])<<8|uint32(t.invSbox[i+2])<<16|uint32(t.invSbox[i+3])<<24)
	}
	return out
}

func rotl8(b byte, n uint) byte { return b<<n | b>>(8-n) }

// gfMul8 multiplies in GF(2⁸) mod x⁸+x⁴+x³+x+1 (public values only: the
// tables are built from constants).
func gfMul8(a, b byte) byte {
	var p byte
	for b != 0 {
		if b&1 != 0 {
			p ^= a
		}
		hi := a & 0x80
		a <<= 1
		if hi != 0 {
			a ^= 0x1b
		}
		b >>= 1
	}
	return p
}

// gfPow254 is x²⁵⁴ = x⁻¹ in GF(2⁸) for x ≠ 0.
func gfPow254(x byte) byte {
	r := byte(1)
	for i := 0; i < 254; i++ {
		r = gfMul8(r, x)
	}
	return r
}

func rotl32(x uint32, n uint) uint32 { return x<<n | x>>(32-n) }
