//go:build go1.26

package mlkem_test

import (
	"bytes"
	stdmlkem "crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

// deviceEngine is the test device's engine (devicetest.Engine): every
// call computes there, and a fallback to the CPU fails the test.
func deviceEngine(t testing.TB) *mlkem.Engine {
	t.Helper()
	return devicetest.Engine(t, mlkem.NewEngine)
}

// engines are checked side by side: the device's kernels and the CPU
// path.
func engines(t *testing.T) map[string]*mlkem.Engine {
	return map[string]*mlkem.Engine{"device": deviceEngine(t), "cpu": mlkem.CPUEngine()}
}

// set is one parameter set as the tests drive it: the Engine's methods
// and crypto/mlkem's.
type set struct {
	name                   string
	ekSize, ctSize         int
	keyGen                 func(e *mlkem.Engine, seeds [][]byte) ([][]byte, error)
	encapsulate            func(e *mlkem.Engine, eks [][]byte) ([][]byte, [][]byte, error)
	encapsulateWith        func(e *mlkem.Engine, eks, random [][]byte) ([][]byte, [][]byte, error)
	decapsulate            func(e *mlkem.Engine, seeds, cts [][]byte) ([][]byte, error)
	stdEncapsulationKey    func(seed []byte) ([]byte, error)
	stdEncapsulate         func(ek, m []byte) (shared, ct []byte, err error)
	stdDecapsulate         func(seed, ct []byte) ([]byte, error)
	stdCheckEncapsulation  func(ek []byte) error
	stdDecapsulationKeyErr func(seed []byte) error
}

var sets = []set{
	{
		name: "ML-KEM-768", ekSize: mlkem.EncapsulationKeySize768, ctSize: mlkem.CiphertextSize768,
		keyGen:          (*mlkem.Engine).KeyGen768,
		encapsulate:     (*mlkem.Engine).Encapsulate768,
		encapsulateWith: (*mlkem.Engine).EncapsulateDerandomized768,
		decapsulate:     (*mlkem.Engine).Decapsulate768,
		stdEncapsulationKey: func(seed []byte) ([]byte, error) {
			dk, err := stdmlkem.NewDecapsulationKey768(seed)
			if err != nil {
				return nil, err
			}
			return dk.EncapsulationKey().Bytes(), nil
		},
		stdEncapsulate: func(ek, m []byte) ([]byte, []byte, error) {
			k, err := stdmlkem.NewEncapsulationKey768(ek)
			if err != nil {
				return nil, nil, err
			}
			return mlkemtest.Encapsulate768(k, m)
		},
		stdDecapsulate: func(seed, ct []byte) ([]byte, error) {
			dk, err := stdmlkem.NewDecapsulationKey768(seed)
			if err != nil {
				return nil, err
			}
			return dk.Decapsulate(ct)
		},
		stdCheckEncapsulation: func(ek []byte) error { _, err := stdmlkem.NewEncapsulationKey768(ek); return err },
		stdDecapsulationKeyErr: func(seed []byte) error {
			_, err := stdmlkem.NewDecapsulationKey768(seed)
			return err
		},
	},
	{
		name: "ML-KEM-1024", ekSize: mlkem.EncapsulationKeySize1024, ctSize: mlkem.CiphertextSize1024,
		keyGen:          (*mlkem.Engine).KeyGen1024,
		encapsulate:     (*mlkem.Engine).Encapsulate1024,
		encapsulateWith: (*mlkem.Engine).EncapsulateDerandomized1024,
		decapsulate:     (*mlkem.Engine).Decapsulate1024,
		stdEncapsulationKey: func(seed []byte) ([]byte, error) {
			dk, err := stdmlkem.NewDecapsulationKey1024(seed)
			if err != nil {
				return nil, err
			}
			return dk.EncapsulationKey().Bytes(), nil
		},
		stdEncapsulate: func(ek, m []byte) ([]byte, []byte, error) {
			k, err := stdmlkem.NewEncapsulationKey1024(ek)
			if err != nil {
				return nil, nil, err
			}
			return mlkemtest.Encapsulate1024(k, m)
		},
		stdDecapsulate: func(seed, ct []byte) ([]byte, error) {
			dk, err := stdmlkem.NewDecapsulationKey1024(seed)
			if err != nil {
				return nil, err
			}
			return dk.Decapsulate(ct)
		},
		stdCheckEncapsulation: func(ek []byte) error { _, err := stdmlkem.NewEncapsulationKey1024(ek); return err },
		stdDecapsulationKeyErr: func(seed []byte) error {
			_, err := stdmlkem.NewDecapsulationKey1024(seed)
			return err
		},
	},
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// differential checks n random elements of s on e against crypto/mlkem:
// the encapsulation keys of random seeds, derandomized encapsulations to
// them, the decapsulation of their ciphertexts and of corrupted copies
// (a flipped bit, a changed byte, random bytes), and fresh encapsulations
// that crypto/mlkem decapsulates to the same shared keys.
func differential(t *testing.T, e *mlkem.Engine, s set, rng *rand.Rand, n int) {
	t.Helper()
	seeds, ms := make([][]byte, n), make([][]byte, n)
	for i := range n {
		seeds[i], ms[i] = randomBytes(rng, mlkem.SeedSize), randomBytes(rng, mlkem.RandomnessSize)
	}
	eks, err := s.keyGen(e, seeds)
	require.NoError(t, err)
	for i := range n {
		want, err := s.stdEncapsulationKey(seeds[i])
		require.NoError(t, err)
		require.Equal(t, want, eks[i], "encapsulation key %d", i)
	}
	shared, cts, err := s.encapsulateWith(e, eks, ms)
	require.NoError(t, err)
	for i := range n {
		wantShared, wantCT, err := s.stdEncapsulate(eks[i], ms[i])
		require.NoError(t, err)
		require.Equal(t, wantCT, cts[i], "ciphertext %d", i)
		require.Equal(t, wantShared, shared[i], "shared key %d", i)
	}
	// the ciphertexts, then corrupted copies
	dseeds := append([][]byte(nil), seeds...)
	dcts := append([][]byte(nil), cts...)
	for i := range n {
		bad := bytes.Clone(cts[i])
		switch i % 3 {
		case 0:
			bad[rng.IntN(len(bad))] ^= 1 << rng.IntN(8)
		case 1:
			bad[len(bad)-1-rng.IntN(32)] = byte(rng.Uint32())
		case 2:
			bad = randomBytes(rng, len(bad))
		}
		dseeds, dcts = append(dseeds, seeds[i]), append(dcts, bad)
	}
	got, err := s.decapsulate(e, dseeds, dcts)
	require.NoError(t, err)
	for i := range dseeds {
		want, err := s.stdDecapsulate(dseeds[i], dcts[i])
		require.NoError(t, err)
		require.Equal(t, want, got[i], "decapsulation %d", i)
		if i < n {
			require.Equal(t, shared[i], got[i], "decapsulation %d", i)
		}
	}
	fresh, freshCTs, err := s.encapsulate(e, eks)
	require.NoError(t, err)
	for i := range n {
		back, err := s.stdDecapsulate(seeds[i], freshCTs[i])
		require.NoError(t, err)
		require.Equal(t, fresh[i], back, "fresh encapsulation %d", i)
		require.NotEqual(t, cts[i], freshCTs[i], "fresh encapsulation %d", i)
	}
}

// Both engines give crypto/mlkem's results byte for byte, on random
// inputs and corrupted ciphertexts, for both parameter sets.
func TestDifferential(t *testing.T) {
	n := 64
	if d := devicetest.Device(t); devicetest.Short(d) {
		n = 24
	}
	for name, e := range engines(t) {
		for _, s := range sets {
			t.Run(name+"/"+s.name, func(t *testing.T) {
				differential(t, e, s, rand.New(rand.NewPCG(21, uint64(s.ekSize))), n)
			})
		}
	}
}

// Elements that crypto/mlkem refuses fail alone, with its verdict, in a
// *batch.Error whose errors wrap the package's error values and
// crypto/mlkem's own; the others are computed, on the device and on the
// CPU alike.
func TestElementErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for name, e := range engines(t) {
		for _, s := range sets {
			t.Run(name+"/"+s.name, func(t *testing.T) {
				good := randomBytes(rng, mlkem.SeedSize)
				eks, err := s.keyGen(e, [][]byte{good})
				require.NoError(t, err)
				ek := eks[0]

				// key generation: seeds of the wrong length
				seeds := [][]byte{good, nil, good[:63], append(bytes.Clone(good), 0), good}
				got, err := s.keyGen(e, seeds)
				var be *batch.Error
				require.ErrorAs(t, err, &be)
				for i, seed := range seeds {
					if len(seed) == mlkem.SeedSize {
						require.NoError(t, be.Errs[i])
						require.Equal(t, ek, got[i])
						continue
					}
					require.ErrorIs(t, be.Errs[i], mlkem.ErrSeedLength, "seed %d", i)
					require.Contains(t, be.Errs[i].Error(), s.stdDecapsulationKeyErr(seed).Error())
					require.Nil(t, got[i])
				}

				// encapsulation: keys of the wrong length or unreduced, and
				// randomness of the wrong length (an unreduced key's error
				// comes first, as crypto/mlkem's)
				unreduced := bytes.Clone(ek)
				unreduced[len(ek)-33] |= 0xf0 // the last coefficient of t̂: at least 3840
				m := randomBytes(rng, mlkem.RandomnessSize)
				keys := [][]byte{ek, ek[:len(ek)-1], unreduced, ek, nil, ek, unreduced}
				random := [][]byte{m, m, m, m[:31], m, m, m[:1]}
				shared, cts, err := s.encapsulateWith(e, keys, random)
				require.ErrorAs(t, err, &be)
				wantShared, wantCT, err := s.stdEncapsulate(ek, m)
				require.NoError(t, err)
				for i := range keys {
					switch {
					case len(keys[i]) != s.ekSize:
						require.ErrorIs(t, be.Errs[i], mlkem.ErrEncapsulationKeyLength, "key %d", i)
						require.Contains(t, be.Errs[i].Error(), s.stdCheckEncapsulation(keys[i]).Error())
					case bytes.Equal(keys[i], unreduced): // before the randomness's length
						require.ErrorIs(t, be.Errs[i], mlkem.ErrEncapsulationKey, "key %d", i)
						require.Contains(t, be.Errs[i].Error(), s.stdCheckEncapsulation(keys[i]).Error())
					case len(random[i]) != mlkem.RandomnessSize:
						require.ErrorIs(t, be.Errs[i], mlkem.ErrRandomnessLength, "key %d", i)
					default:
						require.NoError(t, be.Errs[i], "key %d", i)
						require.Equal(t, wantShared, shared[i])
						require.Equal(t, wantCT, cts[i])
						continue
					}
					require.Nil(t, shared[i])
					require.Nil(t, cts[i])
				}
				_, _, err = s.encapsulate(e, [][]byte{unreduced, ek})
				require.ErrorAs(t, err, &be)
				require.ErrorIs(t, be.Errs[0], mlkem.ErrEncapsulationKey)
				require.NoError(t, be.Errs[1])

				// decapsulation: seeds and ciphertexts of the wrong length
				ct := wantCT
				dseeds := [][]byte{good, good[:1], good, good, good}
				dcts := [][]byte{ct, ct, ct[:len(ct)-1], append(bytes.Clone(ct), 0), ct}
				keysOut, err := s.decapsulate(e, dseeds, dcts)
				require.ErrorAs(t, err, &be)
				for i := range dseeds {
					switch {
					case len(dseeds[i]) != mlkem.SeedSize:
						require.ErrorIs(t, be.Errs[i], mlkem.ErrSeedLength, "element %d", i)
					case len(dcts[i]) != s.ctSize:
						require.ErrorIs(t, be.Errs[i], mlkem.ErrCiphertextLength, "element %d", i)
						_, stdErr := s.stdDecapsulate(dseeds[i], dcts[i])
						require.Error(t, stdErr)
					default:
						require.NoError(t, be.Errs[i], "element %d", i)
						require.Equal(t, wantShared, keysOut[i])
						continue
					}
					require.Nil(t, keysOut[i])
				}

				// mismatched inputs and empty calls
				_, err = s.decapsulate(e, dseeds, dcts[:1])
				require.Error(t, err)
				_, _, err = s.encapsulateWith(e, keys, random[:1])
				require.Error(t, err)
				out, err := s.keyGen(e, nil)
				require.NoError(t, err)
				require.Empty(t, out)
			})
		}
	}
}

// Consecutive elements with one key (the same slice, or equal copies)
// share its entry of the device's table; interleaved keys, keys that
// change at the edges of batches and a run that spans batches all give
// crypto/mlkem's results.
func TestSharedKeys(t *testing.T) {
	restore := mlkem.WithBatches(7)
	defer restore()
	rng := rand.New(rand.NewPCG(25, 26))
	for name, e := range engines(t) {
		for _, s := range sets {
			t.Run(name+"/"+s.name, func(t *testing.T) {
				seedA, seedB := randomBytes(rng, mlkem.SeedSize), randomBytes(rng, mlkem.SeedSize)
				eks, err := s.keyGen(e, [][]byte{seedA, seedB})
				require.NoError(t, err)
				const n = 30
				seeds, keys, ms := make([][]byte, n), make([][]byte, n), make([][]byte, n)
				for i := range n {
					switch {
					case i < 12: // one slice
						seeds[i], keys[i] = seedA, eks[0]
					case i < 20: // equal copies
						seeds[i], keys[i] = bytes.Clone(seedB), bytes.Clone(eks[1])
					default: // interleaved
						if i%2 == 0 {
							seeds[i], keys[i] = seedA, eks[0]
						} else {
							seeds[i], keys[i] = seedB, eks[1]
						}
					}
					ms[i] = randomBytes(rng, mlkem.RandomnessSize)
				}
				keys[5] = keys[5][:10] // a bad key inside a run
				shared, cts, err := s.encapsulateWith(e, keys, ms)
				var be *batch.Error
				require.ErrorAs(t, err, &be)
				for i := range n {
					if i == 5 {
						require.ErrorIs(t, be.Errs[i], mlkem.ErrEncapsulationKeyLength)
						cts[i] = cts[4]
						continue
					}
					require.NoError(t, be.Errs[i])
					wantShared, wantCT, err := s.stdEncapsulate(keys[i], ms[i])
					require.NoError(t, err)
					require.Equal(t, wantCT, cts[i], "ciphertext %d", i)
					require.Equal(t, wantShared, shared[i], "shared key %d", i)
				}
				seeds[8] = nil // a bad seed inside a run
				got, err := s.decapsulate(e, seeds, cts)
				require.ErrorAs(t, err, &be)
				for i := range n {
					if i == 8 {
						require.ErrorIs(t, be.Errs[i], mlkem.ErrSeedLength)
						continue
					}
					require.NoError(t, be.Errs[i])
					want, err := s.stdDecapsulate(seeds[i], cts[i])
					require.NoError(t, err)
					require.Equal(t, want, got[i], "decapsulation %d", i)
				}
			})
		}
	}
}

// A closed engine refuses every call with an error wrapping
// batch.ErrClosed.
func TestClosed(t *testing.T) {
	for name, newEngine := range map[string]func(t *testing.T) (*mlkem.Engine, error){
		"device": func(t *testing.T) (*mlkem.Engine, error) { return mlkem.NewEngine(devicetest.Device(t)) },
		"cpu":    func(*testing.T) (*mlkem.Engine, error) { return mlkem.CPUEngine(), nil },
	} {
		t.Run(name, func(t *testing.T) {
			e, err := newEngine(t) // without a device the subtest is skipped, not its parent
			require.NoError(t, err)
			require.NoError(t, e.Close())
			seed := make([]byte, mlkem.SeedSize)
			_, err = e.KeyGen768([][]byte{seed})
			require.True(t, errors.Is(err, batch.ErrClosed), "%v", err)
			_, _, err = e.Encapsulate1024([][]byte{nil})
			require.ErrorIs(t, err, batch.ErrClosed)
			_, err = e.Decapsulate768([][]byte{seed}, [][]byte{nil})
			require.ErrorIs(t, err, batch.ErrClosed)
			require.NoError(t, e.Close())
		})
	}
}

// The device engine's result check recomputes sampled results with
// crypto/mlkem: correct kernels pass it, every element checked.
func TestResultCheck(t *testing.T) {
	e, err := mlkem.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	e.SetResultCheck(1)
	e.OnFallback(func(err error) { t.Errorf("fallback: %v", err) })
	rng := rand.New(rand.NewPCG(27, 28))
	for _, s := range sets {
		differential(t, e, s, rng, 6)
	}
	require.Zero(t, e.Stats().Fallbacks)
}
