package ecdh

// Tests of the experimental multi-lane ladder (mt.go, kernels/ladder_mt.h)
// on the OpenCL device: RFC 7748 vectors, Wycheproof as one batch, and a
// randomized differential test against the CPU (crypto/ecdh, circl) and
// the Engine's one-work-item kernel, at batch sizes that are not whole
// work-groups, with low-order peers at several positions.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/cl"
	"github.com/gpucrypto/gpucrypto/internal/cltest"
	"github.com/gpucrypto/gpucrypto/kernels"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

var (
	mtMu      sync.Mutex
	mtLadders = map[string]*mtLadder{}
	mtEngines = map[int]*Engine{}
)

// mtTestBinv is the batch inversion group size the tests use besides
// per-element inversion.
const mtTestBinv = 8

// mtGet returns the multi-lane ladder of c with lanes per operation on the
// test device, built once per test binary.
func mtGet(tb testing.TB, c Curve, lanes int) *mtLadder {
	tb.Helper()
	d := cltest.Device(tb)
	mtMu.Lock()
	defer mtMu.Unlock()
	key := fmt.Sprintf("%v/%d", c, lanes)
	if m, ok := mtLadders[key]; ok {
		return m
	}
	m, err := newMTLadder(d, c, lanes)
	require.NoError(tb, err)
	mtLadders[key] = m
	return m
}

// mtOneLane returns an Engine (the one-work-item kernels) on the test
// device with batch inversion in groups of binv (0: per element), set
// explicitly so that BenchmarkMT compares like with like.
func mtOneLane(tb testing.TB, binv int) *Engine {
	tb.Helper()
	d := cltest.Device(tb)
	mtMu.Lock()
	defer mtMu.Unlock()
	if e, ok := mtEngines[binv]; ok {
		return e
	}
	e, err := NewEngine(d)
	require.NoError(tb, err)
	e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
	e.SetBatchInversion(binv)
	mtEngines[binv] = e
	return e
}

// mtCases runs f for each curve and lane count as a subtest.
func mtCases(t *testing.T, f func(t *testing.T, c Curve, m *mtLadder)) {
	for _, c := range Curves {
		for _, lanes := range mtLaneCounts {
			t.Run(fmt.Sprintf("%s/lanes=%d", c, lanes), func(t *testing.T) {
				f(t, c, mtGet(t, c, lanes))
			})
		}
	}
}

// mtBinvCases runs f for each curve, lane count and inversion (per
// element, in groups of mtTestBinv) as a subtest.
func mtBinvCases(t *testing.T, f func(t *testing.T, c Curve, m *mtLadder, binv int)) {
	mtCases(t, func(t *testing.T, c Curve, m *mtLadder) {
		for _, binv := range []int{0, mtTestBinv} {
			t.Run(fmt.Sprintf("binv=%d", binv), func(t *testing.T) { f(t, c, m, binv) })
		}
	})
}

func mtHex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(tb, err)
	return b
}

func mtOne(tb testing.TB, m *mtLadder, k, u []byte) []byte {
	tb.Helper()
	out, _, err := m.sharedSecrets([][]byte{k}, [][]byte{u}, 0)
	require.NoError(tb, err)
	return out[0]
}

func TestMTRFC7748(t *testing.T) {
	v25519, v448, err := testvectors.RFC7748()
	require.NoError(t, err)
	vecs := map[Curve]testvectors.RFC7748Curve{X25519: v25519, X448: v448}
	mtCases(t, func(t *testing.T, c Curve, m *mtLadder) {
		v := vecs[c]
		require.Len(t, v.Single, 2)
		for _, s := range v.Single { // §5.2
			require.Equal(t, s.Output, hex.EncodeToString(mtOne(t, m, mtHex(t, s.Scalar), mtHex(t, s.U))))
		}
		// §5.2 iterations, k = X(k, u), u = old k: 1 and 1000 (1000 only
		// on GPUs or with GPUCRYPTO_FULL=1: a launch per iteration)
		limit := 1000
		if cltest.Short(m.dev) {
			limit = 1
		}
		k := mtHex(t, v.Iterated.Initial)
		u := append([]byte(nil), k...)
		want := map[int]string{}
		for _, r := range v.Iterated.Results {
			want[r.Iterations] = r.K
		}
		for i := 1; i <= limit; i++ {
			k, u = mtOne(t, m, k, u), k
			if w, ok := want[i]; ok {
				require.Equal(t, w, hex.EncodeToString(k), "after %d iterations", i)
			}
		}
		// §6: both directions in one batch
		dh := v.DH61
		if c == X448 {
			dh = v.DH62
		}
		require.NotNil(t, dh)
		ss, _, err := m.sharedSecrets([][]byte{mtHex(t, dh.AlicePrivate), mtHex(t, dh.BobPrivate)},
			[][]byte{mtHex(t, dh.BobPublic), mtHex(t, dh.AlicePublic)}, 0)
		require.NoError(t, err)
		require.Equal(t, dh.Shared, hex.EncodeToString(ss[0]))
		require.Equal(t, dh.Shared, hex.EncodeToString(ss[1]))
	})
}

// TestMTWycheproof runs each Wycheproof XDH file as one batch: twist
// points, non-canonical u, low-order points (all-zero secrets), edge
// scalars.
func TestMTWycheproof(t *testing.T) {
	files := map[Curve]string{X25519: "x25519_test.json", X448: "x448_test.json"}
	mtBinvCases(t, func(t *testing.T, c Curve, m *mtLadder, binv int) {
		cases, err := testvectors.WycheproofXDH(files[c])
		require.NoError(t, err)
		var privs, pubs [][]byte
		for _, tc := range cases {
			privs = append(privs, mtHex(t, tc.Private))
			pubs = append(pubs, mtHex(t, tc.Public))
		}
		out, _, err := m.sharedSecrets(privs, pubs, binv)
		var be *batch.Error
		if err != nil {
			require.True(t, errors.As(err, &be), "unexpected batch-level error %v", err)
		}
		zeros := 0
		for i, tc := range cases {
			var e error
			if be != nil {
				e = be.Errs[i]
			}
			switch {
			case tc.Result == "invalid":
				require.Error(t, e, "tcId %d (%s) must be rejected", tc.TcID, tc.Comment)
			case tc.HasFlag("ZeroSharedSecret"):
				require.ErrorIs(t, e, ErrLowOrder, "tcId %d", tc.TcID)
				zeros++
			default:
				require.NoError(t, e, "tcId %d (%s %v)", tc.TcID, tc.Comment, tc.Flags)
				require.Equal(t, tc.Shared, hex.EncodeToString(out[i]), "tcId %d (%s %v)", tc.TcID, tc.Comment, tc.Flags)
			}
		}
		require.NotZero(t, zeros)
		t.Logf("%d cases, %d all-zero", len(cases), zeros)
	})
}

// mtLowOrderU are u-coordinates of small order: every clamped scalar
// sends them to the point at infinity, whose u the kernels return as 0.
func mtLowOrderU(c Curve) [][]byte {
	edge := edgeU(c)
	low := [][]byte{edge[0], edge[1], edge[2], edge[3], edge[4]} // 0, 1, p−1, p ≡ 0, p+1 ≡ 1
	if c == X25519 {
		low = append(low, edge[7:]...)
	}
	return low
}

// mtBatch is a random batch of n with extreme scalars, the edge and
// low-order u-coordinates spread over it (first, last, middle, inside and
// across work-group boundaries) and, when lengths is set, a few keys of the
// wrong length.
func mtBatch(c Curve, n int, lengths bool) (privs, peers [][]byte, low []bool) {
	privs, peers, low = make([][]byte, n), make([][]byte, n), make([]bool, n)
	edge, lowU := edgeU(c), mtLowOrderU(c)
	for i := range n {
		privs[i] = make([]byte, c.Size())
		rand.Read(privs[i])
		if i%97 == 5 { // all-zero and all-ones scalars (clamped by the host)
			for j := range privs[i] {
				privs[i][j] = 0xff * byte(i%2)
			}
		}
		peers[i] = make([]byte, c.Size())
		rand.Read(peers[i])
		switch {
		case i == 0 || i == n-1 || i == n/2 || i%31 == 7:
			peers[i] = lowU[i%len(lowU)]
			low[i] = true
		case i%13 == 3:
			peers[i] = edge[i%len(edge)]
		}
	}
	if lengths && n > 10 {
		privs[9] = privs[9][:c.Size()-1]
		peers[10] = append(append([]byte(nil), peers[10]...), 0)
	}
	return
}

// TestMTDifferential holds the multi-lane kernel to the CPU and to the
// one-work-item kernel at batch sizes 1, 3 and 1000 (none a multiple of a
// work-group's elements), with low-order peers, edge u and bad lengths,
// inverting per element and in groups.
func TestMTDifferential(t *testing.T) {
	e := mtOneLane(t, 0)
	sizes := []int{1, 3, 1000}
	if !cltest.Short(e.Device()) {
		sizes = append(sizes, 4097)
	}
	mtBinvCases(t, func(t *testing.T, c Curve, m *mtLadder, binv int) {
		for _, n := range sizes {
			t.Run(fmt.Sprint(n), func(t *testing.T) {
				privs, peers, low := mtBatch(c, n, true)
				got, dur, gerr := m.sharedSecrets(privs, peers, binv)
				want, werr := CPU{}.SharedSecrets(c, privs, peers)
				one, oerr := e.SharedSecrets(c, privs, peers)
				require.Positive(t, dur)
				for _, w := range []error{werr, oerr} {
					var ge, we *batch.Error
					require.True(t, errors.As(gerr, &ge), "%v", gerr)
					require.True(t, errors.As(w, &we), "%v", w)
					for i := range n {
						if we.Errs[i] == nil {
							require.NoError(t, ge.Errs[i], "element %d", i)
						} else if errors.Is(we.Errs[i], ErrKeyLength) {
							require.ErrorIs(t, ge.Errs[i], ErrKeyLength, "element %d", i)
						} else {
							require.ErrorIs(t, ge.Errs[i], ErrLowOrder, "element %d: the reference said %v", i, we.Errs[i])
						}
					}
				}
				for i := range n {
					require.Equal(t, want[i], got[i], "element %d: priv %x peer %x", i, privs[i], peers[i])
					require.Equal(t, one[i], got[i], "element %d", i)
					if low[i] {
						require.Nil(t, got[i], "element %d: low-order peer", i)
					}
				}
			})
		}
	})
}

// TestMTLowOrderZero checks the kernels' own output for low-order peers:
// all-zero limbs, next to correct neighbours, in a batch that ends inside
// a work-group (and, with batch inversion, in groups of two elements with
// one zero each).
func TestMTLowOrderZero(t *testing.T) {
	mtBinvCases(t, func(t *testing.T, c Curve, m *mtLadder, binv int) {
		lowU := mtLowOrderU(c)
		n := 2*len(lowU) + 1
		L := c.limbs()
		scal, us := make([]uint32, L*n), make([]uint32, L*n)
		privs, peers := make([][]byte, n), make([][]byte, n)
		tmp := make([]uint32, L)
		for i := range n {
			privs[i] = make([]byte, c.Size())
			rand.Read(privs[i])
			peers[i] = make([]byte, c.Size())
			rand.Read(peers[i])
			if i%2 == 0 && i/2 < len(lowU) {
				peers[i] = lowU[i/2]
			}
			decode(c, privs[i], tmp, true)
			for j := range L {
				scal[j*n+i] = tmp[j]
			}
			decode(c, peers[i], tmp, false)
			for j := range L {
				us[j*n+i] = tmp[j]
			}
		}
		res, _, err := m.run(scal, us, n, binv)
		require.NoError(t, err)
		want, _ := CPU{}.SharedSecrets(c, privs, peers)
		for i := range n {
			v := make([]byte, c.Size())
			for j := range L {
				tmp[j] = res[j*n+i]
			}
			limbsLE(tmp, v)
			if i%2 == 0 && i/2 < len(lowU) {
				require.Equal(t, make([]byte, c.Size()), v, "element %d (u %x)", i, peers[i])
				require.Nil(t, want[i])
			} else {
				require.Equal(t, want[i], v, "element %d", i)
			}
		}
	})
}

func TestMTBadInput(t *testing.T) {
	m := mtGet(t, X25519, 2)
	_, _, err := m.sharedSecrets([][]byte{make([]byte, 32)}, nil, 0)
	require.ErrorContains(t, err, "1 private keys but 0 peer keys")
	out, _, err := m.sharedSecrets([][]byte{make([]byte, 31)}, [][]byte{make([]byte, 32)}, 0)
	require.ErrorIs(t, err, ErrKeyLength)
	require.Nil(t, out[0])
	out, _, err = m.sharedSecrets(nil, nil, 0)
	require.NoError(t, err)
	require.Empty(t, out)
	_, err = newMTLadder(m.dev, X25519, 3)
	require.ErrorContains(t, err, "want 2 or 4")
	_, _, err = m.run(nil, nil, 0, 0)
	require.Error(t, err)
}

// TestMTKernelInfo logs what the compiler reports about the multi-lane
// kernels next to the one-work-item kernel: private memory per work-item
// and, on NVIDIA (-cl-nv-verbose), registers and spills. Set
// GPUCRYPTO_NO_CACHE=1 so that the NVIDIA compiler runs (a cached binary
// brings no ptxas report).
func TestMTKernelInfo(t *testing.T) {
	d := cltest.Device(t)
	var flags []string
	if d.Class == cl.VendorNVIDIA {
		flags = []string{"-cl-nv-verbose"}
	}
	for _, c := range Curves {
		for _, lanes := range append([]int{1}, mtLaneCounts...) {
			var p *cl.Program
			name := curveName(c)
			if lanes == 1 {
				src, err := kernels.Source(kernelFile(c))
				require.NoError(t, err)
				p, err = d.Build(src, cl.BuildOptions{Flags: flags})
				require.NoError(t, err)
			} else {
				m, err := newMTLadder(d, c, lanes, flags...)
				require.NoError(t, err)
				p, name = m.prog, name+"_mt"
			}
			k, err := p.Kernel(name)
			require.NoError(t, err)
			wg, priv, err := k.WorkGroupInfo()
			require.NoError(t, err)
			// ptxas reports "Compiling entry function 'name'", then its
			// stack, spills and registers
			var info []string
			cur := ""
			for _, line := range strings.Split(p.BuildLog(), "\n") {
				if strings.Contains(line, "entry function") {
					cur = line
				} else if strings.Contains(cur, "'"+name+"'") && (strings.Contains(line, "registers") || strings.Contains(line, "spill")) {
					info = append(info, strings.TrimSpace(line))
				}
			}
			t.Logf("%s lanes=%d: kernel %s, max work-group %d, private memory %d bytes/work-item %s",
				c, lanes, name, wg, priv, strings.Join(info, " | "))
		}
	}
	if os.Getenv("GPUCRYPTO_NO_CACHE") != "1" && d.Class == cl.VendorNVIDIA {
		t.Log("(no register counts above? run with GPUCRYPTO_NO_CACHE=1)")
	}
}
