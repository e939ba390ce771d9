package ecdh_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// Public keys come from the fixed-base comb (kernels/comb.h); these tests
// hold it to the CPU (crypto/ecdh, circl) and to the ladder kernel.

// order is the prime order q of the base point.
func order(c ecdh.Curve) *big.Int {
	if c == ecdh.X25519() { // 2^252 + 27742317777372353535851937790883648493
		q, _ := new(big.Int).SetString("27742317777372353535851937790883648493", 10)
		return q.Add(q, new(big.Int).Lsh(big.NewInt(1), 252))
	}
	// 2^446 − 13818066809895115352007386748515426880336692474882178609894547503885
	q, _ := new(big.Int).SetString("13818066809895115352007386748515426880336692474882178609894547503885", 10)
	return q.Sub(new(big.Int).Lsh(big.NewInt(1), 446), q)
}

func leBytes(c ecdh.Curve, x *big.Int) []byte {
	b := x.FillBytes(make([]byte, c.Size()))
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return b
}

func clamped(c ecdh.Curve, b []byte) bool {
	if c == ecdh.X25519() {
		return b[0]&7 == 0 && b[31]&0xc0 == 0x40
	}
	return b[0]&3 == 0 && b[55]&0x80 != 0
}

// combDigits recodes a clamped scalar as the comb kernel does: digit i is
// nibble i of s + Σ 8·16^i minus 8; X25519 folds the carry into digit 63,
// X448 keeps it as digit 112.
func combDigits(c ecdh.Curve, s *big.Int) []int64 {
	n := 2 * c.Size()
	t := new(big.Int).Set(s)
	for i := range n {
		t.Add(t, new(big.Int).Lsh(big.NewInt(8), uint(4*i)))
	}
	var d []int64
	for i := range n {
		m := new(big.Int).Rsh(t, uint(4*i))
		if c == ecdh.X448() || i < n-1 {
			m.And(m, big.NewInt(15))
		}
		d = append(d, m.Int64()-8)
	}
	if c == ecdh.X448() {
		d = append(d, new(big.Int).Rsh(t, uint(4*n)).Int64())
	}
	return d
}

// fromDigits is Σ d_i·16^i.
func fromDigits(d []int64) *big.Int {
	s := new(big.Int)
	for i := len(d) - 1; i >= 0; i-- {
		s.Lsh(s, 4).Add(s, big.NewInt(d[i]))
	}
	return s
}

// edgeScalars are private keys that stress the recoding, the table scan and
// the conditional negation: all-zero and all-0xff bytes, every single bit,
// the smallest clamped value, digit patterns of extreme digits (-8, 7, 8
// and 0), and clamped scalars at and next to multiples of the group order.
func edgeScalars(t testing.TB, c ecdh.Curve) [][]byte {
	n := c.Size()
	var out [][]byte
	out = append(out, make([]byte, n))
	ff := make([]byte, n)
	for i := range ff {
		ff[i] = 0xff
	}
	out = append(out, ff)
	for bit := range 8 * n {
		b := make([]byte, n)
		b[bit/8] = 1 << (bit % 8)
		out = append(out, b)
	}
	// clamped value exactly 2^254 / 2^447
	low := make([]byte, n)
	low[n-1] = 0x40
	if c == ecdh.X448() {
		low[n-1] = 0x80
	}
	out = append(out, low)

	// digit patterns; each must already be clamped and recode to itself
	nd := 2 * n
	if c == ecdh.X448() {
		nd++
	}
	pattern := func(f func(i int) int64) {
		d := make([]int64, nd)
		for i := range d {
			d[i] = f(i)
		}
		b := leBytes(c, fromDigits(d))
		require.True(t, clamped(c, b), "%s digit pattern %v is not a clamped scalar", c, d)
		require.Equal(t, d, combDigits(c, fromDigits(d)), "%s digit pattern does not recode to itself", c)
		out = append(out, b)
	}
	if c == ecdh.X25519() {
		top := nd - 1
		pattern(func(i int) int64 { // every digit -8, the top one 8
			if i == top {
				return 8
			}
			return -8
		})
		pattern(func(i int) int64 { // every digit 7 (digit 0 -8), top 4
			switch i {
			case 0:
				return -8
			case top:
				return 4
			}
			return 7
		})
		pattern(func(i int) int64 { // -8, 7, -8, 7, ..., top 8
			if i == top {
				return 8
			}
			if i%2 == 0 {
				return -8
			}
			return 7
		})
		pattern(func(i int) int64 { // 0 and -8 by turns, top 8: odd rows only
			if i == top {
				return 8
			}
			if i%2 == 1 {
				return -8
			}
			return 0
		})
	} else {
		pattern(func(i int) int64 { // every digit -8 but the top two (1, -7)
			switch i {
			case nd - 1:
				return 1
			case nd - 2:
				return -7
			}
			return -8
		})
		pattern(func(i int) int64 { // every digit 7 (digit 0 4), then -8, 1
			switch i {
			case 0:
				return 4
			case nd - 1:
				return 1
			case nd - 2:
				return -8
			}
			return 7
		})
		pattern(func(i int) int64 { // -8, 7, -8, 7, ..., then -1, 1
			switch {
			case i == nd-1:
				return 1
			case i == nd-2:
				return -1
			case i%2 == 0:
				return -8
			}
			return 7
		})
		pattern(func(i int) int64 { // -8 every fifth digit (one Horner group), else 0
			switch {
			case i == nd-1:
				return 1
			case i%5 == 3:
				return -8
			}
			return 0
		})
	}

	// near multiples of q: X25519 4q ± 4 (k·B = ±4B); X448 4q (k·B is the
	// neutral element, public key all zeros) and 4q ± 4
	q4 := new(big.Int).Lsh(order(c), 2)
	for _, delta := range []int64{-4, 0, 4} {
		b := leBytes(c, new(big.Int).Add(q4, big.NewInt(delta)))
		if clamped(c, b) {
			out = append(out, b)
		}
	}
	return out
}

// keysFor returns n private keys: the edge scalars first, then random ones.
func keysFor(t testing.TB, c ecdh.Curve, n int) [][]byte {
	edge := edgeScalars(t, c)
	privs := make([][]byte, n)
	for i := range privs {
		if i < len(edge) {
			privs[i] = edge[i]
			continue
		}
		privs[i] = make([]byte, c.Size())
		rand.Read(privs[i])
	}
	return privs
}

func TestPublicKeysComb(t *testing.T) {
	e := engine(t)
	for _, c := range ecdh.Curves() {
		for _, n := range []int{1, 3, 1000, 4096} {
			t.Run(fmt.Sprintf("%s/%d", c, n), func(t *testing.T) {
				privs := keysFor(t, c, n)
				got, err := e.PublicKeys(c, privs)
				require.NoError(t, err)
				want, err := ecdh.CPUEngine().PublicKeys(c, privs)
				require.NoError(t, err)
				for i := range privs {
					require.Equal(t, hex.EncodeToString(want[i]), hex.EncodeToString(got[i]), "element %d: priv %x", i, privs[i])
				}
			})
		}
	}
}

// TestPublicKeyKernel checks the comb kernel against the RFC 7748 §6
// public keys and the CPU on random keys.
func TestPublicKeyKernel(t *testing.T) {
	e := engine(t)
	v25519, v448, err := testvectors.RFC7748()
	require.NoError(t, err)
	for _, c := range ecdh.Curves() {
		t.Run(c.String(), func(t *testing.T) {
			dh := v25519.DH61
			if c == ecdh.X448() {
				dh = v448.DH62
			}
			require.NotNil(t, dh)
			privs := append([][]byte{unhex(t, dh.AlicePrivate), unhex(t, dh.BobPrivate)}, keysFor(t, c, 2048)...)
			got, err := e.PublicKeys(c, privs)
			require.NoError(t, err)
			require.Equal(t, dh.AlicePublic, hex.EncodeToString(got[0]))
			require.Equal(t, dh.BobPublic, hex.EncodeToString(got[1]))
			want, err := ecdh.CPUEngine().PublicKeys(c, privs)
			require.NoError(t, err)
			for i := range privs {
				require.Equal(t, hex.EncodeToString(want[i]), hex.EncodeToString(got[i]), "element %d: priv %x", i, privs[i])
			}
		})
	}
}
