//go:build go1.26

package mlkem_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/mlkem"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// kernelForms are the forms of the kernels by name: the default (each
// element samples Â as it multiplies) and MLKEM_MATRIX (a kernel samples
// each key's Â, the others read it).
var kernelForms = []struct {
	name    string
	defines map[string]string
}{{"stream", map[string]string{}}, {"matrix", map[string]string{"MLKEM_MATRIX": "1"}}}

// formEngine is a device engine of the kernels' form defines, routed to
// the device, whose fallbacks fail the test.
func formEngine(t testing.TB, defines map[string]string) *mlkem.Engine {
	restore := mlkem.WithProgramDefines(defines)
	e, err := mlkem.NewEngine(devicetest.Device(t))
	restore()
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice)
	e.OnFallback(func(err error) { t.Errorf("fallback: %v", err) })
	return e
}

// Both forms of the kernels give crypto/mlkem's results on random and
// corrupted inputs, with keys shared by runs of elements across batches,
// the reference's expanded keys, and C2SP's strcmp and unlucky vectors'
// shared keys.
func TestKernelForms(t *testing.T) {
	for _, form := range kernelForms {
		t.Run(form.name, func(t *testing.T) {
			e := formEngine(t, form.defines)
			defer e.Close()
			for _, s := range sets {
				differential(t, e, s, rand.New(rand.NewPCG(31, uint64(s.ctSize))), 12)
				restore := mlkem.WithBatches(5)
				seed := randomBytes(rand.New(rand.NewPCG(32, 33)), mlkem.SeedSize)
				eks, err := s.keyGen(e, [][]byte{seed})
				require.NoError(t, err)
				seeds, keys := make([][]byte, 12), make([][]byte, 12)
				for i := range seeds {
					seeds[i], keys[i] = seed, eks[0]
				}
				shared, cts, err := s.encapsulate(e, keys)
				require.NoError(t, err)
				back, err := s.decapsulate(e, seeds, cts)
				require.NoError(t, err)
				require.Equal(t, shared, back, s.name)
				restore()
				expanded, err := mlkem.ExpandOnDevice(e, s.name, [][]byte{seed})
				require.NoError(t, err)
				_, dk := keyGenRef(refOf(s), seed, false)
				require.Equal(t, dk, expanded[0], s.name)
				for _, file := range []string{"strcmp/", "unluckysample/"} {
					values, err := testvectors.CCTVMLKEMValues(file + s.name + ".txt")
					require.NoError(t, err)
					dk, c := unhex(t, valueOf(t, values, "dk")), unhex(t, valueOf(t, values, "c"))
					got, err := mlkem.DecapsulateExpandedOnDevice(e, s.name, [][]byte{dk}, [][]byte{c})
					require.NoError(t, err)
					require.Equal(t, unhex(t, valueOf(t, values, "K")), got[0], file+s.name)
				}
			}
		})
	}
}
