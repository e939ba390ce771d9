package ecdsa

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"
)

// appendASN1 writes the DER signature crypto/ecdsa writes (its cryptobyte
// encoding), for values with the top bit set, with leading zero bytes and
// small ones, and appends after what b holds.
func TestAppendASN1(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	value := func() (v [32]byte) {
		for i := range v {
			v[i] = byte(r.Uint32())
		}
		switch r.IntN(4) {
		case 0:
			v[0] |= 0x80
		case 1:
			clear(v[:1+r.IntN(31)]) // leading zeros, maybe a top bit below them
		case 2:
			v[0] &= 0x7f
		}
		return v
	}
	for range 2000 {
		rv, sv := value(), value()
		if rv == [32]byte{} || sv == [32]byte{} {
			continue
		}
		var b cryptobyte.Builder
		b.AddASN1(asn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1BigInt(new(big.Int).SetBytes(rv[:]))
			b.AddASN1BigInt(new(big.Int).SetBytes(sv[:]))
		})
		want := b.BytesOrPanic()
		got := appendASN1([]byte{7}, &rv, &sv)
		require.Equal(t, append([]byte{7}, want...), got, "r %x s %x", rv, sv)
		require.LessOrEqual(t, len(want), MaxASN1Size)
	}
}

// parseShortASN1 takes only what cryptobyte's parseASN1 takes, with the
// same r and s, and takes every signature appendASN1 writes: signatures
// of values of every length, then with bytes changed, cut, added or
// inserted (lengths, tags, a leading zero or 0xff, a top bit).
func TestParseShortASN1(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	value := func() (v [32]byte) {
		for i := range v {
			v[i] = byte(r.Uint32())
		}
		clear(v[:r.IntN(33)])
		return v
	}
	taken := 0
	for range 200000 {
		rv, sv := value(), value()
		sig := appendASN1(nil, &rv, &sv)
		if rv != [32]byte{} && sv != [32]byte{} {
			_, _, ok := parseShortASN1(sig)
			require.True(t, ok, "%x", sig)
		}
		for range r.IntN(4) {
			switch at := r.IntN(len(sig) + 1); r.IntN(5) {
			case 0:
				if at < len(sig) {
					sig[at] = byte(r.Uint32())
				}
			case 1:
				if at < len(sig) {
					sig[at] ^= 1 << r.IntN(8)
				}
			case 2:
				sig = sig[:at]
			case 3:
				sig = append(sig[:at:at], append([]byte{[]byte{0, 0xff, 0x80, 2, 0x30}[r.IntN(5)]}, sig[at:]...)...)
			case 4:
				if len(sig) > 1 {
					sig[1] = byte(len(sig) - 2 + r.IntN(3) - 1)
				}
			}
		}
		gotR, gotS, got := parseShortASN1(sig)
		var wantR, wantS []byte
		var inner cryptobyte.String
		input := cryptobyte.String(sig)
		want := input.ReadASN1(&inner, asn1.SEQUENCE) && input.Empty() &&
			inner.ReadASN1Integer(&wantR) && inner.ReadASN1Integer(&wantS) && inner.Empty()
		if got {
			taken++
			require.True(t, want, "%x", sig)
			require.Equal(t, wantR, gotR, "%x", sig)
			require.Equal(t, wantS, gotS, "%x", sig)
		}
		pr, ps, ok := parseASN1(sig)
		require.Equal(t, want, ok, "%x", sig)
		if ok {
			require.Equal(t, wantR, pr, "%x", sig)
			require.Equal(t, wantS, ps, "%x", sig)
		}
	}
	require.Greater(t, taken, 1000)
}
