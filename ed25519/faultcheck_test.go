package ed25519_test

import (
	"crypto"
	stded25519 "crypto/ed25519"
	"crypto/sha512"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// faultWords are words of the kernel's fault injection
// (ED25519_FAULT_INJECTION, kernels/ed25519.cl): bits of the nonce that
// the first computation of R reads (another point), bits of R's
// encoding (the sign of x, high bits of y), and both.
var faultWords = []uint32{1, 0x8000, 0x0100, 0x80000000, 0x00010000, 0x40000000, 0x00040002}

// faultsEvery corrupts every seventh element of a call, from the fourth,
// with the words of faultWords in turn.
func faultsEvery(i int) uint32 {
	if i%7 != 3 {
		return 0
	}
	return faultWords[(i/7)%len(faultWords)]
}

// A fault in the first computation of R (injected for every seventh
// element, in both forms of the kernels, over one batch and over several)
// never reaches a caller: every signature Sign and SignInto return is
// crypto/ed25519's byte for byte, for Ed25519, Ed25519ctx and Ed25519ph,
// and each corrupted element the kernel signed is counted in
// Stats.Faults, once, and no other (the host's own elements, a long
// message and a bad key, carry a fault word the kernel never reads).
func TestFaultCheck(t *testing.T) {
	d := devicetest.Device(t)
	r := rand.New(rand.NewPCG(31, 32))
	for name, defines := range map[string]map[string]string{"limbs": {}, "fp64": {"ED25519_FP64": "1"}} {
		t.Run(name, func(t *testing.T) {
			defines = maps.Clone(defines)
			defines["ED25519_FAULT_INJECTION"] = ""
			restore := ed25519.WithProgramDefines(defines)
			e, err := ed25519.NewEngine(d)
			restore()
			require.NoError(t, err)
			defer e.Close()
			e.OnFallback(func(err error) { t.Errorf("fallback: %v", err) })
			e.SetRoute(batch.RouteDevice)
			e.InjectFaults(faultsEvery)

			const n, long, badKey = 150, 10, 17 // faultsEvery corrupts both
			keys, msgs, hashed, out := make([]stded25519.PrivateKey, n), make([][]byte, n), make([][]byte, n), make([][]byte, n)
			injected := 0
			for i := range n {
				keys[i] = stded25519.NewKeyFromSeed(randomBytes(r, 32))
				msgs[i] = randomBytes(r, r.IntN(200))
				h := sha512.Sum512(msgs[i])
				hashed[i] = h[:]
				out[i] = make([]byte, ed25519.SignatureSize)
				if faultsEvery(i) != 0 && i != long && i != badKey {
					injected++
				}
			}
			msgs[long] = randomBytes(r, ed25519.DeviceMessageMax+1)
			keys[badKey] = keys[badKey][:63]
			for _, batches := range []int{n, 37} {
				restore := ed25519.WithBatches(batches, 1<<20)
				for _, opts := range []*stded25519.Options{nil, {Context: "ctx"}, {Hash: crypto.SHA512}} {
					in := msgs
					if opts != nil && opts.Hash == crypto.SHA512 {
						in = hashed
						in[long] = msgs[long][:10] // Ed25519ph takes 64 bytes: an error, the host's
					}
					want := func(i int) []byte {
						sig, err := keys[i].Sign(nil, in[i], optsOrPlain(opts))
						require.NoError(t, err)
						return sig
					}
					expectErrs := func(err error) {
						var be *batch.Error
						require.ErrorAs(t, err, &be)
						require.ErrorIs(t, be.Errs[badKey], ed25519.ErrKeyLength)
					}
					before := e.Stats().Faults
					sigs, err := e.Sign(keys, in, opts)
					expectErrs(err)
					require.Equal(t, int64(injected), e.Stats().Faults-before, "batches of %d, %+v: Sign's faults", batches, opts)
					before = e.Stats().Faults
					expectErrs(e.SignInto(keys, in, out, opts))
					require.Equal(t, int64(injected), e.Stats().Faults-before, "batches of %d, %+v: SignInto's faults", batches, opts)
					for i := range n {
						if i == badKey || opts != nil && opts.Hash == crypto.SHA512 && i == long {
							continue
						}
						require.Equal(t, want(i), sigs[i], "batches of %d, %+v: Sign, element %d (fault %#x)", batches, opts, i, faultsEvery(i))
						require.Equal(t, want(i), out[i], "batches of %d, %+v: SignInto, element %d (fault %#x)", batches, opts, i, faultsEvery(i))
					}
				}
				restore()
			}
		})
	}
}
