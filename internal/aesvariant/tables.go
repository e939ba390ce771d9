package aesvariant

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
)

// The host half of the Manavski variant: its T-tables and its key
// schedule, both computed here from FIPS-197's definitions (nothing is
// taken from package aes). Words are little-endian column words: byte r
// of a word is row r of the AES state, the order in which blocks sit in
// memory.

// gf is GF(2⁸) modulo x⁸+x⁴+x³+x+1 through logarithms to the base 3, a
// generator of its multiplicative group. Only public constants go through
// it (the tables), so its table lookups are of no concern.
type gf struct {
	exp [510]byte // exp[i] = 3^i, doubled so that exp[log a + log b] needs no reduction
	log [256]byte // log[3^i] = i; log[0] unused
}

var field = sync.OnceValue(func() *gf {
	f := new(gf)
	x := byte(1)
	for i := 0; i < 255; i++ {
		f.exp[i], f.exp[i+255] = x, x
		f.log[x] = byte(i)
		x ^= xtime(x) // x·3 = x·2 + x
	}
	return f
})

// xtime is x·2 in GF(2⁸).
func xtime(x byte) byte {
	return x<<1 ^ 0x1b*(x>>7)
}

func (f *gf) mul(a, b byte) byte {
	if a == 0 || b == 0 {
		return 0
	}
	return f.exp[int(f.log[a])+int(f.log[b])]
}

func (f *gf) inv(a byte) byte {
	if a == 0 {
		return 0
	}
	return f.exp[255-int(f.log[a])]
}

// sbox is the AES S-box (FIPS-197 §5.1.1): the inverse in GF(2⁸), then
// the affine map b ⊕ (b⋘1) ⊕ (b⋘2) ⊕ (b⋘3) ⊕ (b⋘4) ⊕ 0x63.
var sbox = sync.OnceValue(func() *[256]byte {
	f := field()
	s := new([256]byte)
	for x := range 256 {
		b := f.inv(byte(x))
		s[x] = b ^ bits.RotateLeft8(b, 1) ^ bits.RotateLeft8(b, 2) ^ bits.RotateLeft8(b, 3) ^ bits.RotateLeft8(b, 4) ^ 0x63
	}
	return s
})

// tTables are the four T-tables of the kernel (kernels/aes_manavski.cl),
// T0..T3 one after the other: T0[x] has the bytes (2·S[x], S[x], S[x],
// 3·S[x]), the column that MixColumns makes of S[x] in row 0, and Tk[x]
// is T0[x] rotated left by 8k bits, the same for row k. The kernel's last
// round takes S[x] as byte r of T(r+2 mod 4)[x].
var tTables = sync.OnceValue(func() []uint32 {
	f, s := field(), sbox()
	t := make([]uint32, 4*256)
	for x := range 256 {
		v := s[x]
		w := uint32(f.mul(v, 2)) | uint32(v)<<8 | uint32(v)<<16 | uint32(f.mul(v, 3))<<24
		for k := range 4 {
			t[256*k+x] = bits.RotateLeft32(w, 8*k)
		}
	}
	return t
})

// subWord applies the S-box to each byte of w.
func subWord(w uint32) uint32 {
	s := sbox()
	return uint32(s[byte(w)]) | uint32(s[byte(w>>8)])<<8 | uint32(s[byte(w>>16)])<<16 | uint32(s[byte(w>>24)])<<24
}

// expandKey is the AES key expansion (FIPS-197 §5.2) of a 16-, 24- or
// 32-byte key into 4·(rounds+1) little-endian column words: word 4r+c is
// column c of round key r, the layout the kernel reads. It returns the
// number of rounds (10, 12 or 14). Benchmark code: the S-box lookups of
// subWord are indexed by key bytes (not constant-time, like the kernel).
func expandKey(key []byte) ([]uint32, int, error) {
	nk := len(key) / 4
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, 0, fmt.Errorf("aesvariant: key of %d bytes: want 16, 24 or 32", len(key))
	}
	rounds := nk + 6
	w := make([]uint32, 4*(rounds+1))
	for i := range nk {
		w[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	rcon := byte(1)
	for i := nk; i < len(w); i++ {
		t := w[i-1]
		switch {
		case i%nk == 0:
			// RotWord moves byte 1 to byte 0: a right rotation of a
			// little-endian word. Rcon goes into byte 0.
			t = subWord(bits.RotateLeft32(t, -8)) ^ uint32(rcon)
			rcon = xtime(rcon)
		case nk > 6 && i%nk == 4:
			t = subWord(t)
		}
		w[i] = w[i-nk] ^ t
	}
	return w, rounds, nil
}
