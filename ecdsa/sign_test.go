package ecdsa_test

import (
	"bytes"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"math/big"
	mrand "math/rand/v2"
	"slices"
	"testing"
	"unsafe"

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

// badKeys are a good P-256 key, keys crypto/ecdsa refuses beside it (a
// zero scalar, the order n as scalar, a public point off the curve) and
// a P-384 key.
func badKeys(t *testing.T) (good, zeroD, bigD, offCurve, p384 *stdecdsa.PrivateKey) {
	t.Helper()
	good, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	p384, err = stdecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	n := elliptic.P256().Params().N
	zeroD = &stdecdsa.PrivateKey{PublicKey: good.PublicKey, D: big.NewInt(0)}
	bigD = &stdecdsa.PrivateKey{PublicKey: good.PublicKey, D: new(big.Int).Set(n)}
	offCurve = &stdecdsa.PrivateKey{PublicKey: stdecdsa.PublicKey{Curve: elliptic.P256(), X: good.X, Y: new(big.Int).Add(good.Y, big.NewInt(1))}, D: good.D}
	return good, zeroD, bigD, offCurve, p384
}

// Keys crypto/ecdsa refuses fail their element with its error, a key on
// another curve with ErrCurve; the rest are signed.
func TestSignBadKeys(t *testing.T) {
	good, zeroD, bigD, offCurve, p384 := badKeys(t)
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

// seeded is a random source that gives the same bytes for the same seed.
func seeded(seed uint64) *mrand.ChaCha8 {
	var key [32]byte
	key[0] = byte(seed)
	return mrand.NewChaCha8(key)
}

// signInputs are n P-256 keys (a few, cycled) and n hashes of varied
// lengths (SHA-256's, longer, shorter, empty).
func signInputs(t *testing.T, n int) ([]*stdecdsa.PrivateKey, [][]byte) {
	t.Helper()
	keys, hashes := make([]*stdecdsa.PrivateKey, n), make([][]byte, n)
	for i := range keys {
		if i < 7 {
			key, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			require.NoError(t, err)
			keys[i] = key
		} else {
			keys[i] = keys[i%7]
		}
		hashes[i] = make([]byte, []int{32, 64, 20, 0, 32}[i%5])
		rand.Read(hashes[i])
	}
	return keys, hashes
}

// requireSignatures checks that sigs[i] verifies under crypto/ecdsa for
// every i, in form.
func requireSignatures(t *testing.T, form ecdsa.Form, keys []*stdecdsa.PrivateKey, hashes, sigs [][]byte, msg string) {
	t.Helper()
	for i, key := range keys {
		if form == ecdsa.ASN1 {
			require.True(t, stdecdsa.VerifyASN1(&key.PublicKey, hashes[i], sigs[i]), "%s: DER %d", msg, i)
			continue
		}
		require.Len(t, sigs[i], ecdsa.P1363Size, "%s: element %d", msg, i)
		r, s := new(big.Int).SetBytes(sigs[i][:32]), new(big.Int).SetBytes(sigs[i][32:])
		require.True(t, stdecdsa.Verify(&key.PublicKey, hashes[i], r, s), "%s: r ‖ s %d", msg, i)
	}
}

// signInto is SignASN1Into or SignP1363Into, as form says.
func signInto(e *ecdsa.Engine, form ecdsa.Form, random io.Reader, keys []*stdecdsa.PrivateKey, hashes, out [][]byte) error {
	if form == ecdsa.P1363 {
		return e.SignP1363Into(random, keys, hashes, out)
	}
	return e.SignASN1Into(random, keys, hashes, out)
}

// SignASN1Into and SignP1363Into write signatures that verify under
// crypto/ecdsa into the caller's outputs: nil ones on the first call get
// slices of MaxASN1Size (P1363Size) capacity, which the next calls write
// in place (the same backing arrays, whatever the signatures' lengths);
// outputs with less capacity get new slices (their arrays untouched),
// outputs with more are written in place. Through a seeded reader on the
// device, the signatures are SignASN1's (SignP1363's) byte for byte.
func TestSignInto(t *testing.T) {
	const n = 90
	keys, hashes := signInputs(t, n)
	for name, e := range engines(t) {
		for _, form := range []ecdsa.Form{ecdsa.ASN1, ecdsa.P1363} {
			size := map[ecdsa.Form]int{ecdsa.ASN1: ecdsa.MaxASN1Size, ecdsa.P1363: ecdsa.P1363Size}[form]
			t.Run(fmt.Sprintf("%s/form%d", name, form), func(t *testing.T) {
				out := make([][]byte, n)
				require.NoError(t, signInto(e, form, nil, keys, hashes, out))
				requireSignatures(t, form, keys, hashes, out, "nil outputs")
				arrays := make([]*byte, n)
				for i := range out {
					require.Equal(t, size, cap(out[i]), "element %d", i)
					arrays[i] = unsafe.SliceData(out[i])
				}
				for round := range 3 {
					for i := range hashes {
						rand.Read(hashes[i])
					}
					require.NoError(t, signInto(e, form, seeded(uint64(round)), keys, hashes, out))
					requireSignatures(t, form, keys, hashes, out, fmt.Sprintf("round %d", round))
					for i := range out {
						require.Equal(t, size, cap(out[i]), "round %d, element %d", round, i)
						require.Same(t, arrays[i], unsafe.SliceData(out[i]), "round %d, element %d: a new array", round, i)
					}
				}

				// outputs of every capacity around size, and longer ones
				// with bytes of their own
				mixed := make([][]byte, n)
				for i := range mixed {
					c := []int{0, 1, size - 1, size, size + 1, 2 * size}[i%6]
					length := c % 5
					mixed[i] = bytes.Repeat([]byte{0xa5}, c)[:length:c]
				}
				before := slices.Clone(mixed)
				require.NoError(t, signInto(e, form, nil, keys, hashes, mixed))
				requireSignatures(t, form, keys, hashes, mixed, "mixed capacities")
				for i := range mixed {
					if cap(before[i]) >= size {
						require.Same(t, unsafe.SliceData(before[i]), unsafe.SliceData(mixed[i]), "element %d: capacity %d, written in place", i, cap(before[i]))
						continue
					}
					require.Equal(t, size, cap(mixed[i]), "element %d", i)
					require.Equal(t, bytes.Repeat([]byte{0xa5}, cap(before[i])), before[i][:cap(before[i])], "element %d: the short output's bytes", i)
				}

				if name != "device" {
					return // crypto/ecdsa on the CPU takes crypto/rand's bytes, whatever the reader
				}
				var want [][]byte
				var err error
				if form == ecdsa.P1363 {
					want, err = e.SignP1363(seeded(9), keys, hashes)
				} else {
					want, err = e.SignASN1(seeded(9), keys, hashes)
				}
				require.NoError(t, err)
				require.NoError(t, signInto(e, form, seeded(9), keys, hashes, out))
				require.Equal(t, want, out, "SignASN1's signatures for the same random bytes")
			})
		}
	}
}

// An element SignASN1 fails fails SignASN1Into's alike (the same error,
// the output of length 0, its array kept), the rest signed; outputs of
// lengths other than the keys' and hashes', a reader that runs dry and a
// closed engine fail the call with the outputs untouched; an empty call
// succeeds.
func TestSignIntoBadInput(t *testing.T) {
	good, zeroD, bigD, offCurve, p384 := badKeys(t)
	noD := &stdecdsa.PrivateKey{PublicKey: good.PublicKey}
	keys := []*stdecdsa.PrivateKey{good, nil, zeroD, bigD, offCurve, p384, noD, good}
	h := sha256.Sum256([]byte("m"))
	hashes := make([][]byte, len(keys))
	for i := range hashes {
		hashes[i] = h[:]
	}
	for name, e := range engines(t) {
		for _, form := range []ecdsa.Form{ecdsa.ASN1, ecdsa.P1363} {
			t.Run(fmt.Sprintf("%s/form%d", name, form), func(t *testing.T) {
				var wantErr error
				if form == ecdsa.P1363 {
					_, wantErr = e.SignP1363(nil, keys, hashes)
				} else {
					_, wantErr = e.SignASN1(nil, keys, hashes)
				}
				var want *batch.Error
				require.ErrorAs(t, wantErr, &want)
				out := make([][]byte, len(keys))
				for i := range out {
					out[i] = bytes.Repeat([]byte{0xa5}, ecdsa.MaxASN1Size)
				}
				arrays := slices.Clone(out)
				var got *batch.Error
				require.ErrorAs(t, signInto(e, form, nil, keys, hashes, out), &got)
				for i := range keys {
					require.Same(t, unsafe.SliceData(arrays[i]), unsafe.SliceData(out[i]), "element %d: its array", i)
					if want.Errs[i] == nil {
						require.NoError(t, got.Errs[i], "element %d", i)
						requireSignatures(t, form, keys[i:i+1], hashes[i:i+1], out[i:i+1], "good key")
						continue
					}
					require.Error(t, got.Errs[i], "element %d", i)
					require.Equal(t, want.Errs[i].Error(), got.Errs[i].Error(), "element %d", i)
					require.Empty(t, out[i], "element %d", i)
				}
				require.ErrorIs(t, got.Errs[1], ecdsa.ErrNilKey)
				require.ErrorIs(t, got.Errs[5], ecdsa.ErrCurve)
				require.ErrorIs(t, got.Errs[6], ecdsa.ErrIncompleteKey)

				untouched := func(out [][]byte) {
					t.Helper()
					for i := range out {
						require.Equal(t, bytes.Repeat([]byte{0xa5}, ecdsa.MaxASN1Size), out[i], "element %d", i)
					}
				}
				fresh := func(k int) [][]byte {
					out := make([][]byte, k)
					for i := range out {
						out[i] = bytes.Repeat([]byte{0xa5}, ecdsa.MaxASN1Size)
					}
					return out
				}
				short := fresh(1)
				require.Error(t, signInto(e, form, nil, keys[:2], hashes[:2], short), "fewer outputs")
				untouched(short)
				long := fresh(3)
				require.Error(t, signInto(e, form, nil, keys[:2], hashes[:2], long), "more outputs")
				untouched(long)
				two := fresh(2)
				require.Error(t, signInto(e, form, nil, keys[:2], hashes[:1], two), "fewer hashes")
				untouched(two)
				require.Error(t, signInto(e, form, nil, keys[:2], hashes[:2], nil), "no outputs")
				require.Error(t, signInto(e, form, bytes.NewReader(nil), keys[:1], hashes[:1], two[:1]), "a source that runs dry")
				untouched(two)
				require.NoError(t, signInto(e, form, nil, nil, nil, nil))
				require.NoError(t, signInto(e, form, nil, keys[:0], hashes[:0], [][]byte{}))

				closed := ecdsa.CPUEngine()
				require.NoError(t, closed.Close())
				require.ErrorIs(t, signInto(closed, form, nil, keys[:2], hashes[:2], two), batch.ErrClosed)
				untouched(two)
			})
		}
	}
}
