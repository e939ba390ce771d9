package ecdsa_test

import (
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/hex"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdsa"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// deviceEngine is the test device's engine (devicetest.Engine): every
// call computes there, and a fallback to the CPU fails the test.
func deviceEngine(t testing.TB) *ecdsa.Engine {
	t.Helper()
	return devicetest.Engine(t, ecdsa.NewEngine)
}

func engines(t *testing.T) map[string]*ecdsa.Engine {
	return map[string]*ecdsa.Engine{"device": deviceEngine(t), "cpu": ecdsa.CPUEngine()}
}

func unhex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// publicKey is the P-256 key of the uncompressed point (hex).
func publicKey(t *testing.T, point string) *stdecdsa.PublicKey {
	b := unhex(t, point)
	require.Len(t, b, 65)
	return &stdecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(b[1:33]), Y: new(big.Int).SetBytes(b[33:])}
}

// Wycheproof's P-256 SHA-256 files, DER and P1363: the verdicts are
// crypto/ecdsa's and Wycheproof's.
func TestWycheproof(t *testing.T) {
	for _, file := range []struct {
		name string
		form ecdsa.Form
	}{{"ecdsa_secp256r1_sha256_test.json", ecdsa.ASN1}, {"ecdsa_secp256r1_sha256_p1363_test.json", ecdsa.P1363}} {
		groups, err := testvectors.WycheproofECDSA(file.name)
		require.NoError(t, err)
		var pubs []*stdecdsa.PublicKey
		var hashes, sigs [][]byte
		var want []bool
		var ids []int
		for _, g := range groups {
			pub := publicKey(t, g.PublicKey)
			for _, c := range g.Tests {
				h := sha256.Sum256(unhex(t, c.Msg))
				pubs, hashes, sigs = append(pubs, pub), append(hashes, h[:]), append(sigs, unhex(t, c.Sig))
				want = append(want, c.Result == "valid")
				ids = append(ids, c.TcID)
			}
		}
		for name, e := range engines(t) {
			t.Run(file.name+"/"+name, func(t *testing.T) {
				verify := e.VerifyASN1
				if file.form == ecdsa.P1363 {
					verify = e.VerifyP1363
				}
				got, err := verify(pubs, hashes, sigs)
				require.NoError(t, err)
				for i := range got {
					require.Equal(t, want[i], got[i], "tcId %d", ids[i])
				}
			})
		}
	}
}

// Random keys and hashes of several lengths, crypto/ecdsa's signatures,
// and corrupted ones: the device's verdicts are crypto/ecdsa's, also for
// keys off the curve; a key on P-384 fails its element (ErrCurve).
func TestDifferential(t *testing.T) {
	r := mrand.New(mrand.NewPCG(1, 2))
	e := deviceEngine(t)
	const n = 120
	var pubs []*stdecdsa.PublicKey
	var hashes, sigs [][]byte
	for i := range n {
		curve := elliptic.P256()
		if i == 7 {
			curve = elliptic.P384()
		}
		key, err := stdecdsa.GenerateKey(curve, rand.Reader)
		require.NoError(t, err)
		h := make([]byte, []int{32, 64, 20, 48, 0}[i%5])
		for k := range h {
			h[k] = byte(r.Uint32())
		}
		sig, err := stdecdsa.SignASN1(rand.Reader, key, h)
		require.NoError(t, err)
		pub := &key.PublicKey
		switch i % 9 {
		case 1:
			sig[len(sig)-1] ^= 1
		case 2:
			sig[6] ^= 0x10
		case 3:
			if len(h) > 0 {
				h[0] ^= 1
			}
		case 4: // a point off the curve
			pub = &stdecdsa.PublicKey{Curve: pub.Curve, X: pub.X, Y: new(big.Int).Add(pub.Y, big.NewInt(1))}
		case 5: // a coordinate not below p
			pub = &stdecdsa.PublicKey{Curve: pub.Curve, X: new(big.Int).Add(pub.X, pub.Curve.Params().P), Y: pub.Y}
		}
		pubs, hashes, sigs = append(pubs, pub), append(hashes, h), append(sigs, sig)
	}
	got, err := e.VerifyASN1(pubs, hashes, sigs)
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, be.Errs[7], ecdsa.ErrCurve)
	require.False(t, got[7])
	valid := 0
	for i := range got {
		if i == 7 {
			continue
		}
		require.NoError(t, be.Errs[i])
		require.Equal(t, stdecdsa.VerifyASN1(pubs[i], hashes[i], sigs[i]), got[i], "element %d", i)
		if got[i] {
			valid++
		}
	}
	require.Positive(t, valid)
	require.Less(t, valid, n)
}

// Signatures built so that verification's Straus loop (ecdsa.cl) adds a
// point to itself, where the Jacobian addition is not defined and the
// kernel doubles instead: with Q = G and u1, u2 ≥ 2^255 (top recoded
// digit 1 for both) the loop's first two additions are G + Q = G + G;
// with Q = 16^−1·G, u2 ≥ 2^255 and u1 = 2^252 + a small value, the
// accumulator Q becomes 16·Q = G after four doublings and the next digit
// of u1 adds G. Each is valid, and invalid with s changed; the verdicts
// are crypto/ecdsa's.
func TestVerifyExceptionalSums(t *testing.T) {
	curve := elliptic.P256()
	n := curve.Params().N
	r := mrand.New(mrand.NewPCG(5, 6))
	random := func(bits uint) *big.Int {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return new(big.Int).Rsh(new(big.Int).SetBytes(b), 256-bits)
	}
	high := func() *big.Int { // in [2^255, n)
		for {
			v := new(big.Int).SetBit(random(255), 255, 1)
			if v.Cmp(n) < 0 {
				return v
			}
		}
	}
	inverse16 := new(big.Int).ModInverse(big.NewInt(16), n)
	var pubs []*stdecdsa.PublicKey
	var hashes, sigs [][]byte
	for i := range 16 {
		d, u1 := big.NewInt(1), high()
		if i%2 == 1 {
			d, u1 = inverse16, new(big.Int).SetBit(random(240), 252, 1)
		}
		u2 := high()
		qx, qy := curve.ScalarBaseMult(d.FillBytes(make([]byte, 32)))
		// R = u1·G + u2·Q = (u1 + u2·d)·G, r = x(R) mod n, s = r/u2, e = u1·s
		k := new(big.Int).Mul(u2, d)
		k.Add(k, u1).Mod(k, n)
		rx, _ := curve.ScalarBaseMult(k.FillBytes(make([]byte, 32)))
		rr := new(big.Int).Mod(rx, n)
		ss := new(big.Int).ModInverse(u2, n)
		ss.Mul(ss, rr).Mod(ss, n)
		e := new(big.Int).Mul(u1, ss)
		e.Mod(e, n)
		pub := &stdecdsa.PublicKey{Curve: curve, X: qx, Y: qy}
		for _, s := range []*big.Int{ss, new(big.Int).Add(ss, big.NewInt(1))} {
			sig := append(rr.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
			pubs, hashes, sigs = append(pubs, pub), append(hashes, e.FillBytes(make([]byte, 32))), append(sigs, sig)
		}
	}
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			got, err := e.VerifyP1363(pubs, hashes, sigs)
			require.NoError(t, err)
			for i := range got {
				want := stdecdsa.VerifyASN1(pubs[i], hashes[i], p1363ToASN1(t, sigs[i]))
				require.Equal(t, i%2 == 0, want, "element %d: the construction", i)
				require.Equal(t, want, got[i], "element %d", i)
			}
		})
	}
}

// p1363ToASN1 is the DER form of the r ‖ s signature sig.
func p1363ToASN1(t *testing.T, sig []byte) []byte {
	der, err := asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])})
	require.NoError(t, err)
	return der
}

// Malformed input: an error for a nil key alone; other shapes are
// invalid signatures; mismatched slices fail the call.
func TestBadInput(t *testing.T) {
	key, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	h := sha256.Sum256([]byte("m"))
	sig, err := stdecdsa.SignASN1(rand.Reader, key, h[:])
	require.NoError(t, err)
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			got, err := e.VerifyASN1([]*stdecdsa.PublicKey{&key.PublicKey, nil, &key.PublicKey, &key.PublicKey},
				[][]byte{h[:], h[:], h[:], h[:]}, [][]byte{sig, sig, nil, append(append([]byte(nil), sig...), 0)})
			var be *batch.Error
			require.ErrorAs(t, err, &be)
			require.Equal(t, []bool{true, false, false, false}, got)
			require.ErrorIs(t, be.Errs[1], ecdsa.ErrNilKey)
			require.NoError(t, be.Errs[2])
			got, err = e.VerifyP1363([]*stdecdsa.PublicKey{&key.PublicKey}, [][]byte{h[:]}, [][]byte{make([]byte, 64)})
			require.NoError(t, err)
			require.Equal(t, []bool{false}, got) // r = s = 0
			_, err = e.VerifyASN1([]*stdecdsa.PublicKey{&key.PublicKey}, nil, nil)
			require.Error(t, err)
			got, err = e.VerifyASN1(nil, nil, nil)
			require.NoError(t, err)
			require.Empty(t, got)
		})
	}
}

func TestSelfTest(t *testing.T) {
	require.NoError(t, ecdsa.SelfTest(deviceEngine(t)))
	require.NoError(t, ecdsa.SelfTest(ecdsa.CPUEngine()))
}
