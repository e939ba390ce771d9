package aes

import "encoding/binary"

// GCM's field GF(2¹²⁸) mod x¹²⁸+x⁷+x²+x+1, on the host. A block is read as
// a 128-bit big-endian integer whose most significant bit is the
// coefficient of x⁰ (SP 800-38D §6.3): hi holds bytes 0–7, lo bytes 8–15.
//
// The product is a carry-less multiplication of the two integers, a shift
// left by one (the integers are the polynomials bit-reversed) and a
// reduction; the carry-less multiplication uses integer multiplications of
// operands with holes (only every fourth bit kept, so that the carries of a
// product never reach the next kept bit), so no branch and no memory index
// depends on the values. kernels/ghash.h does the same on the device with
// 32-bit words.
type fieldElement struct{ hi, lo uint64 }

// hashPowerCount is the number of powers H^(2^i) a Key keeps: GHASH inputs
// of up to 2^hashPowerCount blocks.
const hashPowerCount = 36

func fieldElementFromBytes(b []byte) fieldElement {
	return fieldElement{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}
}

func (x fieldElement) bytes(b []byte) {
	binary.BigEndian.PutUint64(b, x.hi)
	binary.BigEndian.PutUint64(b[8:], x.lo)
}

// words is x as the kernels hold it: four 32-bit words, most significant
// (bytes 0–3) first.
func (x fieldElement) words() [4]uint32 {
	return [4]uint32{uint32(x.hi >> 32), uint32(x.hi), uint32(x.lo >> 32), uint32(x.lo)}
}

func (x fieldElement) xor(y fieldElement) fieldElement { return fieldElement{x.hi ^ y.hi, x.lo ^ y.lo} }

// clmul32 is the carry-less product of x and y.
func clmul32(x, y uint32) uint64 {
	x0, x1, x2, x3 := uint64(x&0x11111111), uint64(x&0x22222222), uint64(x&0x44444444), uint64(x&0x88888888)
	y0, y1, y2, y3 := uint64(y&0x11111111), uint64(y&0x22222222), uint64(y&0x44444444), uint64(y&0x88888888)
	z0 := x0*y0 ^ x1*y3 ^ x2*y2 ^ x3*y1
	z1 := x0*y1 ^ x1*y0 ^ x2*y3 ^ x3*y2
	z2 := x0*y2 ^ x1*y1 ^ x2*y0 ^ x3*y3
	z3 := x0*y3 ^ x1*y2 ^ x2*y1 ^ x3*y0
	return z0&0x1111111111111111 | z1&0x2222222222222222 | z2&0x4444444444444444 | z3&0x8888888888888888
}

// clmul64 is the carry-less product of x and y (Karatsuba over 32-bit halves).
func clmul64(x, y uint64) (hi, lo uint64) {
	p := clmul32(uint32(x>>32), uint32(y>>32))
	q := clmul32(uint32(x), uint32(y))
	r := clmul32(uint32(x>>32)^uint32(x), uint32(y>>32)^uint32(y)) ^ p ^ q
	return p ^ r>>32, q ^ r<<32
}

// mul is x·y in GCM's field.
func (x fieldElement) mul(y fieldElement) fieldElement {
	hh, hl := clmul64(x.hi, y.hi)
	lh, ll := clmul64(x.lo, y.lo)
	mh, ml := clmul64(x.hi^x.lo, y.hi^y.lo)
	mh ^= hh ^ lh
	ml ^= hl ^ ll
	// The 255-bit product r3:r2:r1:r0, shifted left by one.
	r3, r2, r1, r0 := hh, hl^mh, lh^ml, ll
	r3 = r3<<1 | r2>>63
	r2 = r2<<1 | r1>>63
	r1 = r1<<1 | r0>>63
	r0 <<= 1
	// r3:r2 is the product's low half, r1:r0 its high half times x⁻¹²⁸,
	// both bit-reversed; x¹²⁸ = 1+x+x²+x⁷ is a right shift by 0, 1, 2, 7,
	// and what those shifts push out (e) is folded in once more.
	l := fieldElement{r1, r0}
	e := fieldElement{l.lo<<63 ^ l.lo<<62 ^ l.lo<<57, 0}
	out := fieldElement{r3, r2}.xor(l).xor(l.shr(1)).xor(l.shr(2)).xor(l.shr(7))
	return out.xor(e).xor(e.shr(1)).xor(e.shr(2)).xor(e.shr(7))
}

// shr shifts x right by n (0 < n < 64) bits.
func (x fieldElement) shr(n uint) fieldElement {
	return fieldElement{x.hi >> n, x.lo>>n | x.hi<<(64-n)}
}

// power is H^n for the key whose powers H^(2^i) are given: the product of
// those whose bit is set in n (n ≥ 1). The exponents are public (lengths).
func power(powers *[hashPowerCount]fieldElement, n uint64) fieldElement {
	var acc fieldElement
	first := true
	for i := 0; i < hashPowerCount; i++ {
		if n>>i&1 == 0 {
			continue
		}
		if first {
			acc, first = powers[i], false
		} else {
			acc = acc.mul(powers[i])
		}
	}
	return acc
}

// ghash is GHASH_H(data ‖ 0-padding ‖ [0]₆₄ ‖ [8·len(data)]₆₄), the
// hash SP 800-38D §7.1 applies to an IV that is not 96 bits long.
func ghash(h fieldElement, data []byte) fieldElement {
	var y fieldElement
	var block [16]byte
	for len(data) > 0 {
		n := copy(block[:], data)
		clear(block[n:])
		data = data[n:]
		y = y.xor(fieldElementFromBytes(block[:])).mul(h)
	}
	return y
}

// counterBlock is J0 of SP 800-38D §7.1 for nonce under hash key h.
func counterBlock(h fieldElement, nonce []byte) [16]byte {
	var j0 [16]byte
	if len(nonce) == 12 {
		copy(j0[:], nonce)
		j0[15] = 1
		return j0
	}
	y := ghash(h, nonce)
	y = y.xor(fieldElement{0, uint64(len(nonce)) * 8}).mul(h)
	y.bytes(j0[:])
	return j0
}
