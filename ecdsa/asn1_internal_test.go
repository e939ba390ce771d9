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
		require.LessOrEqual(t, len(want), maxASN1Size)
	}
}
