package ecdsa_test

import (
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"io"
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

// FuzzSign: any hash bytes (any length: crypto/ecdsa truncates or pads
// them as the kernels' host does) and any bytes as the random source
// (repeated; none: RFC 6979's deterministic nonces), with one of four
// keys, through the device Engine. Never panics; the signature, DER and
// r ‖ s, verifies under crypto/ecdsa.
func FuzzSign(f *testing.F) {
	keys := make([]*stdecdsa.PrivateKey, 4)
	curve := elliptic.P256()
	for i := range keys {
		h := sha256.Sum256([]byte{'k', 'e', 'y', byte(i)})
		d := new(big.Int).Mod(new(big.Int).SetBytes(h[:]), curve.Params().N)
		x, y := curve.ScalarBaseMult(d.FillBytes(make([]byte, 32)))
		keys[i] = &stdecdsa.PrivateKey{PublicKey: stdecdsa.PublicKey{Curve: curve, X: x, Y: y}, D: d}
	}
	for i, h := range [][]byte{nil, {1}, make([]byte, 32), make([]byte, 64), []byte("a hash of any length")} {
		f.Add(byte(i), h, []byte{})
		f.Add(byte(i), h, []byte("random source"))
	}
	e := deviceEngine(f)
	f.Fuzz(func(t *testing.T, which byte, hash, random []byte) {
		key := keys[which%4]
		var source io.Reader
		if len(random) > 0 {
			source = &repeatingReader{b: random}
		}
		der, err := e.SignASN1(source, []*stdecdsa.PrivateKey{key}, [][]byte{hash})
		if err != nil {
			t.Fatal(err)
		}
		if !stdecdsa.VerifyASN1(&key.PublicKey, hash, der[0]) {
			t.Fatalf("DER signature %x does not verify", der[0])
		}
		rs, err := e.SignP1363(source, []*stdecdsa.PrivateKey{key}, [][]byte{hash})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs[0]) != 64 || !stdecdsa.Verify(&key.PublicKey, hash, new(big.Int).SetBytes(rs[0][:32]), new(big.Int).SetBytes(rs[0][32:])) {
			t.Fatalf("r ‖ s signature %x does not verify", rs[0])
		}
	})
}

// repeatingReader reads b over and over.
type repeatingReader struct {
	b   []byte
	off int
}

func (r *repeatingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.b[r.off]
		r.off = (r.off + 1) % len(r.b)
	}
	return len(p), nil
}
