package ecdsa

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/internal/engine"
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
	before, faults := e.Stats().DeviceOps, e.Stats().Faults
	sigs, errs, err := e.signBatch(P1363, true, keys, hashes, make([]byte, 32*len(keys)))
	require.NoError(t, err)
	require.Greater(t, e.Stats().DeviceOps, before, "signed on the device")
	require.Equal(t, faults, e.Stats().Faults, "signatures the fault check refused")
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

// unpack into the caller's outputs (SignASN1Into, SignP1363Into) writes
// each element's signature, appendASN1's or r ‖ s, and allocates nothing
// for outputs of outputSize's capacity, one slab for a range whose
// outputs are nil (SignASN1's path: one per range as well); appendASN1
// into a slice with room allocates nothing.
func TestUnpackIntoAllocs(t *testing.T) {
	const n = 100 // six tiles and a part
	r := mrand.New(mrand.NewPCG(23, 24))
	sigs := make([]uint32, 16*n)
	want := make([][2][32]byte, n)
	for i := range want {
		for half := range want[i] {
			for b := range want[i][half] {
				want[i][half][b] = byte(r.Uint32())
			}
			clear(want[i][half][:r.IntN(3)]) // shorter INTEGERs at times
			want[i][half][31] |= 1
		}
		putRow(sigs[:8*n], n, i, &want[i][0])
		putRow(sigs[8*n:], n, i, &want[i][1])
	}
	onDevice := make([]bool, n)
	for i := range onDevice {
		onDevice[i] = true
	}
	ch := &engine.Chunk{Lo: 0, Hi: n}
	for _, form := range []Form{ASN1, P1363} {
		t.Run(fmt.Sprint(form), func(t *testing.T) {
			wantSig := func(i int) []byte {
				if form == P1363 {
					return append(want[i][0][:], want[i][1][:]...)
				}
				return appendASN1(nil, &want[i][0], &want[i][1])
			}
			outs := make([][]byte, n)
			j := &signJob{form: form, out: engine.Ready(outs), into: true, errs: engine.NewErrors(n)}
			allocs := testing.AllocsPerRun(5, func() {
				clear(outs)
				j.unpack(ch, sigs, onDevice, 0, n)
			})
			require.Equal(t, 1.0, allocs, "nil outputs: one slab for the range")
			for i := range outs {
				require.Equal(t, wantSig(i), outs[i], "element %d", i)
				require.Equal(t, j.outputSize(), cap(outs[i]), "element %d", i)
			}
			for i := range outs {
				outs[i] = make([]byte, 0, j.outputSize())
			}
			allocs = testing.AllocsPerRun(5, func() { j.unpack(ch, sigs, onDevice, 0, n) })
			require.Zero(t, allocs, "outputs with room")
			for i := range outs {
				require.Equal(t, wantSig(i), outs[i], "element %d", i)
			}

			fresh := &signJob{form: form, out: engine.Ready(make([][]byte, n)), errs: engine.NewErrors(n)}
			allocs = testing.AllocsPerRun(5, func() { fresh.unpack(ch, sigs, onDevice, 0, n) })
			require.Equal(t, 1.0, allocs, "new signatures: one slab for the range")
			for i, sig := range fresh.out.Get() {
				require.Equal(t, wantSig(i), sig, "element %d", i)
			}
		})
	}
	buf := make([]byte, 0, MaxASN1Size)
	allocs := testing.AllocsPerRun(100, func() { buf = appendASN1(buf[:0], &want[0][0], &want[0][1]) })
	require.Zero(t, allocs, "appendASN1 with room")
}

// A call of several device batches into the caller's outputs (some nil,
// some with room, bad keys among them), one batch's results wrong (the
// result check finds them: the CPU recomputes the batch) and another's
// device failing: every output verifies, in place where it had room, a
// bad key's is empty, and the fallbacks are reported.
func TestSignIntoFallback(t *testing.T) {
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	e.SetResultCheck(1)
	var fallbacks atomic.Int32
	e.OnFallback(func(error) { fallbacks.Add(1) })
	old := pipelineChunk
	pipelineChunk = 8
	t.Cleanup(func() { pipelineChunk = old })
	const n = 40
	keys, hashes := make([]*ecdsa.PrivateKey, n), make([][]byte, n)
	for i := range keys {
		if i < 5 {
			key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			require.NoError(t, err)
			keys[i] = key
		} else {
			keys[i] = keys[i%5]
		}
		h := sha256.Sum256([]byte{byte(i)})
		hashes[i] = h[:]
	}
	bad := map[int]bool{3: true, 10: true, 27: true} // in a good batch, the wrong one, the failing one
	for i := range bad {
		keys[i] = nil
	}
	failDevice := errors.New("the device fails")
	e.core.SetHooks(&engine.Hooks{
		BeforeDevice: func(lo, hi int) error {
			if lo <= 24 && 24 < hi {
				return failDevice
			}
			return nil
		},
		AfterRun: func(lo, hi int, staging [][]byte) {
			if lo <= 8 && 8 < hi { // (r, s), the staging's last rows, wrong
				rows := staging[0][len(staging[0])-64*(hi-lo):]
				for k := range rows {
					rows[k] ^= 0x5a
				}
			}
		},
	})
	defer e.core.SetHooks(nil)
	for _, form := range []Form{ASN1, P1363} {
		size := map[Form]int{ASN1: MaxASN1Size, P1363: P1363Size}[form]
		out := make([][]byte, n)
		for i := range out {
			if i%3 != 0 {
				out[i] = make([]byte, size)
			}
		}
		before := slices.Clone(out)
		start, batches := fallbacks.Load(), e.Stats().Batches
		var errs *batch.Error
		if form == P1363 {
			require.ErrorAs(t, e.SignP1363Into(nil, keys, hashes, out), &errs)
		} else {
			require.ErrorAs(t, e.SignASN1Into(nil, keys, hashes, out), &errs)
		}
		require.EqualValues(t, 2, fallbacks.Load()-start, "form %d: two batches recomputed", form)
		require.GreaterOrEqual(t, e.Stats().Batches-batches, int64(3), "form %d", form)
		for i, key := range keys {
			if before[i] != nil {
				require.Same(t, unsafe.SliceData(before[i]), unsafe.SliceData(out[i]), "form %d, element %d: in place", form, i)
			} else if !bad[i] {
				require.Equal(t, size, cap(out[i]), "form %d, element %d", form, i)
			}
			if bad[i] {
				require.ErrorIs(t, errs.Errs[i], ErrNilKey, "form %d, element %d", form, i)
				require.Empty(t, out[i], "form %d, element %d", form, i)
				continue
			}
			require.NoError(t, errs.Errs[i], "form %d, element %d", form, i)
			ok, err := verifyCPU(&key.PublicKey, hashes[i], out[i], form)
			require.NoError(t, err)
			require.True(t, ok, "form %d, element %d", form, i)
		}
	}
}
