//go:build go1.26

package mlkem_test

import (
	"bytes"
	"crypto/sha3"
	"encoding/hex"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/mlkem"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// refOf is the reference's parameter set of s.
func refOf(s set) refParams {
	if s.name == "ML-KEM-1024" {
		return ref1024
	}
	return ref768
}

// Every key of C2SP's modulus vectors (every value from q to 2^12 − 1 at
// every position) fails its element alone with ErrEncapsulationKey, as
// crypto/mlkem refuses it, on both engines and for both forms of
// encapsulation; a valid key among them is computed.
func TestModulusVectors(t *testing.T) {
	for _, s := range sets {
		keys, err := testvectors.CCTVMLKEMModulus(s.name)
		require.NoError(t, err)
		require.NotEmpty(t, keys)
		for _, k := range keys {
			require.Len(t, k, s.ekSize)
			require.Error(t, s.stdCheckEncapsulation(k))
		}
		valid, err := s.keyGen(mlkem.CPUEngine(), [][]byte{make([]byte, mlkem.SeedSize)})
		require.NoError(t, err)
		keys = append(keys, valid[0])
		random := make([][]byte, len(keys))
		for i := range random {
			random[i] = make([]byte, mlkem.RandomnessSize)
		}
		for name, e := range engines(t) {
			t.Run(name+"/"+s.name, func(t *testing.T) {
				for _, derandomized := range []bool{false, true} {
					var shared, cts [][]byte
					if derandomized {
						shared, cts, err = s.encapsulateWith(e, keys, random)
					} else {
						shared, cts, err = s.encapsulate(e, keys)
					}
					var be *batch.Error
					require.ErrorAs(t, err, &be)
					last := len(keys) - 1
					for i := range last {
						require.ErrorIs(t, be.Errs[i], mlkem.ErrEncapsulationKey, "key %d", i)
						require.Nil(t, shared[i])
						require.Nil(t, cts[i])
					}
					require.NoError(t, be.Errs[last])
					back, err := s.decapsulate(mlkem.CPUEngine(), [][]byte{make([]byte, mlkem.SeedSize)}, cts[last:])
					require.NoError(t, err)
					require.Equal(t, shared[last], back[0])
				}
			})
		}
	}
}

// C2SP's strcmp vectors, ciphertexts whose re-encryption a comparison
// that stops at a zero byte would take for equal: the device's
// decapsulation under the vectors' expanded keys gives their shared keys
// (the implicit rejection), as the reference does.
func TestStrcmpVectors(t *testing.T) {
	e := deviceEngine(t)
	for _, s := range sets {
		values, err := testvectors.CCTVMLKEMValues("strcmp/" + s.name + ".txt")
		require.NoError(t, err)
		dk, c, k := unhex(t, valueOf(t, values, "dk")), unhex(t, valueOf(t, values, "c")), unhex(t, valueOf(t, values, "K"))
		require.Equal(t, k, decapsulateRef(refOf(s), dk, c), s.name)
		got, err := mlkem.DecapsulateExpandedOnDevice(e, s.name, [][]byte{dk}, [][]byte{c})
		require.NoError(t, err)
		require.Equal(t, k, got[0], s.name)
	}
}

// C2SP's unlucky vectors, keys whose matrix needs XOF streams beyond 575
// bytes: encapsulation to them on both engines gives the vectors'
// ciphertexts and shared keys, and the device decapsulates under their
// expanded keys. (Their key generation is FIPS 203 ipd's: the reference's
// draft form gives their keys.)
func TestUnluckyVectors(t *testing.T) {
	for _, s := range sets {
		values, err := testvectors.CCTVMLKEMValues("unluckysample/" + s.name + ".txt")
		require.NoError(t, err)
		v := func(name string) []byte { return unhex(t, valueOf(t, values, name)) }
		ek, dk := keyGenRef(refOf(s), append(v("d"), v("z")...), true)
		require.Equal(t, v("ek"), ek, s.name)
		require.Equal(t, v("dk"), dk, s.name)
		for name, e := range engines(t) {
			shared, cts, err := s.encapsulateWith(e, [][]byte{v("ek")}, [][]byte{v("m")})
			require.NoError(t, err)
			require.Equal(t, v("c"), cts[0], name+"/"+s.name)
			require.Equal(t, v("K"), shared[0], name+"/"+s.name)
		}
		got, err := mlkem.DecapsulateExpandedOnDevice(deviceEngine(t), s.name, [][]byte{v("dk")}, [][]byte{v("c")})
		require.NoError(t, err)
		require.Equal(t, v("K"), got[0], s.name)
	}
}

// accumulatedCount is the number of tests of an accumulated run: 10,000,
// the count of the published hashes that CI affords (100 with -short),
// and 1,000,000 with GPUCRYPTO_FULL=1 on a GPU.
func accumulatedCount(t *testing.T) int {
	d := devicetest.Device(t)
	switch {
	case os.Getenv("GPUCRYPTO_FULL") == "1" && d.Type == device.TypeGPU:
		return 1000000
	case testing.Short():
		return 100
	}
	return 10000
}

// accumulatedPiece is the number of tests of an accumulated run computed
// in one call of each operation.
const accumulatedPiece = 1 << 16

// crypto/mlkem's accumulated test (TestAccumulated in Go's source) on the
// device engine: seeds, messages and random ciphertexts drawn from
// SHAKE128, the encapsulation keys, ciphertexts and shared keys, and the
// implicit-rejection keys of the random ciphertexts hashed with SHAKE128,
// to Go's hashes of 100, 10,000 and 1,000,000 tests (ML-KEM-768).
func TestAccumulated(t *testing.T) {
	n := accumulatedCount(t)
	want := map[int]string{
		100:     "1114b1b6699ed191734fa339376afa7e285c9e6acf6ff0177d346696ce564415",
		10000:   "8a518cc63da366322a8e7a818c7a0d63483cb3528d34a4cf42f35d5ad73f22fc",
		1000000: "424bf8f0e8ae99b78d788a6e2e8e9cdaf9773fc0c08a6f433507cb559edfd0f0",
	}[n]
	e := deviceEngine(t)
	s := sets[0]
	rng, o := sha3.NewSHAKE128(), sha3.NewSHAKE128()
	for done := 0; done < n; done += accumulatedPiece {
		m := min(accumulatedPiece, n-done)
		seeds, msgs, random := make([][]byte, m), make([][]byte, m), make([][]byte, m)
		for i := range m {
			seeds[i], msgs[i], random[i] = make([]byte, mlkem.SeedSize), make([]byte, 32), make([]byte, s.ctSize)
			rng.Read(seeds[i])
			rng.Read(msgs[i])
			rng.Read(random[i])
		}
		eks, err := s.keyGen(e, seeds)
		require.NoError(t, err)
		shared, cts, err := s.encapsulateWith(e, eks, msgs)
		require.NoError(t, err)
		back, err := s.decapsulate(e, append(seeds, seeds...), append(cts, random...))
		require.NoError(t, err)
		for i := range m {
			require.Equal(t, shared[i], back[i], "test %d", done+i)
			o.Write(eks[i])
			o.Write(cts[i])
			o.Write(shared[i])
			o.Write(back[m+i])
		}
	}
	got := make([]byte, 32)
	o.Read(got)
	require.Equal(t, want, hex.EncodeToString(got), "%d tests", n)
}

// C2SP's accumulated vectors (README.md): d, z, m and a random ciphertext
// drawn from SHAKE128 per test; the encapsulation and expanded
// decapsulation keys, the ciphertext and shared key of the encapsulation
// of m and the implicit-rejection key of the random ciphertext hashed
// with SHAKE128, to the README's hashes of 10,000 and 1,000,000 tests.
// The vectors' key generation is FIPS 203 ipd's, so the keys come from
// the reference's draft form; the device encapsulates (EncapsulateDerandomized)
// and decapsulates under the expanded keys. Runs of 100 tests (CPU
// devices, -short) have no published hash and check the decapsulations
// alone.
func TestAccumulatedCCTV(t *testing.T) {
	n := accumulatedCount(t)
	e := deviceEngine(t)
	for _, s := range sets {
		want := map[string]map[int]string{
			"ML-KEM-768": {
				10000:   "f7db260e1137a742e05fe0db9525012812b004d29040a5b606aad3d134b548d3",
				1000000: "70090cc5842aad0ec43d5042c783fae9bc320c047b5dafcb6e134821db02384d",
			},
			"ML-KEM-1024": {
				10000:   "47ac888fe61544efc0518f46094b4f8a600965fc89822acb06dc7169d24f3543",
				1000000: "7ccc6d803739d3db3c5ce39c7130f459db32a199c6605e3be210e5a89d4c4b95",
			},
		}[s.name][n]
		t.Run(s.name, func(t *testing.T) {
			rng, o := sha3.NewSHAKE128(), sha3.NewSHAKE128()
			for done := 0; done < n; done += accumulatedPiece {
				m := min(accumulatedPiece, n-done)
				seeds, msgs, random := make([][]byte, m), make([][]byte, m), make([][]byte, m)
				for i := range m {
					seeds[i], msgs[i], random[i] = make([]byte, mlkem.SeedSize), make([]byte, 32), make([]byte, s.ctSize)
					rng.Read(seeds[i])
					rng.Read(msgs[i])
					rng.Read(random[i])
				}
				eks, dks := make([][]byte, m), make([][]byte, m)
				batch.Parallel(m, 16, func(a, b int) {
					for i := a; i < b; i++ {
						eks[i], dks[i] = keyGenRef(refOf(s), seeds[i], true)
					}
				})
				shared, cts, err := s.encapsulateWith(e, eks, msgs)
				require.NoError(t, err)
				back, err := mlkem.DecapsulateExpandedOnDevice(e, s.name, append(dks, dks...), append(cts, random...))
				require.NoError(t, err)
				for i := range m {
					require.Equal(t, shared[i], back[i], "test %d", done+i)
					o.Write(eks[i])
					o.Write(dks[i])
					o.Write(cts[i])
					o.Write(shared[i])
					o.Write(back[m+i])
				}
			}
			got := make([]byte, 32)
			o.Read(got)
			if want == "" {
				t.Logf("%s: %d tests (no published hash for this count): %x", s.name, n, got)
				return
			}
			require.Equal(t, want, hex.EncodeToString(got), "%s, %d tests", s.name, n)
		})
	}
}

// The device's expansion of a seed is the reference's expanded key
// (FIPS 203's dk), whose encapsulation key is crypto/mlkem's.
func TestExpandedKeys(t *testing.T) {
	e := deviceEngine(t)
	for _, s := range sets {
		seeds := [][]byte{bytes.Repeat([]byte{1}, 64), bytes.Repeat([]byte{0xfe}, 64), make([]byte, 64)}
		got, err := mlkem.ExpandOnDevice(e, s.name, seeds)
		require.NoError(t, err)
		for i, seed := range seeds {
			ek, dk := keyGenRef(refOf(s), seed, false)
			want, err := s.stdEncapsulationKey(seed)
			require.NoError(t, err)
			require.Equal(t, want, ek, "%s seed %d: the reference's encapsulation key", s.name, i)
			require.Equal(t, dk, got[i], "%s seed %d", s.name, i)
		}
	}
}
