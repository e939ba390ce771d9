package rsa_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	_ "crypto/sha1"
	"crypto/sha256"
	_ "crypto/sha3"
	_ "crypto/sha512"
	"fmt"
	"math/big"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/cl"
	gpudevice "github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// PKCS #1 v1.5 signatures are deterministic: they must equal crypto/rsa's
// byte for byte, for every size and hash.
func TestSignPKCS1v15MatchesStdlib(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		for _, s := range sizes {
			k := key(t, s.key)
			hashes := []crypto.Hash{crypto.SHA256}
			if k.N.BitLen() <= 2048 {
				hashes = []crypto.Hash{crypto.SHA1, crypto.SHA224, crypto.SHA256, crypto.SHA384, crypto.SHA512,
					crypto.SHA512_224, crypto.SHA512_256, crypto.MD5SHA1, crypto.MD5, crypto.SHA3_256, 0}
			}
			for _, h := range hashes {
				t.Run(fmt.Sprintf("%s/%v", s.key, h), func(t *testing.T) {
					n := max(1, s.n/len(hashes)*2)
					digests := make([][]byte, n)
					for i := range digests {
						size := i * 7 // raw (hash 0): any length that fits
						if h != 0 {
							size = h.Size()
						}
						digests[i] = randBytes(t, size)
					}
					sigs, err := e.SignPKCS1v15(repeat(k, n), h, digests)
					require.NoError(t, err)
					for i := range digests {
						want, err := stdrsa.SignPKCS1v15(nil, k, h, digests[i])
						require.NoError(t, err)
						require.Equal(t, want, sigs[i], "element %d", i)
					}
					require.NoError(t, asErrors(e.VerifyPKCS1v15(repeat(&k.PublicKey, n), h, digests, sigs)))
				})
			}
		}
	})
}

// One batch mixing every test key (five size classes, repeated keys)
// gives each element crypto/rsa's answer.
func TestMixedKeyBatch(t *testing.T) {
	names := []string{"rsa1024a", "rsa2048a", "rsa4096", "rsa1024b", "rsa2049", "rsa2048b", "rsa3072", "rsa2048a", "rsa1024a", "rsa1024b", "rsa2048b"}
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		keys := make([]*stdrsa.PrivateKey, len(names))
		pubs := make([]*stdrsa.PublicKey, len(names))
		digests := make([][]byte, len(names))
		msgs := make([][]byte, len(names))
		cts := make([][]byte, len(names))
		for i, n := range names {
			keys[i] = key(t, n)
			pubs[i] = &keys[i].PublicKey
			digests[i] = randBytes(t, 32)
			msgs[i] = randBytes(t, 1+i)
			var err error
			cts[i], err = stdrsa.EncryptOAEP(sha256.New(), rand.Reader, pubs[i], msgs[i], []byte("mixed"))
			require.NoError(t, err)
		}
		sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
		require.NoError(t, err)
		for i := range keys {
			want, _ := stdrsa.SignPKCS1v15(nil, keys[i], crypto.SHA256, digests[i])
			require.Equal(t, want, sigs[i], "element %d (%s)", i, names[i])
		}
		pss, err := e.SignPSS(nil, keys, crypto.SHA256, digests, &stdrsa.PSSOptions{SaltLength: stdrsa.PSSSaltLengthEqualsHash})
		require.NoError(t, err)
		for i := range keys {
			require.NoError(t, stdrsa.VerifyPSS(pubs[i], crypto.SHA256, digests[i], pss[i], nil), "element %d", i)
		}
		require.NoError(t, asErrors(e.VerifyPSS(pubs, crypto.SHA256, digests, pss, nil)))
		require.NoError(t, asErrors(e.VerifyPKCS1v15(pubs, crypto.SHA256, digests, sigs)))
		pts, err := e.DecryptOAEP(crypto.SHA256, keys, cts, []byte("mixed"))
		require.NoError(t, err)
		require.Equal(t, msgs, pts)
	})
}

// PSS signatures verify with crypto/rsa under every salt option, with the
// salt length crypto/rsa would use.
func TestSignPSS(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		for _, s := range sizes {
			k := key(t, s.key)
			emLen := (k.N.BitLen() - 1 + 7) / 8
			for _, c := range []struct {
				hash     crypto.Hash
				opts     *stdrsa.PSSOptions
				saltLen  int
				override crypto.Hash // opts.Hash
			}{
				{crypto.SHA256, nil, emLen - 2 - 32, 0},
				{crypto.SHA256, &stdrsa.PSSOptions{SaltLength: stdrsa.PSSSaltLengthAuto}, emLen - 2 - 32, 0},
				{crypto.SHA256, &stdrsa.PSSOptions{SaltLength: stdrsa.PSSSaltLengthEqualsHash}, 32, 0},
				{crypto.SHA1, &stdrsa.PSSOptions{SaltLength: 7}, 7, 0},
				{crypto.SHA1, &stdrsa.PSSOptions{SaltLength: stdrsa.PSSSaltLengthEqualsHash, Hash: crypto.SHA512}, 64, crypto.SHA512},
			} {
				t.Run(fmt.Sprintf("%s/%v/%d", s.key, c.hash, c.saltLen), func(t *testing.T) {
					h := c.hash
					if c.override != 0 {
						h = c.override
					}
					n := max(1, s.n/2)
					digests := make([][]byte, n)
					for i := range digests {
						digests[i] = randBytes(t, h.Size())
					}
					sigs, err := e.SignPSS(rand.Reader, repeat(k, n), c.hash, digests, c.opts)
					if emLen < h.Size()+c.saltLen+2 { // does not fit this key
						for _, x := range elementErrs(t, err, n) {
							require.Equal(t, rsa.ErrMessageTooLong, x)
						}
						return
					}
					require.NoError(t, err)
					for i := range sigs {
						require.Len(t, sigs[i], (k.N.BitLen()+7)/8)
						require.NoError(t, stdrsa.VerifyPSS(&k.PublicKey, h, digests[i], sigs[i], &stdrsa.PSSOptions{SaltLength: c.saltLen}))
					}
					pubs := repeat(&k.PublicKey, n)
					require.NoError(t, asErrors(e.VerifyPSS(pubs, h, digests, sigs, nil)))
					require.NoError(t, asErrors(e.VerifyPSS(pubs, h, digests, sigs, &stdrsa.PSSOptions{SaltLength: c.saltLen})))
					// A different explicit salt length fails.
					err = asErrors(e.VerifyPSS(pubs, h, digests, sigs, &stdrsa.PSSOptions{SaltLength: c.saltLen + 1}))
					for _, x := range elementErrs(t, err, n) {
						require.ErrorIs(t, x, rsa.ErrVerification)
					}
				})
			}
		}
	})
}

// The same reader gives the same salts, read in element order.
func TestSignPSSReadsSaltsInOrder(t *testing.T) {
	k := key(t, "rsa1024a")
	digests := [][]byte{randBytes(t, 32), randBytes(t, 32), randBytes(t, 32)}
	seed := randBytes(t, 3*20)
	both, err := cpuEngine.SignPSS(bytes.NewReader(seed), repeat(k, 3), crypto.SHA256, digests, &stdrsa.PSSOptions{SaltLength: 20})
	require.NoError(t, err)
	r := bytes.NewReader(seed)
	for i := range digests {
		one, err := cpuEngine.SignPSS(r, []*stdrsa.PrivateKey{k}, crypto.SHA256, digests[i:i+1], &stdrsa.PSSOptions{SaltLength: 20})
		require.NoError(t, err)
		require.Equal(t, both[i], one[0])
	}
	_, err = cpuEngine.SignPSS(bytes.NewReader(seed[:10]), repeat(k, 1), crypto.SHA256, digests[:1], &stdrsa.PSSOptions{SaltLength: 20})
	require.ErrorContains(t, err, "reading PSS salts")
}

// Ciphertexts made by crypto/rsa decrypt; ciphertexts made here decrypt
// with crypto/rsa.
func TestEncryptDecryptInterop(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		for _, s := range sizes {
			k := key(t, s.key)
			pub := &k.PublicKey
			n := s.n
			keys, pubs := repeat(k, n), repeat(pub, n)
			t.Run(s.key, func(t *testing.T) {
				for _, h := range []crypto.Hash{crypto.SHA1, crypto.SHA256, crypto.SHA512} {
					label := []byte("label " + h.String())
					if pub.Size() < 2*h.Size()+2 { // no OAEP message fits
						_, err := e.DecryptOAEP(h, keys, repeat(make([]byte, pub.Size()), n), nil)
						for _, x := range elementErrs(t, err, n) {
							require.Equal(t, rsa.ErrDecryption, x)
						}
						_, err = e.EncryptOAEP(h, nil, pubs, repeat([]byte{}, n), nil)
						for _, x := range elementErrs(t, err, n) {
							require.Equal(t, rsa.ErrMessageTooLong, x)
						}
						continue
					}
					msgs := make([][]byte, n)
					cts := make([][]byte, n)
					for i := range msgs {
						msgs[i] = randBytes(t, i*5%(pub.Size()-2*h.Size()-1))
						var err error
						cts[i], err = stdrsa.EncryptOAEP(h.New(), rand.Reader, pub, msgs[i], label)
						require.NoError(t, err)
					}
					pts, err := e.DecryptOAEP(h, keys, cts, label)
					require.NoError(t, err, "OAEP %v", h)
					require.Equal(t, msgs, pts)
					// wrong label: every element fails, the same way
					_, err = e.DecryptOAEP(h, keys, cts, []byte("other"))
					for _, x := range elementErrs(t, err, n) {
						require.Equal(t, rsa.ErrDecryption, x)
					}
					mine, err := e.EncryptOAEP(h, nil, pubs, msgs, label)
					require.NoError(t, err)
					for i := range mine {
						pt, err := stdrsa.DecryptOAEP(h.New(), nil, k, mine[i], label)
						require.NoError(t, err)
						require.Equal(t, msgs[i], pt)
					}
				}
				msgs := make([][]byte, n)
				cts := make([][]byte, n)
				for i := range msgs {
					msgs[i] = randBytes(t, i*9%(pub.Size()-10))
					var err error
					cts[i], err = stdrsa.EncryptPKCS1v15(rand.Reader, pub, msgs[i])
					require.NoError(t, err)
				}
				pts, err := e.DecryptPKCS1v15(keys, cts)
				require.NoError(t, err)
				require.Equal(t, msgs, pts)
				mine, err := e.EncryptPKCS1v15(nil, pubs, msgs)
				require.NoError(t, err)
				for i := range mine {
					pt, err := stdrsa.DecryptPKCS1v15(nil, k, mine[i])
					require.NoError(t, err)
					require.Equal(t, msgs[i], pt)
				}
			})
		}
	})
}

// The session-key variant copies valid messages of the right length and
// leaves the key alone otherwise, without an error: as crypto/rsa's does,
// element by element (the OAEP ciphertext read as PKCS #1 v1.5 is a
// random block, which one time in 150,000 holds a valid 48-byte message).
func TestDecryptPKCS1v15SessionKey(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		k := key(t, "rsa2048a")
		pub := &k.PublicKey
		secret := randBytes(t, 48)
		good, err := stdrsa.EncryptPKCS1v15(rand.Reader, pub, secret)
		require.NoError(t, err)
		short, err := stdrsa.EncryptPKCS1v15(rand.Reader, pub, secret[:47])
		require.NoError(t, err)
		oaep, err := stdrsa.EncryptOAEP(sha256.New(), rand.Reader, pub, secret, nil)
		require.NoError(t, err)
		noSep := bytes.Repeat([]byte{0x55}, 256) // 00 02 and no zero separator
		noSep[0], noSep[1] = 0, 2
		cts := [][]byte{good, short, oaep, good[:255], rawEncrypt(pub, noSep)}
		keys := repeat(k, len(cts))
		sessions := make([][]byte, len(cts))
		fills := make([][]byte, len(cts))
		for i := range sessions {
			sessions[i] = randBytes(t, 48)
			fills[i] = bytes.Clone(sessions[i])
		}
		errs := elementErrs(t, e.DecryptPKCS1v15SessionKey(keys, cts, sessions), len(cts))
		require.Equal(t, secret, sessions[0])
		for _, i := range []int{1, 2, 4} {
			require.NoError(t, errs[i])
			want := bytes.Clone(fills[i])
			require.NoError(t, stdrsa.DecryptPKCS1v15SessionKey(nil, k, cts[i], want))
			require.Equal(t, want, sessions[i], "element %d", i)
		}
		require.Equal(t, fills[1], sessions[1])
		require.Equal(t, fills[4], sessions[4])
		require.ErrorIs(t, errs[3], rsa.ErrInputSize)
		require.Equal(t, fills[3], sessions[3])
		// A session key too long for the modulus is a public error.
		err = e.DecryptPKCS1v15SessionKey(keys[:1], cts[:1], [][]byte{make([]byte, 250)})
		require.ErrorIs(t, elementErrs(t, err, 1)[0], rsa.ErrDecryption)
	})
}

// Each failing element fails alone, with an error that says why; its
// neighbours still get their results.
func TestPerElementErrors(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		k, k1024 := key(t, "rsa2048a"), key(t, "rsa1024a")
		pub := &k.PublicKey
		msg := []byte("per-element")
		ct, err := stdrsa.EncryptOAEP(sha256.New(), rand.Reader, pub, msg, nil)
		require.NoError(t, err)
		even := *k
		even.PublicKey.N = new(big.Int).Add(k.N, big.NewInt(1))

		t.Run("decrypt", func(t *testing.T) {
			nBytes := k.N.FillBytes(make([]byte, 256))
			garbage := new(big.Int).Rsh(k.N, 1).FillBytes(make([]byte, 256)) // below n, not OAEP
			keys := []*stdrsa.PrivateKey{k, nil, k, k, k, k, &even, k, k1024}
			cts := [][]byte{ct, ct, ct[1:], append(ct, 0), nBytes, garbage, ct, nil, ct}
			pts, err := e.DecryptOAEP(crypto.SHA256, keys, cts, nil)
			errs := elementErrs(t, err, len(keys))
			require.NoError(t, errs[0])
			require.Equal(t, msg, pts[0])
			require.ErrorIs(t, errs[1], rsa.ErrInvalidKey)
			require.ErrorContains(t, errs[1], "nil private key")
			require.ErrorIs(t, errs[2], rsa.ErrInputSize)
			require.ErrorIs(t, errs[2], rsa.ErrDecryption)
			require.ErrorIs(t, errs[3], rsa.ErrInputSize)
			require.ErrorIs(t, errs[4], rsa.ErrInputRange)
			require.Equal(t, rsa.ErrDecryption, errs[5])
			require.ErrorIs(t, errs[6], rsa.ErrInvalidKey)
			require.ErrorContains(t, errs[6], "modulus is even")
			require.ErrorIs(t, errs[7], rsa.ErrInputSize)
			require.ErrorIs(t, errs[8], rsa.ErrInputSize) // a 2048-bit ciphertext for a 1024-bit key
			for i := 1; i < len(keys); i++ {
				require.Nil(t, pts[i], "element %d", i)
			}
			// PKCS #1 v1.5: element 5 decrypts to 00 03 ..., bad padding.
			cts[0], err = stdrsa.EncryptPKCS1v15(rand.Reader, pub, msg)
			require.NoError(t, err)
			bad := make([]byte, 256)
			bad[1], bad[100] = 3, 1
			cts[5] = rawEncrypt(pub, bad)
			pts, err = e.DecryptPKCS1v15(keys, cts)
			errs = elementErrs(t, err, len(keys))
			require.NoError(t, errs[0])
			require.Equal(t, msg, pts[0])
			require.ErrorIs(t, errs[4], rsa.ErrInputRange)
			require.Equal(t, rsa.ErrDecryption, errs[5])
			for i := 1; i < len(keys); i++ {
				require.Error(t, errs[i])
				require.Nil(t, pts[i], "element %d", i)
			}
		})

		t.Run("sign", func(t *testing.T) {
			d := randBytes(t, 32)
			keys := []*stdrsa.PrivateKey{k, nil, k, &even, k1024, k}
			digests := [][]byte{d, d, d[:31], d, randBytes(t, 64), d}
			sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
			errs := elementErrs(t, err, len(keys))
			want, _ := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d)
			require.Equal(t, want, sigs[0])
			require.Equal(t, want, sigs[5])
			require.ErrorContains(t, errs[1], "nil private key")
			require.ErrorContains(t, errs[2], "input must be hashed")
			require.ErrorIs(t, errs[3], rsa.ErrInvalidKey)
			require.ErrorContains(t, errs[4], "input must be hashed")
			// PSS: a salt as long as SHA-512 does not fit a 1024-bit key.
			keys = []*stdrsa.PrivateKey{k, k1024, nil}
			digests = [][]byte{randBytes(t, 64), randBytes(t, 64), randBytes(t, 64)}
			sigs, err = e.SignPSS(nil, keys, crypto.SHA512, digests, &stdrsa.PSSOptions{SaltLength: 100})
			errs = elementErrs(t, err, len(keys))
			require.NoError(t, errs[0])
			require.NoError(t, stdrsa.VerifyPSS(pub, crypto.SHA512, digests[0], sigs[0], &stdrsa.PSSOptions{SaltLength: 100}))
			require.ErrorIs(t, errs[1], rsa.ErrMessageTooLong)
			require.ErrorIs(t, errs[2], rsa.ErrInvalidKey)
		})

		t.Run("verify", func(t *testing.T) {
			d := randBytes(t, 32)
			sig, _ := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d)
			bad := bytes.Clone(sig)
			bad[10] ^= 1
			pubs := []*stdrsa.PublicKey{pub, pub, nil, pub, pub, &key(t, "rsa2048b").PublicKey, pub}
			digests := [][]byte{d, d, d, d, d, d, d[:5]}
			sigs := [][]byte{sig, bad, sig, sig[:100], k.N.Bytes(), sig, sig}
			errs := elementErrs(t, asErrors(e.VerifyPKCS1v15(pubs, crypto.SHA256, digests, sigs)), len(pubs))
			require.NoError(t, errs[0])
			require.Equal(t, rsa.ErrVerification, errs[1])
			require.ErrorIs(t, errs[2], rsa.ErrInvalidKey)
			// a signature of the wrong size, or not below the modulus, is
			// refused (crypto/rsa's ErrVerification): a verdict, as for
			// another key's signature
			require.ErrorIs(t, errs[3], rsa.ErrVerification)
			require.ErrorIs(t, errs[4], rsa.ErrVerification)
			require.ErrorIs(t, errs[5], rsa.ErrVerification)
			require.ErrorContains(t, errs[6], "input must be hashed")
		})

		t.Run("encrypt", func(t *testing.T) {
			pubs := []*stdrsa.PublicKey{pub, pub, nil, &key(t, "rsa1024a").PublicKey}
			msgs := [][]byte{msg, make([]byte, 256-2*32-1), msg, make([]byte, 128-2*32-1)}
			cts, err := e.EncryptOAEP(crypto.SHA256, nil, pubs, msgs, nil)
			errs := elementErrs(t, err, len(pubs))
			require.NoError(t, errs[0])
			pt, err := stdrsa.DecryptOAEP(sha256.New(), nil, k, cts[0], nil)
			require.NoError(t, err)
			require.Equal(t, msg, pt)
			require.Equal(t, rsa.ErrMessageTooLong, errs[1])
			require.ErrorIs(t, errs[2], rsa.ErrInvalidKey)
			require.Equal(t, rsa.ErrMessageTooLong, errs[3])
			cts, err = e.EncryptPKCS1v15(nil, pubs[:2], [][]byte{msg, make([]byte, 246)})
			errs = elementErrs(t, err, 2)
			require.NoError(t, errs[0])
			require.Equal(t, rsa.ErrMessageTooLong, errs[1])
			pt, err = stdrsa.DecryptPKCS1v15(nil, k, cts[0])
			require.NoError(t, err)
			require.Equal(t, msg, pt)
		})
	})
}

// Slices of different lengths and unusable parameters fail the whole call
// (not a *batch.Error); empty batches succeed.
func TestWholeCallErrors(t *testing.T) {
	e := cpuEngine
	k := key(t, "rsa1024a")
	pub := &k.PublicKey
	d := randBytes(t, 32)
	notBatch := func(t *testing.T, err error, substr string) {
		t.Helper()
		require.Error(t, err)
		require.NotErrorAs(t, err, new(*batchError))
		require.ErrorContains(t, err, substr)
	}
	one, two := []*stdrsa.PrivateKey{k}, [][]byte{d, d}
	_, err := e.SignPKCS1v15(one, crypto.SHA256, two)
	notBatch(t, err, "differ in length: 1 keys, 2 digests")
	_, err = e.SignPSS(nil, one, crypto.SHA256, two, nil)
	notBatch(t, err, "differ in length")
	_, err = e.DecryptOAEP(crypto.SHA256, one, two, nil)
	notBatch(t, err, "differ in length")
	_, err = e.DecryptPKCS1v15(one, two)
	notBatch(t, err, "differ in length")
	notBatch(t, e.DecryptPKCS1v15SessionKey(one, two[:1], two), "differ in length")
	_, err = e.EncryptOAEP(crypto.SHA256, nil, []*stdrsa.PublicKey{pub}, two, nil)
	notBatch(t, err, "differ in length")
	_, err = e.EncryptPKCS1v15(nil, []*stdrsa.PublicKey{pub}, two)
	notBatch(t, err, "differ in length")
	notBatch(t, asErrors(e.VerifyPKCS1v15([]*stdrsa.PublicKey{pub}, crypto.SHA256, two[:1], two)), "differ in length")
	notBatch(t, asErrors(e.VerifyPSS([]*stdrsa.PublicKey{pub}, crypto.SHA256, two, two[:1], nil)), "differ in length")

	_, err = e.SignPKCS1v15(one, crypto.RIPEMD160, [][]byte{d[:20]})
	notBatch(t, err, "not supported")
	_, err = e.SignPSS(nil, one, crypto.MD4, [][]byte{d[:16]}, nil)
	notBatch(t, err, "not available")
	_, err = e.SignPSS(nil, one, crypto.SHA256, [][]byte{d}, &stdrsa.PSSOptions{SaltLength: -2})
	notBatch(t, err, "invalid PSS salt length")
	notBatch(t, asErrors(e.VerifyPSS([]*stdrsa.PublicKey{pub}, crypto.SHA256, [][]byte{d}, [][]byte{d}, &stdrsa.PSSOptions{SaltLength: -3})), "invalid PSS salt length")
	_, err = e.DecryptOAEP(crypto.MD4, one, [][]byte{d}, nil)
	notBatch(t, err, "not available")
	_, err = e.EncryptOAEP(crypto.SHA256, bytes.NewReader(nil), []*stdrsa.PublicKey{pub}, [][]byte{d}, nil)
	notBatch(t, err, "reading OAEP seeds")
	_, err = e.EncryptPKCS1v15(bytes.NewReader(make([]byte, 10)), []*stdrsa.PublicKey{pub}, [][]byte{d})
	notBatch(t, err, "reading PKCS #1 v1.5 padding")

	sigs, err := e.SignPKCS1v15(nil, crypto.SHA256, nil)
	require.NoError(t, err)
	require.Empty(t, sigs)
	pts, err := e.DecryptOAEP(crypto.SHA256, nil, nil, nil)
	require.NoError(t, err)
	require.Empty(t, pts)
	require.NoError(t, asErrors(e.VerifyPSS(nil, crypto.SHA256, nil, nil, nil)))
}

// Blinding changes nothing in the results, also when one key is used many
// times in a batch (its blinding pair is refreshed after each use).
func TestBlinding(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		keys := []*stdrsa.PrivateKey{key(t, "rsa1024a"), key(t, "rsa1024a"), key(t, "rsa2048a"), key(t, "rsa1024a"), key(t, "rsa2049"), key(t, "rsa1024b"), key(t, "rsa1024a")}
		digests := make([][]byte, len(keys))
		msgs := make([][]byte, len(keys))
		cts := make([][]byte, len(keys))
		for i := range keys {
			digests[i] = randBytes(t, 48)
			msgs[i] = randBytes(t, 20)
			var err error
			cts[i], err = stdrsa.EncryptPKCS1v15(rand.Reader, &keys[i].PublicKey, msgs[i])
			require.NoError(t, err)
		}
		defer e.SetBlinding(e.Blinding())
		var sigs [2][][]byte
		for j, on := range []bool{false, true} {
			e.SetBlinding(on)
			require.Equal(t, on, e.Blinding())
			var err error
			sigs[j], err = e.SignPKCS1v15(keys, crypto.SHA384, digests)
			require.NoError(t, err)
			pts, err := e.DecryptPKCS1v15(keys, cts)
			require.NoError(t, err)
			require.Equal(t, msgs, pts)
		}
		require.Equal(t, sigs[0], sigs[1])
		for range 3 { // the pairs keep working after refreshes
			e.SetBlinding(true)
			again, err := e.SignPKCS1v15(keys, crypto.SHA384, digests)
			require.NoError(t, err)
			require.Equal(t, sigs[0], again)
		}
	})
}

// A corrupted CRT half gives ErrFault for the element, never a value, with
// blinding on or off.
func TestCRTFaultCheck(t *testing.T) {
	flip := func(mp *big.Int) { mp.SetBit(mp, 3, mp.Bit(3)^1) }
	e := rsa.NewFaultyCPUEngine(flip)
	k := key(t, "rsa2048a")
	d := randBytes(t, 32)
	ct, err := stdrsa.EncryptPKCS1v15(rand.Reader, &k.PublicKey, d)
	require.NoError(t, err)
	for _, blind := range []bool{false, true} {
		e.SetBlinding(blind)
		sigs, err := e.SignPKCS1v15([]*stdrsa.PrivateKey{k, key(t, "rsa1024a")}, crypto.SHA256, [][]byte{d, d})
		for i, x := range elementErrs(t, err, 2) {
			require.ErrorIs(t, x, rsa.ErrFault)
			require.Nil(t, sigs[i])
		}
		pts, err := e.DecryptPKCS1v15([]*stdrsa.PrivateKey{k}, [][]byte{ct})
		require.ErrorIs(t, elementErrs(t, err, 1)[0], rsa.ErrFault)
		require.Nil(t, pts[0])
	}
	// A fault that leaves the half intact is no fault.
	ok := rsa.NewFaultyCPUEngine(func(mp *big.Int) {})
	sigs, err := ok.SignPKCS1v15([]*stdrsa.PrivateKey{k}, crypto.SHA256, [][]byte{d})
	require.NoError(t, err)
	want, _ := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d)
	require.Equal(t, want, sigs[0])
}

// A device that fails mid-batch sends the batch to the CPU: same results,
// each failure reported. (Runs where a device exists.)
func TestDeviceFailureFallsBackToCPU(t *testing.T) {
	shared := deviceEngine(t) // skips like every device test
	e := newDeviceEngine(t, shared.Device())
	var reported []error
	e.OnFallback(func(err error) { reported = append(reported, err) })
	e.SetFailHook(func() error { return &cl.Error{Call: "clEnqueueNDRangeKernel", Status: cl.OutOfResources} })
	defer e.SetFailHook(nil)
	keys := []*stdrsa.PrivateKey{key(t, "rsa1024a"), key(t, "rsa2048a"), nil, key(t, "rsa1024b")}
	digests := [][]byte{randBytes(t, 32), randBytes(t, 32), randBytes(t, 32), randBytes(t, 31)}
	got, gerr := e.SignPKCS1v15(keys, crypto.SHA256, digests)
	want, werr := cpuEngine.SignPKCS1v15(keys, crypto.SHA256, digests)
	require.Equal(t, want, got)
	require.Equal(t, werr.Error(), gerr.Error())
	st := e.Stats()
	require.Equal(t, int64(2), st.Fallbacks) // one per size class (1024 and 2048 bits)
	require.Equal(t, int64(3), st.FallbackOps)
	require.Equal(t, int64(3), st.CPUOps)
	require.Zero(t, st.DeviceOps)
	require.Len(t, reported, 2)
	require.ErrorContains(t, reported[0], "recomputed on the CPU")
	require.ErrorContains(t, reported[0], "CL_OUT_OF_RESOURCES")
}

// newDeviceEngine returns a new Engine on dev, routed to the device and
// closed with the test.
func newDeviceEngine(t *testing.T, dev *gpudevice.Device) *rsa.Engine {
	t.Helper()
	e, err := rsa.NewEngine(dev)
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

// The route: RouteDevice computes on the device (device time, device
// operations), RouteCPU on the CPU (none), RouteAuto wherever it measures
// faster; the signatures are crypto/rsa's in every case, and Stats counts
// each operation where it ran.
func TestRoute(t *testing.T) {
	shared := deviceEngine(t) // skips like every device test
	e := newDeviceEngine(t, shared.Device())
	e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
	k1, k2 := key(t, "rsa1024a"), key(t, "rsa2048a")
	keys := []*stdrsa.PrivateKey{k1, k2, k1, k2, k2, k1, k2}
	digests := make([][]byte, len(keys))
	for i := range digests {
		digests[i] = randBytes(t, 32)
	}
	want, err := cpuEngine.SignPKCS1v15(keys, crypto.SHA256, digests)
	require.NoError(t, err)
	sign := func(route batch.Route) batch.Stats {
		t.Helper()
		e.SetRoute(route)
		before := e.Stats()
		sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
		require.NoError(t, err)
		require.Equal(t, want, sigs, "route %v", route)
		after := e.Stats()
		require.Equal(t, before.Calls+2, after.Calls, "one call per size class")
		return batch.Stats{DeviceOps: after.DeviceOps - before.DeviceOps, CPUOps: after.CPUOps - before.CPUOps, DeviceTime: after.DeviceTime - before.DeviceTime}
	}
	d := sign(batch.RouteDevice)
	require.Equal(t, int64(len(keys)), d.DeviceOps)
	require.Zero(t, d.CPUOps)
	require.Positive(t, d.DeviceTime)
	c := sign(batch.RouteCPU)
	require.Zero(t, c.DeviceOps)
	require.Equal(t, int64(len(keys)), c.CPUOps)
	require.Zero(t, c.DeviceTime)
	for range 3 {
		a := sign(batch.RouteAuto)
		require.Equal(t, int64(len(keys)), a.DeviceOps+a.CPUOps)
	}
	require.Zero(t, e.Stats().Fallbacks)
	// a CPU engine computes on the CPU whatever the route
	cpu := rsa.CPUEngine()
	cpu.SetRoute(batch.RouteDevice)
	sigs, err := cpu.SignPKCS1v15(keys, crypto.SHA256, digests)
	require.NoError(t, err)
	require.Equal(t, want, sigs)
	st := cpu.Stats()
	require.Equal(t, int64(len(keys)), st.CPUOps)
	require.Zero(t, st.DeviceOps)
	require.Equal(t, int64(2), st.Calls)
}

// A closed engine fails every call at once with an error wrapping
// batch.ErrClosed, whatever its elements; closing again does nothing.
func TestEngineClose(t *testing.T) {
	engines := []*rsa.Engine{rsa.CPUEngine()}
	if d, ok := optionalDevice(t); ok {
		e, err := rsa.NewEngine(d)
		require.NoError(t, err)
		engines = append(engines, e)
	}
	k := key(t, "rsa1024a")
	d := randBytes(t, 32)
	sig, err := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d)
	require.NoError(t, err)
	for _, e := range engines {
		t.Run(e.String(), func(t *testing.T) {
			_, err := e.SignPKCS1v15([]*stdrsa.PrivateKey{k}, crypto.SHA256, [][]byte{d})
			require.NoError(t, err)
			require.NoError(t, e.Close())
			require.NoError(t, e.Close())
			_, err = e.SignPKCS1v15([]*stdrsa.PrivateKey{k}, crypto.SHA256, [][]byte{d})
			require.ErrorIs(t, err, batch.ErrClosed)
			_, err = e.SignPKCS1v15([]*stdrsa.PrivateKey{nil}, crypto.SHA256, [][]byte{d}) // no element to compute
			require.ErrorIs(t, err, batch.ErrClosed)
			_, err = e.DecryptPKCS1v15([]*stdrsa.PrivateKey{k}, [][]byte{sig})
			require.ErrorIs(t, err, batch.ErrClosed)
			require.ErrorIs(t, asErrors(e.VerifyPKCS1v15([]*stdrsa.PublicKey{&k.PublicKey}, crypto.SHA256, [][]byte{d}, [][]byte{sig})), batch.ErrClosed)
			_, err = e.EncryptOAEP(crypto.SHA256, nil, []*stdrsa.PublicKey{&k.PublicKey}, [][]byte{d}, nil)
			require.ErrorIs(t, err, batch.ErrClosed)
			require.ErrorIs(t, e.Warm(2048), batch.ErrClosed)
		})
	}
}

// optionalDevice is the test device, when there is one (a test that also
// runs without it).
func optionalDevice(t *testing.T) (*gpudevice.Device, bool) {
	d, err := gpudevice.Any()
	if err != nil {
		if os.Getenv(devicetest.EnvRequire) == "1" {
			t.Fatalf("no device: %v", err)
		}
		return nil, false
	}
	return d, true
}

// Warm builds the kernels of the given key sizes; after it, batches of
// every size sign without a build (the engine's program cache is what a
// batch would fill). Bad sizes are errors.
func TestWarm(t *testing.T) {
	shared := deviceEngine(t) // skips like every device test
	e := newDeviceEngine(t, shared.Device())
	require.NoError(t, e.Warm(2048))
	before := rsa.ProgramCount(e)
	require.NotZero(t, before)
	k := key(t, "rsa2048a")
	sizes := []int{1, 700, 1500, 3000, 5000} // on 132 compute units: 16, 16, 8, 4 and 1 threads per half
	if devicetest.Short(e.Device()) {
		sizes = []int{1, 3, 700} // a CPU device has one configuration
	}
	for _, n := range sizes {
		keys, digests := repeat(k, n), repeat(randBytes(t, 32), n)
		sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
		require.NoError(t, err)
		want, err := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, digests[0])
		require.NoError(t, err)
		require.Equal(t, want, sigs[n-1])
	}
	d := randBytes(t, 32)
	sig, err := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d)
	require.NoError(t, err)
	require.NoError(t, asErrors(e.VerifyPKCS1v15([]*stdrsa.PublicKey{&k.PublicKey}, crypto.SHA256, [][]byte{d}, [][]byte{sig})))
	require.Equal(t, before, rsa.ProgramCount(e), "a batch built a kernel that Warm did not")
	for _, bits := range []int{0, 512, 1023, 4097} {
		require.Error(t, e.Warm(bits), "%d bits", bits)
	}
	require.NoError(t, rsa.CPUEngine().Warm(2048))
}

// Verification's verdicts are ed25519's and ecdsa's style: true for a
// valid signature, false for one crypto/rsa refuses with ErrVerification
// (with no error), false and the element's error for malformed input.
func TestVerifyVerdicts(t *testing.T) {
	k := key(t, "rsa2048a")
	d := sha256.Sum256([]byte("verdicts"))
	sig, err := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d[:])
	require.NoError(t, err)
	bad := bytes.Clone(sig)
	bad[10] ^= 1
	pubs := []*stdrsa.PublicKey{&k.PublicKey, &k.PublicKey, &k.PublicKey, nil}
	digests := [][]byte{d[:], d[:], d[:5], d[:]}
	sigs := [][]byte{sig, bad, sig, sig}
	for name, e := range map[string]*rsa.Engine{"cpu": cpuEngine} {
		t.Run(name, func(t *testing.T) {
			valid, err := e.VerifyPKCS1v15(pubs, crypto.SHA256, digests, sigs)
			require.Equal(t, []bool{true, false, false, false}, valid)
			errs := elementErrs(t, err, len(pubs))
			require.NoError(t, errs[0])
			require.NoError(t, errs[1], "a refused signature is a verdict, not an error")
			require.Error(t, errs[2])
			require.Error(t, errs[3])
			_, err = e.VerifyPKCS1v15(pubs, crypto.SHA256, digests[:2], sigs)
			require.Error(t, err)
		})
	}
}
