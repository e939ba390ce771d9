package ed25519

import (
	"bytes"
	stded25519 "crypto/ed25519"
	"crypto/sha512"
	"embed"
	"encoding/binary"
	"io/fs"
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
				s := bytes.Clone(h[:32])
				s[0] &= 248
				s[31] = s[31]&127 | 64
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
