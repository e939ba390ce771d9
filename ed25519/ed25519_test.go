package ed25519_test

import (
	"bytes"
	"crypto"
	stded25519 "crypto/ed25519"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// deviceEngine is the test device's engine (devicetest.Engine): every
// call computes there, and a fallback to the CPU fails the test.
func deviceEngine(t testing.TB) *ed25519.Engine {
	t.Helper()
	return devicetest.Engine(t, ed25519.NewEngine)
}

// engines are checked side by side: the device's kernels and the CPU
// path.
func engines(t *testing.T) map[string]*ed25519.Engine {
	return map[string]*ed25519.Engine{"device": deviceEngine(t), "cpu": ed25519.CPUEngine()}
}

func unhex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestRFC8032(t *testing.T) {
	cases, err := testvectors.RFC8032Ed25519()
	require.NoError(t, err)
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			for _, c := range cases {
				opts := &stded25519.Options{Context: string(unhex(t, c.Context))}
				msg := unhex(t, c.Message)
				if c.Prehash {
					opts.Hash = crypto.SHA512
					h := sha512.Sum512(msg)
					msg = h[:]
				}
				keys, err := e.NewKeysFromSeeds([][]byte{unhex(t, c.SecretKey)})
				require.NoError(t, err)
				require.Equal(t, c.PublicKey, hex.EncodeToString(keys[0][32:]), c.Name)
				sigs, err := e.Sign(keys, [][]byte{msg}, opts)
				require.NoError(t, err)
				require.Equal(t, c.Signature, hex.EncodeToString(sigs[0]), c.Name)
				ok, err := e.Verify([]stded25519.PublicKey{keys[0].Public().(stded25519.PublicKey)}, [][]byte{msg}, sigs, opts)
				require.NoError(t, err)
				require.True(t, ok[0], c.Name)
			}
		})
	}
}

func TestWycheproof(t *testing.T) {
	groups, err := testvectors.WycheproofEdDSA("ed25519_test.json")
	require.NoError(t, err)
	var pubs []stded25519.PublicKey
	var msgs, sigs [][]byte
	var want []bool
	var ids []int
	for _, g := range groups {
		pub := unhex(t, g.PublicKey)
		for _, c := range g.Tests {
			pubs = append(pubs, pub)
			msgs = append(msgs, unhex(t, c.Msg))
			sigs = append(sigs, unhex(t, c.Sig))
			want = append(want, c.Result == "valid")
			ids = append(ids, c.TcID)
		}
	}
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			got, err := e.Verify(pubs, msgs, sigs, nil)
			require.NoError(t, err)
			for i := range got {
				require.Equal(t, want[i], got[i], "tcId %d", ids[i])
				require.Equal(t, stded25519.Verify(pubs[i], msgs[i], sigs[i]), got[i], "tcId %d", ids[i])
			}
		})
	}
}

// The 768 edge cases of ed25519vectors.json (non-canonical and
// small-order A and R, mixed-order points): the verdict is
// crypto/ed25519's.
func TestEdgeCases(t *testing.T) {
	vectors, err := testvectors.Ed25519Vectors()
	require.NoError(t, err)
	var pubs []stded25519.PublicKey
	var msgs, sigs [][]byte
	for _, v := range vectors {
		pubs = append(pubs, v.A)
		msgs = append(msgs, v.Msg)
		sigs = append(sigs, v.Sig)
	}
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			got, err := e.Verify(pubs, msgs, sigs, nil)
			require.NoError(t, err)
			accepted := 0
			for i, v := range vectors {
				require.Equal(t, stded25519.Verify(v.A, v.Msg, v.Sig), got[i], "case %d %v", v.Index, v.Flags)
				if got[i] {
					accepted++
				}
			}
			require.Positive(t, accepted)
			require.Less(t, accepted, len(vectors))
		})
	}
}

// differential signs and verifies random keys and messages of 0 to max
// bytes with e and crypto/ed25519 under opts, with corrupted signatures
// among them; the device's fault check refuses none of e's signatures
// (were it to refuse right ones, the CPU would sign them and the
// signatures alone would not tell).
func differential(t *testing.T, e *ed25519.Engine, r *rand.Rand, n, max int, opts *stded25519.Options) {
	faults := e.Stats().Faults
	defer func() { require.Equal(t, faults, e.Stats().Faults, "signatures the fault check refused") }()
	seeds := make([][]byte, n)
	msgs := make([][]byte, n)
	for i := range seeds {
		seeds[i] = randomBytes(r, 32)
		l := r.IntN(max + 1)
		if opts != nil && opts.Hash == crypto.SHA512 {
			l = 64
		}
		msgs[i] = randomBytes(r, l)
	}
	keys, err := e.NewKeysFromSeeds(seeds)
	require.NoError(t, err)
	stdOpts := &stded25519.Options{}
	if opts != nil {
		stdOpts = opts
	}
	pubs := make([]stded25519.PublicKey, n)
	for i := range keys {
		want := stded25519.NewKeyFromSeed(seeds[i])
		require.Equal(t, want, keys[i], "key %d", i)
		pubs[i] = want.Public().(stded25519.PublicKey)
	}
	sigs, err := e.Sign(keys, msgs, opts)
	require.NoError(t, err)
	for i := range sigs {
		want, err := keys[i].Sign(nil, msgs[i], stdOpts)
		require.NoError(t, err)
		require.Equal(t, want, sigs[i], "signature %d (message of %d bytes)", i, len(msgs[i]))
	}
	// corrupt a third: a bit of R, of S, of the message or the key
	for i := range sigs {
		switch r.IntN(9) {
		case 0:
			sigs[i][r.IntN(32)] ^= 1 << r.IntN(8)
		case 1:
			sigs[i][32+r.IntN(31)] ^= 1 << r.IntN(8)
		case 2:
			if len(msgs[i]) > 0 {
				msgs[i] = bytes.Clone(msgs[i])
				msgs[i][r.IntN(len(msgs[i]))] ^= 1
			}
		}
	}
	got, err := e.Verify(pubs, msgs, sigs, opts)
	require.NoError(t, err)
	for i := range got {
		require.Equal(t, stded25519.VerifyWithOptions(pubs[i], msgs[i], sigs[i], stdOpts) == nil, got[i], "verdict %d", i)
	}
}

func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	e := deviceEngine(t)
	differential(t, e, r, 300, 300, nil)
	differential(t, e, r, 40, 3*ed25519.DeviceMessageMax, nil) // the host's share too
	differential(t, e, r, 100, 200, &stded25519.Options{Context: "a context"})
	differential(t, e, r, 100, 64, &stded25519.Options{Hash: crypto.SHA512, Context: "ph"})
	differential(t, e, r, 100, 64, &stded25519.Options{Hash: crypto.SHA512})
}

// Messages up to 64 KB, and the lengths around the kernels' limit.
func TestLongMessages(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	e := deviceEngine(t)
	differential(t, e, r, 12, 64<<10, nil)
	for _, l := range []int{ed25519.DeviceMessageMax - 1, ed25519.DeviceMessageMax, ed25519.DeviceMessageMax + 1} {
		seed := randomBytes(r, 32)
		key := stded25519.NewKeyFromSeed(seed)
		msg := randomBytes(r, l)
		sigs, err := e.Sign([]stded25519.PrivateKey{key}, [][]byte{msg}, nil)
		require.NoError(t, err)
		require.Equal(t, stded25519.Sign(key, msg), sigs[0])
		ok, err := e.Verify([]stded25519.PublicKey{key.Public().(stded25519.PublicKey)}, [][]byte{msg}, sigs, nil)
		require.NoError(t, err)
		require.True(t, ok[0])
	}
}

// Malformed input: an error for that element, never a panic, never a
// wrong verdict; the others are computed.
func TestBadInput(t *testing.T) {
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			good := stded25519.NewKeyFromSeed(make([]byte, 32))
			pub := good.Public().(stded25519.PublicKey)
			msg := []byte("message")
			sig := stded25519.Sign(good, msg)

			sigs, err := e.Sign([]stded25519.PrivateKey{good, nil, good[:63], good}, [][]byte{msg, msg, msg, nil}, nil)
			var be *batch.Error
			require.ErrorAs(t, err, &be)
			require.Len(t, be.Errs, 4)
			require.NoError(t, be.Errs[0])
			require.ErrorIs(t, be.Errs[1], ed25519.ErrKeyLength)
			require.ErrorIs(t, be.Errs[2], ed25519.ErrKeyLength)
			require.NoError(t, be.Errs[3])
			require.Equal(t, sig, sigs[0])
			require.Nil(t, sigs[1])
			require.Equal(t, stded25519.Sign(good, nil), sigs[3])

			ok, err := e.Verify([]stded25519.PublicKey{pub, nil, pub[:31], pub, pub, pub},
				[][]byte{msg, msg, msg, msg, nil, msg},
				[][]byte{sig, sig, sig, sig[:63], sig, append(bytes.Clone(sig), 0)}, nil)
			require.ErrorAs(t, err, &be)
			require.Equal(t, []bool{true, false, false, false, false, false}, ok)
			require.NoError(t, be.Errs[0])
			require.ErrorIs(t, be.Errs[1], ed25519.ErrKeyLength)
			require.ErrorIs(t, be.Errs[2], ed25519.ErrKeyLength)
			for _, k := range []int{3, 4, 5} {
				require.NoError(t, be.Errs[k])
			}

			_, err = e.Sign([]stded25519.PrivateKey{good}, [][]byte{msg}, &stded25519.Options{Hash: crypto.SHA512})
			require.ErrorAs(t, err, &be)
			require.ErrorIs(t, be.Errs[0], ed25519.ErrPrehashLength)
			_, err = e.Sign([]stded25519.PrivateKey{good}, [][]byte{msg}, &stded25519.Options{Hash: crypto.SHA256})
			require.ErrorIs(t, err, ed25519.ErrOptions)
			_, err = e.Verify([]stded25519.PublicKey{pub}, [][]byte{msg}, [][]byte{sig}, &stded25519.Options{Context: string(make([]byte, 256))})
			require.ErrorIs(t, err, ed25519.ErrOptions)
			_, err = e.Verify([]stded25519.PublicKey{pub}, [][]byte{msg, msg}, [][]byte{sig}, nil)
			require.Error(t, err)
			_, err = e.Sign([]stded25519.PrivateKey{good}, nil, nil)
			require.Error(t, err)

			keys, err := e.NewKeysFromSeeds([][]byte{make([]byte, 32), nil, make([]byte, 33)})
			require.ErrorAs(t, err, &be)
			require.Equal(t, good, keys[0])
			require.Nil(t, keys[1])
			require.ErrorIs(t, be.Errs[2], ed25519.ErrKeyLength)

			// empty calls
			sigs, err = e.Sign(nil, nil, nil)
			require.NoError(t, err)
			require.Empty(t, sigs)
			ok, err = e.Verify(nil, nil, nil, nil)
			require.NoError(t, err)
			require.Empty(t, ok)
		})
	}
}

// SignInto writes Sign's signatures into the caller's outputs, reused
// from call to call (a long message, signed on the host, among them); an
// output of the wrong length or a bad key fails its element alone, whose
// output is zeroed.
func TestSignInto(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			const n = 300
			keys, msgs, out := make([]stded25519.PrivateKey, n), make([][]byte, n), make([][]byte, n)
			for i := range out {
				out[i] = make([]byte, ed25519.SignatureSize)
			}
			for round := range 2 {
				for i := range keys {
					keys[i] = stded25519.NewKeyFromSeed(randomBytes(r, 32))
					msgs[i] = randomBytes(r, r.IntN(200))
				}
				msgs[7] = randomBytes(r, ed25519.DeviceMessageMax+1)
				for _, opts := range []*stded25519.Options{nil, {Context: "ctx"}} {
					require.NoError(t, e.SignInto(keys, msgs, out, opts), "round %d", round)
					for i := range out {
						want, err := keys[i].Sign(nil, msgs[i], optsOrPlain(opts))
						require.NoError(t, err)
						require.Equal(t, want, out[i], "round %d, element %d", round, i)
					}
				}
			}

			short := make([]byte, ed25519.SignatureSize-1)
			bad := []stded25519.PrivateKey{keys[0], keys[1], keys[2][:63]}
			outs := [][]byte{bytes.Repeat([]byte{1}, ed25519.SignatureSize), short, bytes.Repeat([]byte{1}, ed25519.SignatureSize)}
			err := e.SignInto(bad, msgs[:3], outs, nil)
			var be *batch.Error
			require.ErrorAs(t, err, &be)
			require.NoError(t, be.Errs[0])
			require.Equal(t, stded25519.Sign(keys[0], msgs[0]), outs[0])
			require.ErrorIs(t, be.Errs[1], ed25519.ErrOutputLength)
			require.Len(t, outs[1], ed25519.SignatureSize-1, "the caller's output stays")
			require.ErrorIs(t, be.Errs[2], ed25519.ErrKeyLength)
			require.Equal(t, make([]byte, ed25519.SignatureSize), outs[2], "zeroed")
			require.Error(t, e.SignInto(keys[:2], msgs[:2], out[:1], nil), "mismatched slices")
			require.NoError(t, e.SignInto(nil, nil, nil, nil))
		})
	}
}

// optsOrPlain is opts as PrivateKey.Sign takes it (nil: plain Ed25519).
func optsOrPlain(opts *stded25519.Options) crypto.SignerOpts {
	if opts == nil {
		return crypto.Hash(0)
	}
	return opts
}

// A private key whose second half is not its seed's public key signs as
// crypto/ed25519 does: with the public key it holds.
func TestMismatchedPrivateKey(t *testing.T) {
	a := stded25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))
	b := stded25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, 32))
	mixed := append(bytes.Clone(a[:32]), b[32:]...)
	for name, e := range engines(t) {
		sigs, err := e.Sign([]stded25519.PrivateKey{mixed}, [][]byte{[]byte("m")}, nil)
		require.NoError(t, err, name)
		require.Equal(t, stded25519.Sign(mixed, []byte("m")), sigs[0], name)
	}
}

// Batches of several parts of the message packing (cutPart, 4096
// elements), cut by message bytes inside a part: every part's messages
// are placed by the sums the cut made (packBatch), the last part's
// partial. Keys, signatures and verdicts as crypto/ed25519's.
func TestBatchesOfManyParts(t *testing.T) {
	e := deviceEngine(t)
	restore := ed25519.WithBatches(10000, 500000)
	defer restore()
	differential(t, e, rand.New(rand.NewPCG(17, 18)), 12000, 200, nil)
}

// Signing batches read back in two halves, the first unpacked while the
// second travels (readHalfMin lowered so that PoCL's batches split, odd
// sizes included): Sign's and SignInto's signatures are crypto/ed25519's,
// beside elements the host signs (a long message, a bad key).
func TestSignReadHalves(t *testing.T) {
	e := deviceEngine(t)
	restore := ed25519.WithReadHalves(16)
	defer restore()
	r := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{31, 32, 33, 301} {
		keys, msgs, out := make([]stded25519.PrivateKey, n), make([][]byte, n), make([][]byte, n)
		for i := range keys {
			keys[i] = stded25519.NewKeyFromSeed(randomBytes(r, 32))
			msgs[i] = randomBytes(r, r.IntN(200))
			out[i] = make([]byte, ed25519.SignatureSize)
		}
		msgs[n-2] = randomBytes(r, ed25519.DeviceMessageMax+1)
		keys[n-1] = keys[n-1][:63]
		sigs, err := e.Sign(keys, msgs, nil)
		var be *batch.Error
		require.ErrorAs(t, err, &be)
		require.ErrorIs(t, be.Errs[n-1], ed25519.ErrKeyLength)
		err = e.SignInto(keys, msgs, out, nil)
		require.ErrorAs(t, err, &be)
		require.ErrorIs(t, be.Errs[n-1], ed25519.ErrKeyLength)
		for i := range n - 1 {
			want := stded25519.Sign(keys[i], msgs[i])
			require.Equal(t, want, sigs[i], "n %d, Sign, element %d", n, i)
			require.Equal(t, want, out[i], "n %d, SignInto, element %d", n, i)
		}
	}
}

func TestClosedEngine(t *testing.T) {
	e := ed25519.CPUEngine()
	require.NoError(t, e.Close())
	_, err := e.Verify([]stded25519.PublicKey{make([]byte, 32)}, [][]byte{nil}, [][]byte{nil}, nil)
	require.True(t, errors.Is(err, batch.ErrClosed), "%v", err)
}

// Calls cut into many device batches of unequal sizes (by element count
// and by message bytes) give every element its own message: keys,
// signatures and verdicts as crypto/ed25519's, messages of 0 to 600 bytes
// in batches of at most 7 elements and 900 bytes.
func TestManyBatches(t *testing.T) {
	e := deviceEngine(t)
	restore := ed25519.WithBatches(7, 900)
	defer restore()
	before := e.Stats()
	differential(t, e, rand.New(rand.NewPCG(15, 16)), 150, 600, nil)
	// the batches' anatomy: each waited for its commands, within its time
	s := e.Stats()
	require.Greater(t, s.WaitTime, before.WaitTime)
	require.GreaterOrEqual(t, s.BatchTime-before.BatchTime, s.WaitTime-before.WaitTime)
}
