package mlkem

import "math/bits"

// q is ML-KEM's modulus.
const q = 3329

// deviceTable is the table the kernels read their NTT's twiddle factors
// and their products' γ from (kernels/mlkem_poly.h, MLKEM_TABLE_*): for
// i = 0..127, ζ^bitrev7(i)·R mod q, then ζ^(2·bitrev7(i)+1)·R mod q, with
// ζ = 17 (FIPS 203 §4.3) and R = 2^16 (the kernels' Montgomery form).
func deviceTable() []uint32 {
	table := make([]uint32, 256)
	for i := range 128 {
		r := uint32(bits.Reverse8(uint8(i)) >> 1) // bitrev7(i)
		table[i] = montgomery(power17(r))
		table[128+i] = montgomery(power17(2*r + 1))
	}
	return table
}

// power17 is 17^e mod q.
func power17(e uint32) uint32 {
	x := uint32(1)
	for range e {
		x = x * 17 % q
	}
	return x
}

// montgomery is x·2^16 mod q.
func montgomery(x uint32) uint32 { return (x << 16) % q }
