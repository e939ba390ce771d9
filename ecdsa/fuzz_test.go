package ecdsa_test

import (
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"math/big"
	"testing"

	"github.com/gpucrypto/gpucrypto/ecdsa"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// FuzzVerifyASN1: any signature and hash bytes, and any key coordinates
// (key: x then y, half each), through the device Engine. Never panics; the verdict is crypto/ecdsa's.
func FuzzVerifyASN1(f *testing.F) {
	fuzzVerify(f, "ecdsa_secp256r1_sha256_test.json", (*ecdsa.Engine).VerifyASN1, stdecdsa.VerifyASN1)
}

// FuzzVerifyP1363: FuzzVerifyASN1 for r ‖ s signatures (any bytes; the
// verdict is crypto/ecdsa.Verify's on the two halves of a 64-byte one,
// false for any other length).
func FuzzVerifyP1363(f *testing.F) {
	fuzzVerify(f, "ecdsa_secp256r1_sha256_p1363_test.json", (*ecdsa.Engine).VerifyP1363, func(pub *stdecdsa.PublicKey, hash, sig []byte) bool {
		return len(sig) == 64 && stdecdsa.Verify(pub, hash, new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
	})
}

// fuzzVerify is a verification fuzz target seeded from a Wycheproof file:
// the device Engine's verify against crypto/ecdsa's verdict want.
func fuzzVerify(f *testing.F, vectors string,
	verify func(*ecdsa.Engine, []*stdecdsa.PublicKey, [][]byte, [][]byte) ([]bool, error),
	want func(pub *stdecdsa.PublicKey, hash, sig []byte) bool) {
	groups, err := testvectors.WycheproofECDSA(vectors)
	if err != nil {
		f.Fatal(err)
	}
	for _, g := range groups[:8] {
		for _, c := range g.Tests[:min(4, len(g.Tests))] {
			point := unhex(f, g.PublicKey)
			h := sha256.Sum256(unhex(f, c.Msg))
			f.Add(point[1:], unhex(f, c.Sig), h[:])
		}
	}
	e := deviceEngine(f)
	f.Fuzz(func(t *testing.T, key, sig, hash []byte) {
		x, y := new(big.Int), new(big.Int)
		if len(key) > 0 {
			half := len(key) / 2
			x.SetBytes(key[:half])
			y.SetBytes(key[half:])
		}
		pub := &stdecdsa.PublicKey{Curve: elliptic.P256(), X: x, Y: y}
		got, err := verify(e, []*stdecdsa.PublicKey{pub}, [][]byte{hash}, [][]byte{sig})
		if err != nil {
			t.Fatal(err)
		}
		if w := want(pub, hash, sig); got[0] != w {
			t.Fatalf("verdict %v, crypto/ecdsa %v", got[0], w)
		}
	})
}
