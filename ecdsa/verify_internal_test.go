package ecdsa

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// scalarLimbs and coordinateLimbs, verification's readings of r, s and
// the key's coordinates, are scalar32's and coordinate32's, in limbs, at
// the edges (0, 1, n and p and their neighbours, 2^256 − 1, 2^256, a
// negative coordinate, leading zeros, 33 bytes) and at random.
func TestVerifyLimbs(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	one := big.NewInt(1)
	n, p := new(big.Int).SetBytes(groupOrder), new(big.Int).SetBytes(fieldPrime)
	top := new(big.Int).Lsh(one, 256)
	values := []*big.Int{new(big.Int), one, big.NewInt(-1), new(big.Int).Neg(n), top, new(big.Int).Sub(top, one)}
	for _, edge := range []*big.Int{n, p} {
		values = append(values, new(big.Int).Sub(edge, one), edge, new(big.Int).Add(edge, one))
	}
	for range 5000 {
		b := make([]byte, 1+r.IntN(34))
		for k := range b {
			b[k] = byte(r.Uint32())
		}
		clear(b[:r.IntN(len(b)+1)])
		values = append(values, new(big.Int).SetBytes(b))
	}
	for _, v := range values {
		wantC, okC := coordinate32(v)
		gotC, ok := coordinateLimbs(v)
		require.Equal(t, okC, ok, "%x", v)
		if ok {
			require.Equal(t, wantC, gotC.bytes(), "%x", v)
		}
		if v.Sign() < 0 {
			continue
		}
		for zeros := range 3 {
			b := append(make([]byte, zeros), v.Bytes()...)
			wantS, okS := scalar32(b, groupOrder)
			gotS, ok := scalarLimbs(b)
			require.Equal(t, okS, ok, "%x", b)
			if ok {
				require.Equal(t, wantS, gotS.bytes(), "%x", b)
			}
		}
	}
	require.False(t, func() bool { _, ok := coordinateLimbs(nil); return ok }())
}

// A call that the host packs in several ranges (one per core, and more
// than one tile each), with elements the host settles among the others
// (a nil key, a key on P-384, a point off the curve, a coordinate not
// below p, a signature changed, cut or not minimally encoded, r = 0): every
// verdict is crypto/ecdsa's, and the errors are the nil key's and the
// other curve's alone.
func TestVerifyRanges(t *testing.T) {
	e := devicetest.Engine(t, NewEngine)
	const distinct = 61
	var keys [distinct]*ecdsa.PrivateKey
	for k := range keys {
		var err error
		keys[k], err = ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
		require.NoError(t, err)
	}
	other, err := ecdsa.GenerateKey(elliptic.P384(), crand.Reader)
	require.NoError(t, err)
	n := 3*hostChunk + 5
	pubs, hashes, sigs := make([]*ecdsa.PublicKey, n), make([][]byte, n), make([][]byte, n)
	for i := range n {
		key := keys[i%distinct]
		var m [8]byte
		binary.LittleEndian.PutUint64(m[:], uint64(i))
		h := sha256.Sum256(m[:])
		sig, err := ecdsa.SignASN1(crand.Reader, key, h[:])
		require.NoError(t, err)
		pub := &key.PublicKey
		switch i % 11 {
		case 1:
			sig[len(sig)-1] ^= 1
		case 2:
			pub = nil
		case 3:
			pub = &other.PublicKey
		case 4:
			pub = &ecdsa.PublicKey{Curve: pub.Curve, X: pub.X, Y: new(big.Int).Add(pub.Y, big.NewInt(1))}
		case 5:
			pub = &ecdsa.PublicKey{Curve: pub.Curve, X: new(big.Int).Add(pub.X, pub.Curve.Params().P), Y: pub.Y}
		case 6:
			sig = sig[:len(sig)-1]
		case 7: // r with a leading zero it does not need
			sig = append([]byte{0x30, sig[1] + 1, 2, sig[3] + 1, 0}, sig[4:]...)
		case 8:
			sig = appendASN1(nil, &[32]byte{}, (*[32]byte)(h[:]))
		}
		pubs[i], hashes[i], sigs[i] = pub, h[:], sig
	}
	got, err := e.VerifyASN1(pubs, hashes, sigs)
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	valid, wantValid := 0, 0
	for i, pub := range pubs {
		switch i % 11 {
		case 2:
			require.ErrorIs(t, be.Errs[i], ErrNilKey, "element %d", i)
			require.False(t, got[i], "element %d", i)
			continue
		case 3:
			require.ErrorIs(t, be.Errs[i], ErrCurve, "element %d", i)
			require.False(t, got[i], "element %d", i)
			continue
		}
		require.NoError(t, be.Errs[i], "element %d", i)
		require.Equal(t, ecdsa.VerifyASN1(pub, hashes[i], sigs[i]), got[i], "element %d", i)
		if got[i] {
			valid++
		}
		if i%11 == 0 || i%11 >= 9 { // signatures and keys as made
			wantValid++
		}
	}
	require.Equal(t, wantValid, valid)
}

// coordinate32 is a public key coordinate as 32 bytes, if it is in [0, p)
// (crypto/ecdsa refuses others: a negative one, or one that does not
// encode below p): the reference of coordinateLimbs.
func coordinate32(v *big.Int) (out [32]byte, ok bool) {
	if v == nil || v.Sign() < 0 || v.BitLen() > 256 {
		return out, false
	}
	v.FillBytes(out[:])
	return out, bytes.Compare(out[:], fieldPrime) < 0
}
