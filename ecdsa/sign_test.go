package ecdsa_test

import (
	"bytes"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdsa"
)

// zeroReader is the poorest random source: zeros.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Signatures of the device verify under crypto/ecdsa in both forms, for
// hashes of several lengths; with a source of zeros the nonces still
// differ between messages (hedged: the key and the hash are mixed in).
func TestSign(t *testing.T) {
	e := deviceEngine(t)
	var keys []*stdecdsa.PrivateKey
	var hashes [][]byte
	for i := range 60 {
		key, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		h := make([]byte, []int{32, 64, 20, 0}[i%4])
		rand.Read(h)
		keys, hashes = append(keys, key), append(hashes, h)
	}
	der, err := e.SignASN1(nil, keys, hashes)
	require.NoError(t, err)
	rs, err := e.SignP1363(zeroReader{}, keys, hashes)
	require.NoError(t, err)
	seen := map[string]bool{}
	for i := range keys {
		require.True(t, stdecdsa.VerifyASN1(&keys[i].PublicKey, hashes[i], der[i]), "DER %d", i)
		require.Len(t, rs[i], 64)
		r, s := new(big.Int).SetBytes(rs[i][:32]), new(big.Int).SetBytes(rs[i][32:])
		require.True(t, stdecdsa.Verify(&keys[i].PublicKey, hashes[i], r, s), "P1363 %d", i)
		require.False(t, seen[string(rs[i][:32])], "r repeated with a source of zeros")
		seen[string(rs[i][:32])] = true
	}
	// the same key and hash twice with zeros: deterministic then, the same
	// signature
	twice, err := e.SignP1363(zeroReader{}, []*stdecdsa.PrivateKey{keys[0], keys[0]}, [][]byte{hashes[0], hashes[0]})
	require.NoError(t, err)
	require.Equal(t, twice[0], twice[1])
	require.Equal(t, rs[0], twice[0])
}

// Keys crypto/ecdsa refuses fail their element with its error, a key on
// another curve with ErrCurve; the rest are signed.
func TestSignBadKeys(t *testing.T) {
	good, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	p384, err := stdecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	n := elliptic.P256().Params().N
	zeroD := &stdecdsa.PrivateKey{PublicKey: good.PublicKey, D: big.NewInt(0)}
	bigD := &stdecdsa.PrivateKey{PublicKey: good.PublicKey, D: new(big.Int).Set(n)}
	offCurve := &stdecdsa.PrivateKey{PublicKey: stdecdsa.PublicKey{Curve: elliptic.P256(), X: good.X, Y: new(big.Int).Add(good.Y, big.NewInt(1))}, D: good.D}
	h := sha256.Sum256([]byte("m"))
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			noD := &stdecdsa.PrivateKey{PublicKey: good.PublicKey}
			noY := &stdecdsa.PrivateKey{PublicKey: stdecdsa.PublicKey{Curve: elliptic.P256(), X: good.X}, D: good.D}
			keys := []*stdecdsa.PrivateKey{good, nil, zeroD, bigD, offCurve, p384, noD, noY}
			hashes := make([][]byte, len(keys))
			for i := range hashes {
				hashes[i] = h[:]
			}
			sigs, err := e.SignASN1(nil, keys, hashes)
			var be *batch.Error
			require.ErrorAs(t, err, &be)
			require.True(t, stdecdsa.VerifyASN1(&good.PublicKey, h[:], sigs[0]))
			require.ErrorIs(t, be.Errs[1], ecdsa.ErrNilKey)
			for _, i := range []int{2, 3, 4} {
				_, want := stdecdsa.SignASN1(rand.Reader, keys[i], h[:])
				require.Error(t, want, "crypto/ecdsa refuses key %d", i)
				require.Error(t, be.Errs[i], "key %d", i)
				require.Equal(t, want.Error(), be.Errs[i].Error(), "key %d", i)
				require.Nil(t, sigs[i])
			}
			require.ErrorIs(t, be.Errs[5], ecdsa.ErrCurve)
			require.Nil(t, sigs[5])
			require.ErrorIs(t, be.Errs[6], ecdsa.ErrIncompleteKey)
			require.ErrorIs(t, be.Errs[7], ecdsa.ErrIncompleteKey)
			ok, err := e.VerifyASN1([]*stdecdsa.PublicKey{&noY.PublicKey, {Curve: elliptic.P256()}}, [][]byte{h[:], h[:]}, [][]byte{sigs[0], sigs[0]})
			require.ErrorAs(t, err, &be)
			require.Equal(t, []bool{false, false}, ok)
			require.ErrorIs(t, be.Errs[0], ecdsa.ErrIncompleteKey)
			require.ErrorIs(t, be.Errs[1], ecdsa.ErrIncompleteKey)
			_, err = e.SignASN1(nil, keys, nil)
			require.Error(t, err)
			_, err = e.SignASN1(bytes.NewReader(nil), []*stdecdsa.PrivateKey{good}, [][]byte{h[:]})
			require.Error(t, err, "a source that runs dry")
		})
	}
}

// A call whose keys repeat and mix with bad ones across many tiles of the
// host's packing: each element gets its own key's signature or error, in
// both forms.
func TestSignRepeatedKeys(t *testing.T) {
	k1, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	k2, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	offCurve := &stdecdsa.PrivateKey{PublicKey: stdecdsa.PublicKey{Curve: elliptic.P256(), X: k1.X, Y: new(big.Int).Add(k1.Y, big.NewInt(1))}, D: k1.D}
	cycle := []*stdecdsa.PrivateKey{k1, offCurve, k2, nil, k2, k1, k1}
	const n = 75
	keys, hashes := make([]*stdecdsa.PrivateKey, n), make([][]byte, n)
	for i := range keys {
		keys[i] = cycle[i%len(cycle)]
		h := sha256.Sum256([]byte{byte(i)})
		hashes[i] = h[:]
	}
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			der, derErr := e.SignASN1(nil, keys, hashes)
			rs, rsErr := e.SignP1363(nil, keys, hashes)
			var derErrs, rsErrs *batch.Error
			require.ErrorAs(t, derErr, &derErrs)
			require.ErrorAs(t, rsErr, &rsErrs)
			for i, key := range keys {
				if key == nil || key == offCurve {
					require.Error(t, derErrs.Errs[i], "element %d", i)
					require.Error(t, rsErrs.Errs[i], "element %d", i)
					require.Nil(t, der[i])
					require.Nil(t, rs[i])
					continue
				}
				require.NoError(t, derErrs.Errs[i], "element %d", i)
				require.True(t, stdecdsa.VerifyASN1(&key.PublicKey, hashes[i], der[i]), "DER %d", i)
				require.Len(t, rs[i], 64)
				r, s := new(big.Int).SetBytes(rs[i][:32]), new(big.Int).SetBytes(rs[i][32:])
				require.True(t, stdecdsa.Verify(&key.PublicKey, hashes[i], r, s), "r ‖ s %d", i)
			}
		})
	}
}
