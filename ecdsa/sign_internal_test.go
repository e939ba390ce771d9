package ecdsa

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// RFC 6979 §A.2.5's P-256 SHA-256 vectors ("sample", "test") and one whose
// nonce generation loops (crypto/ecdsa's tests found it): the DRBG in its
// deterministic form gives RFC 6979's nonce, and the device's signature
// with that nonce is the RFC's (r, s) byte for byte.
func TestRFC6979(t *testing.T) {
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	hexInt := func(s string) *big.Int { v, _ := new(big.Int).SetString(s, 16); return v }
	key := &ecdsa.PrivateKey{
		PublicKey: ecdsa.PublicKey{Curve: elliptic.P256(),
			X: hexInt("60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6"),
			Y: hexInt("7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299")},
		D: hexInt("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721"),
	}
	cases := []struct{ msg, r, s string }{
		{"wv[vnX", "EFD9073B652E76DA1B5A019C0E4A2E3FA529B035A6ABB91EF67F0ED7A1F21234", "3DB4706C9D9F4A4FE13BB5E08EF0FAB53A57DBAB2061C83A35FA411C68D2BA33"},
		{"sample", "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716", "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"},
		{"test", "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367", "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"},
	}
	var keys []*ecdsa.PrivateKey
	var hashes [][]byte
	for _, c := range cases {
		h := sha256.Sum256([]byte(c.msg))
		keys, hashes = append(keys, key), append(hashes, h[:])
	}
	before := e.Stats().DeviceOps
	sigs, errs, err := e.signBatch(P1363, true, keys, hashes, make([]byte, 32*len(keys)))
	require.NoError(t, err)
	require.Greater(t, e.Stats().DeviceOps, before, "signed on the device")
	for i, c := range cases {
		require.NoError(t, errs.Get(i))
		require.Equal(t, strings.ToLower(c.r+c.s), hex.EncodeToString(sigs[i]), c.msg)
	}
}

// bits2octets reduces a hash at or above n.
func TestBits2Octets(t *testing.T) {
	n := groupOrder
	require.Equal(t, [32]byte{}, bits2octets(n))
	above := append([]byte(nil), n...)
	above[31]++
	one := [32]byte{31: 1}
	require.Equal(t, one, bits2octets(above))
	short := []byte{1, 2, 3}
	require.Equal(t, [32]byte{29: 1, 30: 2, 31: 3}, bits2octets(short))
}

// validScalar accepts [1, n) alone: at the edges (0, 1, n − 1, n, n + 1,
// 2^256 − 1, a single bit in each word) and at random, as math/big
// compares.
func TestValidScalar(t *testing.T) {
	one := big.NewInt(1)
	cases := []*big.Int{new(big.Int), one, new(big.Int).Sub(orderInt, one), orderInt,
		new(big.Int).Add(orderInt, one), new(big.Int).Sub(new(big.Int).Lsh(one, 256), one)}
	for bit := 0; bit < 256; bit += 64 {
		cases = append(cases, new(big.Int).Lsh(one, uint(bit)))
	}
	for i := range 1000 {
		h := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
		cases = append(cases, new(big.Int).SetBytes(h[:]))
	}
	for _, v := range cases {
		var d [32]byte
		v.FillBytes(d[:])
		want := v.Sign() > 0 && v.Cmp(orderInt) < 0
		require.Equal(t, want, validScalar(&d), "%x", d)
	}
}

// randomRows writes every word of elements [a, b) in each of the 8 rows
// and nothing else, and two ranges' bytes (two generators) differ: a
// generator keyed the same each time, or a row left as it was, fails.
func TestRandomRows(t *testing.T) {
	const n, a, b = 100, 13, 77
	const mark = 0xa5a5a5a5
	first := make([]uint32, 8*n)
	for i := range first {
		first[i] = mark
	}
	second := slices.Clone(first)
	randomRows(first, n, a, b)
	randomRows(second, n, a, b)
	for w := range 8 {
		unchanged := 0 // a random word equals the mark one time in 2^32
		for k := range n {
			i := w*n + k
			if k < a || k >= b {
				require.Equal(t, uint32(mark), first[i], "row %d, element %d outside the range", w, k)
			} else if first[i] == mark {
				unchanged++
			}
		}
		require.Less(t, unchanged, 2, "row %d: words not written", w)
		require.NotEqual(t, first[w*n+a:w*n+b], second[w*n+a:w*n+b], "row %d: two ranges' bytes equal", w)
	}
}
