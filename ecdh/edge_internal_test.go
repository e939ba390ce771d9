package ecdh

import (
	"encoding/hex"
	"math/big"
)

// edgeU are u-coordinates that stress reduction and the ladder: 0, 1,
// p−1, p, p+1, 2^bits−1, 2^(bits−1) and, for X25519(), points of order 8.
func edgeU(c Curve) [][]byte {
	var p *big.Int
	if c == X25519() {
		p = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	} else {
		p = new(big.Int).Lsh(big.NewInt(1), 448)
		p.Sub(p, new(big.Int).Lsh(big.NewInt(1), 224)).Sub(p, big.NewInt(1))
	}
	le := func(x *big.Int) []byte {
		b := x.FillBytes(make([]byte, c.Size()))
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		return b
	}
	one := big.NewInt(1)
	top := new(big.Int).Sub(new(big.Int).Lsh(one, uint(8*c.Size())), one)
	out := [][]byte{le(big.NewInt(0)), le(one), le(new(big.Int).Sub(p, one)), le(p), le(new(big.Int).Add(p, one)),
		le(top), le(new(big.Int).Lsh(one, uint(8*c.Size()-1)))}
	if c == X25519() {
		// points of order 8 (from the Wycheproof / libsodium blocklist)
		for _, h := range []string{
			"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
			"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
			"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		} {
			b, _ := hex.DecodeString(h)
			out = append(out, b)
		}
	}
	return out
}
