package ed25519

import (
	stded25519 "crypto/ed25519"
	"crypto/sha512"
	"embed"
	"encoding/binary"
	"io/fs"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

//go:embed testdata/kernels/steps_test.cl
var stepsTestKernels embed.FS

// runSteps runs kernel name of the steps program (both forms) over count
// elements with the limb-major input in, and returns out words of the
// given number per element, limb-major.
func runSteps(t *testing.T, d *device.Device, defines map[string]string, name string, in []uint32, count, outWords int, table bool) []uint32 {
	sub, err := fs.Sub(stepsTestKernels, "testdata/kernels")
	require.NoError(t, err)
	args := []any{device.Uint32Bytes(in)}
	if table {
		words, err := kernels.CombTable("x25519")
		require.NoError(t, err)
		args = append(args, device.Uint32Bytes(words))
	}
	out := devicetest.RunKernel(t, d, kernels.ProgramFrom(sub, "steps_test.cl", defines), name, count, 4*outWords*count,
		append(args, uint32(count))...)
	return device.Uint32s(out, outWords*count)
}

// clampedScalar is the secret scalar s of a seed: the first half of
// SHA-512(seed), clamped (RFC 8032 §5.1.5).
func clampedScalar(seed []byte) []byte {
	h := sha512.Sum512(seed)
	s := h[:32]
	s[0] &= 248
	s[31] = s[31]&127 | 64
	return s
}

// limbMajor packs 32-byte values as 8 limb-major rows.
func limbMajor(values [][]byte) []uint32 {
	n := len(values)
	w := make([]uint32, 8*n)
	for k, v := range values {
		putValue(w, n, k, v)
	}
	return w
}

// The kernels' steps one at a time, in both forms, against Go: SHA-512
// of the seed and the clamping, the comb's [s]B and its encoding (s
// clamped, reduced, small, and 0), decoding and re-encoding points.
func TestKernelSteps(t *testing.T) {
	d := devicetest.Device(t)
	r := rand.New(rand.NewPCG(7, 8))
	const n = 64
	seeds := make([][]byte, n)
	for i := range seeds {
		seeds[i] = make([]byte, 32)
		for j := range seeds[i] {
			seeds[i][j] = byte(r.Uint32())
		}
	}
	for name, defines := range map[string]map[string]string{"limbs": {}, "fp64": {"ED25519_FP64": "1"}} {
		t.Run(name, func(t *testing.T) {
			out := runSteps(t, d, defines, "steps_expand", limbMajor(seeds), n, 24, false)
			scalars := make([][]byte, n)
			for i, seed := range seeds {
				h := sha512.Sum512(seed)
				got := make([]byte, 96)
				for j := range 24 {
					binary.LittleEndian.PutUint32(got[4*j:], out[j*n+i])
				}
				require.Equal(t, h[:], got[:64], "SHA-512 of seed %d", i)
				s := clampedScalar(seed)
				require.Equal(t, s, got[64:], "clamped scalar %d", i)
				scalars[i] = s
			}
			// [s]B for the seeds' scalars: their public keys
			out = runSteps(t, d, defines, "steps_base", limbMajor(scalars), n, 8, true)
			for i, seed := range seeds {
				got := make([]byte, 32)
				getValue(got, out, n, i)
				require.Equal(t, []byte(stded25519.NewKeyFromSeed(seed)[32:]), got, "[s]B of seed %d", i)
			}
			// decoding and encoding the public keys again
			pubs := make([][]byte, n)
			for i, seed := range seeds {
				pubs[i] = stded25519.NewKeyFromSeed(seed)[32:]
			}
			out = runSteps(t, d, defines, "steps_decode", limbMajor(pubs), n, 9, false)
			for i := range pubs {
				got := make([]byte, 32)
				getValue(got, out, n, i)
				require.Equal(t, uint32(1), out[8*n+i], "decoded %d", i)
				require.Equal(t, pubs[i], got, "re-encoded %d", i)
			}
		})
	}
}

// p25519 is 2^255 − 19.
var p25519 = new(big.Int).Sub(scalarPowerOfTwo(255), big.NewInt(19))

// fieldValue is element k of the limb-major rows words (8 rows of n) as
// an integer, starting at row.
func fieldValue(words []uint32, n, row, k int) *big.Int {
	b := make([]byte, 32)
	getValue(b, words[row*n:], n, k)
	return scalarFromLittleEndian(b)
}

// The field's operations (fe25519.h, the form every kernel decodes and
// encodes with) against math/big, on values below 2^255.
func TestKernelStepsField(t *testing.T) {
	d := devicetest.Device(t)
	r := rand.New(rand.NewPCG(9, 10))
	const n = 256
	as, bs := make([][]byte, n), make([][]byte, n)
	for i := range n {
		as[i], bs[i] = make([]byte, 32), make([]byte, 32)
		for j := range 32 {
			as[i][j], bs[i][j] = byte(r.Uint32()), byte(r.Uint32())
		}
		as[i][31] &= 0x7f
		bs[i][31] &= 0x7f
		switch i {
		case 0: // p − 1 and p + 1 (loosely reduced)
			as[i] = scalarLittleEndian(new(big.Int).Sub(p25519, big.NewInt(1)), 32)
			bs[i] = scalarLittleEndian(new(big.Int).Add(p25519, big.NewInt(1)), 32)
		case 1:
			as[i] = scalarLittleEndian(big.NewInt(1), 32)
			bs[i] = scalarLittleEndian(big.NewInt(0), 32)
		}
	}
	out := runSteps(t, d, map[string]string{}, "steps_field", append(limbMajor(as), limbMajor(bs)...), n, 48, false)
	exp := new(big.Int).Rsh(new(big.Int).Sub(p25519, big.NewInt(5)), 3)
	for i := range n {
		a, b := scalarFromLittleEndian(as[i]), scalarFromLittleEndian(bs[i])
		want := []*big.Int{
			new(big.Int).Mul(a, b),
			new(big.Int).Mul(a, a),
			new(big.Int).Exp(a, new(big.Int).Sub(p25519, big.NewInt(2)), p25519),
			new(big.Int).Exp(a, exp, p25519),
			new(big.Int).Add(a, b),
			new(big.Int).Sub(a, b),
		}
		for k, name := range []string{"mul", "sqr", "invert", "pow_p58", "add", "sub"} {
			want[k].Mod(want[k], p25519)
			require.Equal(t, want[k].String(), fieldValue(out, n, 8*k, i).String(), "%s of element %d", name, i)
		}
	}
}

// The comb's sum [s]B as a completed point, encoded here: a wrong key
// with a right point here is the kernel's encoding at fault.
func TestKernelStepsCompleted(t *testing.T) {
	d := devicetest.Device(t)
	r := rand.New(rand.NewPCG(11, 12))
	const n = 64
	seeds, scalars := make([][]byte, n), make([][]byte, n)
	for i := range seeds {
		seeds[i] = make([]byte, 32)
		for j := range seeds[i] {
			seeds[i][j] = byte(r.Uint32())
		}
		scalars[i] = clampedScalar(seeds[i])
	}
	for name, defines := range map[string]map[string]string{"limbs": {}, "fp64": {"ED25519_FP64": "1"}} {
		t.Run(name, func(t *testing.T) {
			out := runSteps(t, d, defines, "steps_completed", limbMajor(scalars), n, 32, true)
			for i, seed := range seeds {
				e, f, g, h := fieldValue(out, n, 0, i), fieldValue(out, n, 8, i), fieldValue(out, n, 16, i), fieldValue(out, n, 24, i)
				require.NotZero(t, f.Sign(), "F of %d", i)
				require.NotZero(t, g.Sign(), "G of %d", i)
				x := new(big.Int).Mul(e, new(big.Int).ModInverse(g, p25519))
				x.Mod(x, p25519)
				y := new(big.Int).Mul(h, new(big.Int).ModInverse(f, p25519))
				y.Mod(y, p25519)
				enc := scalarLittleEndian(y, 32)
				enc[31] |= byte(x.Bit(0)) << 7
				require.Equal(t, []byte(stded25519.NewKeyFromSeed(seed)[32:]), enc, "[s]B of seed %d", i)
			}
		})
	}
}
