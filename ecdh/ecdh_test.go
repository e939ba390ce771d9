package ecdh_test

import (
	"bytes"
	stdecdh "crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

var (
	engineOnce *ecdh.Engine
)

func engine(t testing.TB) *ecdh.Engine {
	t.Helper()
	d := devicetest.Device(t)
	if engineOnce == nil {
		e, err := ecdh.NewEngine(d)
		require.NoError(t, err)
		e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
		e.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU's speed
		e.SetBatchInversion(0)        // per element at every size (the default rule depends on the size)
		engineOnce = e
	}
	return engineOnce
}

func unhex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// backends are checked side by side: the device engine (inverting per
// element and in groups of testK) and the CPU path.
func backends(t *testing.T) map[string]ecdh.Backend {
	return map[string]ecdh.Backend{"device": engine(t), "device-binv": binvEngine(t, testK), "cpu": ecdh.CPUEngine()}
}

func one(t *testing.T, b ecdh.Backend, c ecdh.Curve, k, u []byte) []byte {
	t.Helper()
	out, err := b.SharedSecrets(c, [][]byte{k}, [][]byte{u})
	require.NoError(t, err)
	return out[0]
}

func TestRFC7748(t *testing.T) {
	v25519, v448, err := testvectors.RFC7748()
	require.NoError(t, err)
	vecs := map[ecdh.Curve]testvectors.RFC7748Curve{ecdh.X25519(): v25519, ecdh.X448(): v448}
	for name, b := range backends(t) {
		for _, c := range ecdh.Curves() {
			v := vecs[c]
			t.Run(fmt.Sprintf("%s/%s", name, c), func(t *testing.T) {
				require.Len(t, v.Single, 2)
				for _, s := range v.Single { // §5.2
					require.Equal(t, s.Output, hex.EncodeToString(one(t, b, c, unhex(t, s.Scalar), unhex(t, s.U))))
				}
				// §5.2 iterations: k = X(k, u), u = old k
				k := unhex(t, v.Iterated.Initial)
				u := bytes.Clone(k)
				want := map[int]string{}
				for _, r := range v.Iterated.Results {
					want[r.Iterations] = r.K
				}
				// (the device's million, one call per iteration, would take
				// hours: TestRFC7748IteratedMillion runs it in few launches)
				limit := 1000
				if os.Getenv(envMillion) == "1" && name == "cpu" {
					limit = 1000000
				}
				for i := 1; i <= limit; i++ {
					k, u = one(t, b, c, k, u), k
					if w, ok := want[i]; ok {
						require.Equal(t, w, hex.EncodeToString(k), "after %d iterations", i)
					}
				}
				dh := v.DH61
				if c == ecdh.X448() {
					dh = v.DH62
				}
				require.NotNil(t, dh)
				pubs, err := b.PublicKeys(c, [][]byte{unhex(t, dh.AlicePrivate), unhex(t, dh.BobPrivate)})
				require.NoError(t, err)
				require.Equal(t, dh.AlicePublic, hex.EncodeToString(pubs[0]))
				require.Equal(t, dh.BobPublic, hex.EncodeToString(pubs[1]))
				ss, err := b.SharedSecrets(c, [][]byte{unhex(t, dh.AlicePrivate), unhex(t, dh.BobPrivate)},
					[][]byte{unhex(t, dh.BobPublic), unhex(t, dh.AlicePublic)})
				require.NoError(t, err)
				require.Equal(t, dh.Shared, hex.EncodeToString(ss[0]))
				require.Equal(t, dh.Shared, hex.EncodeToString(ss[1]))
			})
		}
	}
}

func TestWycheproof(t *testing.T) {
	files := map[ecdh.Curve]string{ecdh.X25519(): "x25519_test.json", ecdh.X448(): "x448_test.json"}
	for name, b := range backends(t) {
		for _, c := range ecdh.Curves() {
			t.Run(fmt.Sprintf("%s/%s", name, c), func(t *testing.T) {
				cases, err := testvectors.WycheproofXDH(files[c])
				require.NoError(t, err)
				require.Greater(t, len(cases), 500)
				var privs, pubs [][]byte
				for _, tc := range cases {
					privs = append(privs, unhex(t, tc.Private))
					pubs = append(pubs, unhex(t, tc.Public))
				}
				// The whole file as one batch: per-element errors must not leak.
				out, err := b.SharedSecrets(c, privs, pubs)
				var be *batch.Error
				if err != nil {
					require.True(t, errors.As(err, &be), "unexpected batch-level error %v", err)
				}
				elemErr := func(i int) error {
					if be == nil {
						return nil
					}
					return be.Errs[i]
				}
				counts := map[string]int{}
				for i, tc := range cases {
					e := elemErr(i)
					switch {
					case tc.Result == "invalid":
						require.Error(t, e, "tcId %d (%s) must be rejected", tc.TcID, tc.Comment)
						require.Nil(t, out[i])
					case tc.HasFlag("ZeroSharedSecret"):
						require.ErrorIs(t, e, ecdh.ErrLowOrder, "tcId %d", tc.TcID)
						require.Equal(t, make([]byte, c.Size()), unhex(t, tc.Shared))
					default: // valid and acceptable non-zero results must match
						require.NoError(t, e, "tcId %d (%s %v)", tc.TcID, tc.Comment, tc.Flags)
						require.Equal(t, tc.Shared, hex.EncodeToString(out[i]), "tcId %d (%s %v)", tc.TcID, tc.Comment, tc.Flags)
					}
					counts[tc.Result]++
				}
				t.Logf("%d cases: %v", len(cases), counts)
			})
		}
	}
}

func TestDifferential(t *testing.T) {
	e := engine(t)
	sizes := []int{1, 3, 1000, 4096}
	if devicetest.Short(e.Device()) {
		sizes = []int{1, 3, 1000}
	}
	for _, c := range ecdh.Curves() {
		for _, n := range sizes {
			t.Run(fmt.Sprintf("%s/%d", c, n), func(t *testing.T) {
				privs, peers := make([][]byte, n), make([][]byte, n)
				edge := ecdh.EdgeU(c)
				for i := range n {
					privs[i] = make([]byte, c.Size())
					rand.Read(privs[i])
					if i%97 == 5 { // scalars with extreme bit patterns
						for j := range privs[i] {
							privs[i][j] = 0xff * byte(i%2)
						}
					}
					if i < len(edge) {
						peers[i] = edge[i]
					} else {
						peers[i] = make([]byte, c.Size())
						rand.Read(peers[i])
					}
				}
				got, gerr := e.SharedSecrets(c, privs, peers)
				want, werr := ecdh.CPUEngine().SharedSecrets(c, privs, peers)
				requireSameErrors(t, werr, gerr, n)
				for i := range n {
					require.Equal(t, want[i], got[i], "element %d: priv %x peer %x", i, privs[i], peers[i])
				}
				gp, err := e.PublicKeys(c, privs)
				require.NoError(t, err)
				wp, err := ecdh.CPUEngine().PublicKeys(c, privs)
				require.NoError(t, err)
				require.Equal(t, wp, gp)
			})
		}
	}
}

func requireSameErrors(t *testing.T, want, got error, n int) {
	t.Helper()
	if want == nil {
		require.NoError(t, got)
		return
	}
	var we, ge *batch.Error
	require.True(t, errors.As(want, &we))
	require.True(t, errors.As(got, &ge), "device gave %v, CPU gave %v", got, want)
	for i := range n {
		if we.Errs[i] == nil {
			require.NoError(t, ge.Errs[i], "element %d", i)
		} else {
			require.ErrorIs(t, ge.Errs[i], ecdh.ErrLowOrder, "element %d: CPU said %v", i, we.Errs[i])
		}
	}
}

func TestBadInput(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			good := make([]byte, 32)
			rand.Read(good)
			pub, err := b.PublicKeys(ecdh.X25519(), [][]byte{good})
			require.NoError(t, err)
			out, err := b.SharedSecrets(ecdh.X25519(),
				[][]byte{good, good[:31], nil, good, good},
				[][]byte{pub[0], pub[0], pub[0], append(bytes.Clone(pub[0]), 0), nil})
			var be *batch.Error
			require.True(t, errors.As(err, &be), "%v", err)
			require.Equal(t, 4, be.Failed())
			require.NoError(t, be.Errs[0])
			require.NotNil(t, out[0])
			for i := 1; i < 5; i++ {
				require.ErrorIs(t, be.Errs[i], ecdh.ErrKeyLength, "element %d", i)
				require.Nil(t, out[i])
			}
			_, err = b.SharedSecrets(ecdh.X25519(), [][]byte{good, good}, [][]byte{pub[0]})
			require.ErrorContains(t, err, "2 private keys but 1 peer keys")
			_, err = b.PublicKeys(nil, [][]byte{good})
			require.ErrorContains(t, err, "nil curve")
			_, err = b.SharedSecrets(nil, [][]byte{good}, [][]byte{good})
			require.ErrorContains(t, err, "nil curve")
			_, err = b.PublicKeys(ecdh.X448(), [][]byte{good})
			require.ErrorIs(t, err, ecdh.ErrKeyLength)
			out, err = b.PublicKeys(ecdh.X448(), nil)
			require.NoError(t, err)
			require.Empty(t, out)
		})
	}
}

// The CPU backend's X25519 (circl) against Go's crypto/ecdh: random
// scalars and peers, scalars of extreme bit patterns, and the edge points
// (low order, non-canonical, top bit set). A low-order result is an error
// in both.
func TestCPUX25519AgainstStd(t *testing.T) {
	const n = 500
	edge := ecdh.EdgeU(ecdh.X25519())
	privs, peers := make([][]byte, n), make([][]byte, n)
	for i := range n {
		privs[i], peers[i] = make([]byte, 32), make([]byte, 32)
		rand.Read(privs[i])
		rand.Read(peers[i])
		if i%7 == 3 {
			for j := range privs[i] {
				privs[i][j] = 0xff * byte(i%2)
			}
		}
		if i < len(edge) {
			peers[i] = edge[i]
		}
	}
	got, gerr := ecdh.CPUEngine().SharedSecrets(ecdh.X25519(), privs, peers)
	var ge *batch.Error
	if gerr != nil {
		require.True(t, errors.As(gerr, &ge), "%v", gerr)
	}
	pubs, err := ecdh.CPUEngine().PublicKeys(ecdh.X25519(), privs)
	require.NoError(t, err)
	lowOrder := 0
	for i := range n {
		k, err := stdecdh.X25519().NewPrivateKey(privs[i])
		require.NoError(t, err)
		require.Equal(t, k.PublicKey().Bytes(), pubs[i], "public key %d", i)
		p, err := stdecdh.X25519().NewPublicKey(peers[i])
		require.NoError(t, err)
		want, werr := k.ECDH(p)
		if werr != nil {
			lowOrder++
			require.NotNil(t, ge, "element %d: crypto/ecdh failed (%v), CPU did not", i, werr)
			require.ErrorIs(t, ge.Errs[i], ecdh.ErrLowOrder, "element %d", i)
			continue
		}
		if ge != nil {
			require.NoError(t, ge.Errs[i], "element %d", i)
		}
		require.Equal(t, want, got[i], "element %d: priv %x peer %x", i, privs[i], peers[i])
	}
	require.NotZero(t, lowOrder, "the edge points include low-order ones")
}

// The route: RouteCPU computes on the CPU (no device time), RouteDevice
// on the device, RouteAuto where it measured faster; the results are the
// same every way, and Stats counts each path.
func TestRoute(t *testing.T) {
	e, err := ecdh.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	for _, c := range ecdh.Curves() {
		privs, peers := make([][]byte, 3), make([][]byte, 3)
		for i := range privs {
			privs[i], peers[i] = make([]byte, c.Size()), make([]byte, c.Size())
			rand.Read(privs[i])
			rand.Read(peers[i])
		}
		want, err := ecdh.CPUEngine().SharedSecrets(c, privs, peers)
		require.NoError(t, err)
		before := e.Stats()
		e.SetRoute(batch.RouteCPU)
		got, err := e.SharedSecrets(c, privs, peers)
		require.NoError(t, err)
		require.Equal(t, want, got)
		after := e.Stats()
		require.Equal(t, before.DeviceTime, after.DeviceTime)
		require.Equal(t, before.CPUOps+3, after.CPUOps)
		e.SetRoute(batch.RouteDevice)
		got, err = e.SharedSecrets(c, privs, peers)
		require.NoError(t, err)
		require.Equal(t, want, got)
		require.Greater(t, e.Stats().DeviceTime, after.DeviceTime)
		require.Equal(t, after.DeviceOps+3, e.Stats().DeviceOps)
		e.SetRoute(batch.RouteAuto)
		for range 3 {
			got, err = e.SharedSecrets(c, privs, peers)
			require.NoError(t, err)
			require.Equal(t, want, got)
		}
		// bad input is the element's error on the CPU too
		e.SetRoute(batch.RouteCPU)
		_, err = e.SharedSecrets(c, [][]byte{privs[0], privs[1][:5]}, peers[:2])
		var be *batch.Error
		require.ErrorAs(t, err, &be)
		require.NoError(t, be.Errs[0])
		require.ErrorIs(t, be.Errs[1], ecdh.ErrKeyLength)
		e.SetRoute(batch.RouteAuto)
	}
}

// A batch larger than the pipeline chunk runs as chunks two at a time:
// results, low-order peers and malformed elements land at their own index.
func TestPipelinedChunks(t *testing.T) {
	e := engine(t)
	t.Cleanup(ecdh.SetPipelineChunk(7))
	const n = 40
	for _, c := range ecdh.Curves() {
		privs, peers := make([][]byte, n), make([][]byte, n)
		edge := ecdh.EdgeU(c)
		for i := range n {
			privs[i] = make([]byte, c.Size())
			rand.Read(privs[i])
			peers[i] = make([]byte, c.Size())
			rand.Read(peers[i])
			if i%9 == 4 {
				peers[i] = edge[i%len(edge)]
			}
		}
		privs[17] = privs[17][:3] // malformed: fails alone
		got, gerr := e.SharedSecrets(c, privs, peers)
		var ge *batch.Error
		require.ErrorAs(t, gerr, &ge)
		require.Error(t, ge.Errs[17])
		require.Nil(t, got[17])
		for i := range n {
			if i == 17 {
				continue
			}
			want, werr := ecdh.CPUEngine().SharedSecrets(c, privs[i:i+1], peers[i:i+1])
			if werr != nil {
				require.ErrorIs(t, ge.Errs[i], ecdh.ErrLowOrder, "element %d", i)
				continue
			}
			require.NoError(t, ge.Errs[i], "element %d", i)
			require.Equal(t, want[0], got[i], "element %d", i)
		}
		privs[17] = make([]byte, c.Size())
		gp, err := e.PublicKeys(c, privs)
		require.NoError(t, err)
		wp, err := ecdh.CPUEngine().PublicKeys(c, privs)
		require.NoError(t, err)
		require.Equal(t, wp, gp)
	}
}
