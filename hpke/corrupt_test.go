//go:build go1.26

package hpke_test

import (
	"bytes"
	stdhpke "crypto/hpke"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/hpke"
)

// variant is a ciphertext made from a valid one, and the error its
// element must have (nil: it opens).
type variant struct {
	name string
	ct   []byte
	info []byte
	want error
}

// variants are corrupted copies of ct (sealed under info) of every kind
// crypto/hpke's Open refuses: a byte flipped in enc (in its ML-KEM part
// and in its X25519 part), in the sealed message, in the tag; the X25519
// part a point of low order; truncated and extended; a wrong info.
func variants(s hpke.Suite, ct, info []byte) []variant {
	enc := s.KEM.EncapsulatedKeySize()
	flip := func(at int, mask byte) []byte {
		c := bytes.Clone(ct)
		c[at] ^= mask
		return c
	}
	lowOrder := func(u byte) []byte {
		c := bytes.Clone(ct)
		clear(c[enc-32 : enc])
		c[enc-32] = u
		return c
	}
	out := []variant{
		{"valid", bytes.Clone(ct), info, nil},
		{"enc first byte", flip(0, 1), info, hpke.ErrOpen},
		{"enc last byte", flip(enc-1, 0x10), info, hpke.ErrOpen},
		{"enc top bit", flip(enc-1, 0x80), info, hpke.ErrOpen}, // X25519 masks it, the KEM hashes enc
		{"enc middle", flip(enc/2, 0x40), info, hpke.ErrOpen},
		{"sealed message", flip(enc, 2), info, hpke.ErrOpen},
		{"tag", flip(len(ct)-1, 0x80), info, hpke.ErrOpen},
		{"empty", nil, info, hpke.ErrCiphertextShort},
		{"shorter than enc", bytes.Clone(ct[:enc-1]), info, hpke.ErrCiphertextShort},
		{"enc alone", bytes.Clone(ct[:enc]), info, hpke.ErrOpen},
		{"shorter than the tag", bytes.Clone(ct[:enc+hpke.TagSize-1]), info, hpke.ErrOpen},
		{"last byte cut", bytes.Clone(ct[:len(ct)-1]), info, hpke.ErrOpen},
		{"a byte added", append(bytes.Clone(ct), 0), info, hpke.ErrOpen},
		{"wrong info", bytes.Clone(ct), append(bytes.Clone(info), 'x'), hpke.ErrOpen},
	}
	if s.KEM != hpke.MLKEM768 {
		out = append(out,
			variant{"X25519 u = 0", lowOrder(0), info, hpke.ErrEncapsulation},
			variant{"X25519 u = 1", lowOrder(1), info, hpke.ErrEncapsulation})
	}
	return out
}

// Corrupted ciphertexts in one batch with valid ones fail alone, each
// with crypto/hpke's verdict and the error of its kind; the valid ones
// open. On every engine, for every suite, and in batches cut small
// (SetCallChunk) so that failures fall in several.
func TestCorruptedCiphertextsFailAlone(t *testing.T) {
	defer hpke.SetCallChunk(7)()
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			for _, s := range suites() {
				t.Run(s.String(), func(t *testing.T) {
					kp := newKeyPair(t, s)
					info := []byte("gateway")
					var all []variant
					for i := range 3 {
						pt := bytes.Repeat([]byte{byte(i)}, 40*i+20)
						ct, err := stdhpke.Seal(kp.stdPub, stdhpke.HKDFSHA256(), s.aead, info, pt)
						require.NoError(t, err)
						all = append(all, variants(s.s, ct, info)...)
					}
					msgs := make([]hpke.OpenInput, len(all))
					for i, v := range all {
						msgs[i] = hpke.OpenInput{Key: kp.ours, Info: v.info, Ciphertext: v.ct}
					}
					got, err := e.OpenMessages(s.s, msgs)
					var per *batch.Error
					require.ErrorAs(t, err, &per)
					for i, v := range all {
						want, stdErr := stdhpke.Open(kp.std, stdhpke.HKDFSHA256(), s.aead, v.info, v.ct)
						what := fmt.Sprintf("element %d (%s)", i, v.name)
						require.Equal(t, stdErr == nil, per.Errs[i] == nil, "%s: crypto/hpke's verdict %v, ours %v", what, stdErr, per.Errs[i])
						if v.want == nil {
							require.True(t, bytes.Equal(want, got[i]), what)
							require.NotNil(t, got[i], what)
							continue
						}
						require.ErrorIs(t, per.Errs[i], v.want, what)
						require.Nil(t, got[i], what)
					}
				})
			}
		})
	}
}

// The call's errors: a suite the Engine does not compute, a key of
// another KEM or none, a closed key, a closed Engine; in OpenMessages and
// SealMessages a bad key fails its element alone.
func TestCallErrors(t *testing.T) {
	e := hpke.CPUEngine()
	s := hpke.Suite{KEM: hpke.MLKEM768X25519, KDF: hpke.HKDFSHA256, AEAD: hpke.AES128GCM}
	k, err := hpke.GenerateKey(hpke.MLKEM768X25519)
	require.NoError(t, err)
	other, err := hpke.GenerateKey(hpke.DHKEMX25519)
	require.NoError(t, err)
	sealed, err := e.Seal(s, k.PublicKey(), nil, [][]byte{[]byte("a"), []byte("b")})
	require.NoError(t, err)

	for _, bad := range []hpke.Suite{{KEM: 0x0010, KDF: hpke.HKDFSHA256, AEAD: hpke.AES128GCM},
		{KEM: hpke.MLKEM768X25519, KDF: 0x0002, AEAD: hpke.AES128GCM}, {KEM: hpke.MLKEM768X25519, KDF: hpke.HKDFSHA256, AEAD: 0x0003}} {
		_, err := e.Open(bad, k, nil, sealed)
		require.ErrorIs(t, err, hpke.ErrSuite, "%v", bad)
		_, err = e.Seal(bad, k.PublicKey(), nil, [][]byte{nil})
		require.ErrorIs(t, err, hpke.ErrSuite, "%v", bad)
	}
	_, err = e.Open(s, other, nil, sealed)
	require.ErrorIs(t, err, hpke.ErrKey)
	_, err = e.Open(s, nil, nil, sealed)
	require.ErrorIs(t, err, hpke.ErrKey)
	_, err = e.Seal(s, other.PublicKey(), nil, [][]byte{nil})
	require.ErrorIs(t, err, hpke.ErrKey)
	_, err = e.Seal(s, nil, nil, [][]byte{nil})
	require.ErrorIs(t, err, hpke.ErrKey)

	// per element in the message forms
	got, err := e.OpenMessages(s, []hpke.OpenInput{{Key: k, Ciphertext: sealed[0]}, {Key: other, Ciphertext: sealed[1]}, {Ciphertext: sealed[1]}, {Key: k, Ciphertext: sealed[1]}})
	var per *batch.Error
	require.ErrorAs(t, err, &per)
	require.Equal(t, []byte("a"), got[0])
	require.ErrorIs(t, per.Errs[1], hpke.ErrKey)
	require.ErrorIs(t, per.Errs[2], hpke.ErrKey)
	require.Equal(t, []byte("b"), got[3])
	out, err := e.SealMessages(s, []hpke.SealInput{{Key: other.PublicKey()}, {Key: k.PublicKey(), Plaintext: []byte("c")}})
	require.ErrorAs(t, err, &per)
	require.ErrorIs(t, per.Errs[0], hpke.ErrKey)
	require.Nil(t, out[0])
	got, err = e.Open(s, k, nil, out[1:])
	require.NoError(t, err)
	require.Equal(t, []byte("c"), got[0])
	_, err = e.SealDerandomized(s, []hpke.SealInput{{Key: k.PublicKey()}}, [][]byte{make([]byte, 10)})
	require.ErrorAs(t, err, &per)
	require.ErrorIs(t, per.Errs[0], hpke.ErrRandomness)

	// a closed key: zeroed, refused
	held := hpke.KeyBytes(k)
	require.NoError(t, k.Close())
	for _, b := range held {
		require.Equal(t, make([]byte, len(b)), b, "the key's bytes after Close")
	}
	_, err = e.Open(s, k, nil, sealed)
	require.ErrorIs(t, err, hpke.ErrKeyClosed)
	_, err = k.Bytes()
	require.ErrorIs(t, err, hpke.ErrKeyClosed)
	_, err = e.OpenMessages(s, []hpke.OpenInput{{Key: k, Ciphertext: sealed[0]}})
	require.ErrorAs(t, err, &per)
	require.ErrorIs(t, per.Errs[0], hpke.ErrKeyClosed)

	// a closed engine
	require.NoError(t, e.Close())
	_, err = e.Open(s, other, nil, sealed)
	require.Error(t, err) // the key's KEM first
	_, err = e.Seal(hpke.Suite{KEM: hpke.DHKEMX25519, KDF: hpke.HKDFSHA256, AEAD: hpke.AES128GCM}, other.PublicKey(), nil, [][]byte{nil})
	require.ErrorIs(t, err, batch.ErrClosed)
	require.NoError(t, e.Close())

	// keys of the wrong length or value
	_, err = hpke.NewPrivateKey(hpke.MLKEM768X25519, make([]byte, 31))
	require.ErrorIs(t, err, hpke.ErrKey)
	_, err = hpke.NewPublicKey(hpke.MLKEM768, make([]byte, 1183))
	require.ErrorIs(t, err, hpke.ErrKey)
	bad := make([]byte, 1184)
	for i := range bad {
		bad[i] = 0xff // coefficients of 12 bits above q: the modulus check fails
	}
	_, err = hpke.NewPublicKey(hpke.MLKEM768, bad)
	require.ErrorIs(t, err, hpke.ErrKey)
	_, err = hpke.NewPrivateKey(0x0010, make([]byte, 32))
	require.ErrorIs(t, err, hpke.ErrSuite)
	require.True(t, errors.Is(err, hpke.ErrSuite))
}

// A recipient X25519 public key of low order: crypto/hpke's Seal refuses
// it, and so does the Engine, for each element alone.
func TestSealToLowOrderKey(t *testing.T) {
	e := hpke.CPUEngine()
	defer e.Close()
	for _, s := range suites() {
		if s.s.KEM == hpke.MLKEM768 {
			continue
		}
		kp := newKeyPair(t, s)
		b := kp.oursPub.Bytes()
		clear(b[len(b)-32:]) // u = 0
		low, err := hpke.NewPublicKey(s.s.KEM, b)
		require.NoError(t, err)
		stdLow, err := s.kem.NewPublicKey(b)
		require.NoError(t, err)
		_, stdErr := stdhpke.Seal(stdLow, stdhpke.HKDFSHA256(), s.aead, nil, []byte("x"))
		require.Error(t, stdErr, "%v", s)
		out, err := e.SealMessages(s.s, []hpke.SealInput{{Key: kp.oursPub, Plaintext: []byte("x")}, {Key: low, Plaintext: []byte("x")}})
		var per *batch.Error
		require.ErrorAs(t, err, &per, "%v", s)
		require.Nil(t, per.Errs[0])
		require.ErrorIs(t, per.Errs[1], hpke.ErrKey)
		require.Nil(t, out[1])
		pt, err := stdhpke.Open(kp.std, stdhpke.HKDFSHA256(), s.aead, nil, out[0])
		require.NoError(t, err)
		require.Equal(t, []byte("x"), pt)
	}
}

// A key closed while calls use it, and an Engine closed while calls run:
// each call either computes every element with the key as it was (Close
// waited for it) or fails as a whole (ErrKeyClosed, batch.ErrClosed),
// never half-way; two calls holding two keys in opposite orders while
// both are closed do not wait for each other.
func TestCloseDuringCalls(t *testing.T) {
	defer hpke.SetCallChunk(16)()
	s := hpke.Suite{KEM: hpke.DHKEMX25519, KDF: hpke.HKDFSHA256, AEAD: hpke.AES128GCM}
	e := hpke.CPUEngine()
	pts := make([][]byte, 100)
	for i := range pts {
		pts[i] = []byte(fmt.Sprint("message ", i))
	}
	for round := range 5 {
		k1, err := hpke.GenerateKey(s.KEM)
		require.NoError(t, err)
		k2, err := hpke.GenerateKey(s.KEM)
		require.NoError(t, err)
		sealed1, err := e.Seal(s, k1.PublicKey(), nil, pts)
		require.NoError(t, err)
		sealed2, err := e.Seal(s, k2.PublicKey(), nil, pts)
		require.NoError(t, err)
		msgs := func(first, second *hpke.PrivateKey, a, b [][]byte) []hpke.OpenInput {
			var out []hpke.OpenInput
			for i := range pts {
				out = append(out, hpke.OpenInput{Key: first, Ciphertext: a[i]}, hpke.OpenInput{Key: second, Ciphertext: b[i]})
			}
			return out
		}
		done := make(chan error, 2)
		for _, in := range [][]hpke.OpenInput{msgs(k1, k2, sealed1, sealed2), msgs(k2, k1, sealed2, sealed1)} {
			go func() {
				got, err := e.OpenMessages(s, in)
				var per *batch.Error
				if err != nil && !errors.As(err, &per) {
					done <- err
					return
				}
				for i := range in {
					switch {
					case per != nil && per.Errs[i] != nil:
						if !errors.Is(per.Errs[i], hpke.ErrKeyClosed) {
							done <- fmt.Errorf("element %d: %v", i, per.Errs[i])
							return
						}
					case !bytes.Equal(got[i], pts[i/2]):
						done <- fmt.Errorf("round %d, element %d: %q", round, i, got[i])
						return
					}
				}
				done <- nil
			}()
		}
		require.NoError(t, k1.Close())
		require.NoError(t, k2.Close())
		require.NoError(t, <-done)
		require.NoError(t, <-done)
	}

	k, err := hpke.GenerateKey(s.KEM)
	require.NoError(t, err)
	sealed, err := e.Seal(s, k.PublicKey(), nil, pts)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		got, err := e.Open(s, k, nil, sealed)
		if err == nil {
			for i := range pts {
				if !bytes.Equal(got[i], pts[i]) {
					err = fmt.Errorf("element %d: %q", i, got[i])
				}
			}
		} else if errors.Is(err, batch.ErrClosed) {
			err = nil
		}
		done <- err
	}()
	require.NoError(t, e.Close())
	require.NoError(t, <-done)
	_, err = e.Open(s, k, nil, sealed)
	require.ErrorIs(t, err, batch.ErrClosed)
}
