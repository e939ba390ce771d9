package ed25519_test

import (
	stded25519 "crypto/ed25519"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// Both forms of the kernels (32-bit limbs; the point formulas on doubles,
// the default on GPUs with fast fp64) give crypto/ed25519's signatures,
// keys and verdicts, the 768 edge cases included.
func TestKernelForms(t *testing.T) {
	d := devicetest.Device(t)
	vectors, err := testvectors.Ed25519Vectors()
	require.NoError(t, err)
	for name, defines := range map[string]map[string]string{"limbs": {}, "fp64": {"ED25519_FP64": "1"}} {
		t.Run(name, func(t *testing.T) {
			restore := ed25519.WithProgramDefines(defines)
			e, err := ed25519.NewEngine(d)
			restore()
			require.NoError(t, err)
			defer e.Close()
			e.OnFallback(func(err error) { t.Errorf("fallback: %v", err) })
			e.SetRoute(batch.RouteDevice)
			differential(t, e, rand.New(rand.NewPCG(5, 6)), 200, 300, nil)
			var pubs []stded25519.PublicKey
			var msgs, sigs [][]byte
			for _, v := range vectors {
				pubs, msgs, sigs = append(pubs, v.A), append(msgs, v.Msg), append(sigs, v.Sig)
			}
			got, err := e.Verify(pubs, msgs, sigs, nil)
			require.NoError(t, err)
			for i, v := range vectors {
				require.Equal(t, stded25519.Verify(v.A, v.Msg, v.Sig), got[i], "case %d %v", v.Index, v.Flags)
			}
		})
	}
}
