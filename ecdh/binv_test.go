package ecdh_test

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// Batch inversion (Engine.SetBatchInversion, kernels/batch_invert.h): the
// ladder and comb kernels leave (X, Z) and one kernel inverts a group of Z
// at a time. These tests hold it to the per-element path and the CPU, with
// zero denominators (low-order peers, the X448 comb's neutral element) at
// every position of a group.

// testK is the group size of the batch-inversion tests.
const testK = 8

var binvEngines = map[int]*ecdh.Engine{}

// binvEngine is an Engine with batch inversion in groups of k. It shares
// the programs of engine(t) (the device keeps built programs), so it costs
// no compile.
func binvEngine(t testing.TB, k int) *ecdh.Engine {
	t.Helper()
	d := devicetest.Device(t)
	if e, ok := binvEngines[k]; ok {
		return e
	}
	e, err := ecdh.NewEngine(d)
	require.NoError(t, err)
	e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
	e.SetRoute(batch.RouteDevice)
	e.SetBatchInversion(k)
	binvEngines[k] = e
	return e
}

// groupsOf is the group layout that kernels/batch_invert.h documents: with
// G = ceil(n/k) work-items, group g holds elements g, g + G, g + 2G, ... < n.
func groupsOf(n, k int) [][]int {
	G := (n + k - 1) / k
	out := make([][]int, G)
	for g := range G {
		for i := g; i < n; i += G {
			out[g] = append(out[g], i)
		}
	}
	return out
}

// zeroSlots marks where a test puts zero denominators in a batch of n in
// groups of k: the first element of group 0, the middle element of group 1,
// the last element of the last group, all of group 2 when there are at
// least four groups, and nothing else (so groups 1 and the last one also
// hold correct elements next to a zero).
func zeroSlots(n, k int) []bool {
	z := make([]bool, n)
	gs := groupsOf(n, k)
	z[gs[0][0]] = true
	if len(gs) > 1 {
		z[gs[1][len(gs[1])/2]] = true
	}
	last := gs[len(gs)-1]
	z[last[len(last)-1]] = true
	if len(gs) >= 4 {
		for _, i := range gs[2] {
			z[i] = true
		}
	}
	return z
}

func TestGroupsOf(t *testing.T) {
	for _, k := range []int{1, 2, 3, testK, 16} {
		for n := 1; n <= 70; n++ {
			gs := groupsOf(n, k)
			var all []int
			for _, g := range gs {
				require.NotEmpty(t, g)
				require.LessOrEqual(t, len(g), k, "n %d k %d", n, k)
				require.LessOrEqual(t, len(gs[0])-len(g), 1, "n %d k %d: group sizes differ by more than one", n, k)
				all = append(all, g...)
			}
			slices.Sort(all)
			for i := range n {
				require.Equal(t, i, all[i])
			}
		}
	}
}

func fieldPrime(c ecdh.Curve) *big.Int {
	one := big.NewInt(1)
	if c == ecdh.X25519() {
		return new(big.Int).Sub(new(big.Int).Lsh(one, 255), big.NewInt(19))
	}
	p := new(big.Int).Lsh(one, 448)
	return p.Sub(p, new(big.Int).Lsh(one, 224)).Sub(p, one)
}

// putLimbs stores v (< 2^(32L)) as element i of a limb-major batch of n.
func putLimbs(dst []uint32, v *big.Int, i, n int) {
	w := new(big.Int).Set(v)
	mask := big.NewInt(0xffffffff)
	for j := 0; j*n+i < len(dst); j++ {
		dst[j*n+i] = uint32(new(big.Int).And(w, mask).Uint64())
		w.Rsh(w, 32)
	}
}

func getLimbs(src []uint32, i, n int) *big.Int {
	v := new(big.Int)
	for j := len(src)/n - 1; j >= 0; j-- {
		v.Lsh(v, 32).Or(v, big.NewInt(int64(src[j*n+i])))
	}
	return v
}

// TestBatchInversionKernel runs the batched-inversion kernel alone against
// math/big: loosely reduced inputs up to 2^(32L) − 1, zero denominators
// as 0, p and (X25519) 2p at the start, middle and end of groups and as
// whole groups, for group shapes from one element up.
func TestBatchInversionKernel(t *testing.T) {
	e := engine(t)
	rng := mrand.New(mrand.NewPCG(1, 2))
	for _, c := range ecdh.Curves() {
		p := fieldPrime(c)
		L := c.Size() / 4
		top := new(big.Int).Lsh(big.NewInt(1), uint(32*L)) // loosely reduced values are below 2^(32L)
		randBelow := func(m *big.Int) *big.Int {
			b := make([]byte, 8*L)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			return new(big.Int).Mod(new(big.Int).SetBytes(b), m)
		}
		zeros := []*big.Int{big.NewInt(0), new(big.Int).Set(p)}
		if new(big.Int).Lsh(p, 1).Cmp(top) < 0 {
			zeros = append(zeros, new(big.Int).Lsh(p, 1))
		}
		one := big.NewInt(1)
		special := []*big.Int{one, new(big.Int).Sub(p, one), new(big.Int).Add(p, one), new(big.Int).Sub(top, one),
			new(big.Int).Add(p, big.NewInt(2))}
		for _, k := range []int{1, 3, testK} {
			for _, n := range []int{1, 2, k - 1, k, k + 1, 3*k + 5, 100} {
				if n < 1 {
					continue
				}
				t.Run(fmt.Sprintf("%s/k%d/n%d", c, k, n), func(t *testing.T) {
					x, z := make([]uint32, L*n), make([]uint32, L*n)
					isZero := zeroSlots(n, k)
					xs, zs := make([]*big.Int, n), make([]*big.Int, n)
					nz := 0
					for i := range n {
						xs[i] = randBelow(top)
						switch {
						case isZero[i]:
							zs[i] = zeros[nz%len(zeros)]
							nz++
						case i%7 == 3:
							zs[i] = special[(i/7)%len(special)]
						default:
							zs[i] = randBelow(top)
						}
						if i%11 == 5 {
							xs[i] = special[(i/11)%len(special)]
						}
						putLimbs(x, xs[i], i, n)
						putLimbs(z, zs[i], i, n)
					}
					out, err := e.InvertBatch(c, x, z, k)
					require.NoError(t, err)
					for i := range n {
						want := new(big.Int)
						if new(big.Int).Mod(zs[i], p).Sign() != 0 {
							want.ModInverse(zs[i], p).Mul(want, xs[i]).Mod(want, p)
						}
						require.Equal(t, want.Text(16), getLimbs(out, i, n).Text(16),
							"element %d of %d (groups of %d): x %x z %x", i, n, k, xs[i], zs[i])
					}
				})
			}
		}
	}
}

// lowOrderU are u-coordinates whose shared secret is all zeros with every
// scalar: 0, 1 and their non-canonical forms p and p + 1, and for X25519
// the points of order 8 (0 and 1 come first).
func lowOrderU(c ecdh.Curve) [][]byte {
	p := fieldPrime(c)
	one := big.NewInt(1)
	out := [][]byte{leBytes(c, big.NewInt(0)), leBytes(c, one), leBytes(c, p), leBytes(c, new(big.Int).Add(p, one))}
	if c == ecdh.X25519() {
		for _, h := range []string{
			"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
			"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
		} {
			b, _ := hex.DecodeString(h)
			out = append(out, b)
		}
	}
	return out
}

// checkShared computes shared secrets with batch inversion in groups of k
// and holds them to the per-element engine and the CPU; zeroAt (may be
// nil) says where the CPU must report ErrLowOrder.
func checkShared(t *testing.T, c ecdh.Curve, k int, privs, peers [][]byte, zeroAt []bool) {
	t.Helper()
	n := len(privs)
	want, werr := ecdh.CPUEngine().SharedSecrets(c, privs, peers)
	// low[i]: the secret is all zeros (a low-order peer point, or the
	// X448 edge scalar 4q of keysFor): every backend says ErrLowOrder.
	low := make([]bool, n)
	for i := range n {
		low[i] = elemErr(werr, i) != nil
		if low[i] {
			require.ErrorIs(t, elemErr(werr, i), ecdh.ErrLowOrder, "CPU, element %d", i)
		}
	}
	if zeroAt != nil {
		require.Equal(t, zeroAt, low, "the low-order elements are not where the test put them")
	}
	got, gerr := binvEngine(t, k).SharedSecrets(c, privs, peers)
	per, perr := engine(t).SharedSecrets(c, privs, peers)
	for i := range n {
		if low[i] {
			require.ErrorIs(t, elemErr(gerr, i), ecdh.ErrLowOrder, "element %d", i)
			require.ErrorIs(t, elemErr(perr, i), ecdh.ErrLowOrder, "element %d (per element)", i)
			require.Nil(t, got[i], "element %d", i)
			continue
		}
		require.NoError(t, elemErr(gerr, i), "element %d", i)
		require.Equal(t, hex.EncodeToString(want[i]), hex.EncodeToString(got[i]), "element %d: priv %x peer %x", i, privs[i], peers[i])
		require.Equal(t, hex.EncodeToString(per[i]), hex.EncodeToString(got[i]), "element %d", i)
	}
}

// elemErr is element i's error in a batch result's error (nil: none).
func elemErr(err error, i int) error {
	var be *batch.Error
	if errors.As(err, &be) {
		return be.Errs[i]
	}
	return err
}

func checkPublic(t *testing.T, c ecdh.Curve, k int, privs [][]byte) {
	t.Helper()
	want, err := ecdh.CPUEngine().PublicKeys(c, privs)
	require.NoError(t, err)
	got, err := binvEngine(t, k).PublicKeys(c, privs)
	require.NoError(t, err)
	per, err := engine(t).PublicKeys(c, privs)
	require.NoError(t, err)
	for i := range privs {
		require.Equal(t, hex.EncodeToString(want[i]), hex.EncodeToString(got[i]), "element %d: priv %x", i, privs[i])
		require.Equal(t, hex.EncodeToString(per[i]), hex.EncodeToString(got[i]), "element %d", i)
	}
}

// TestBatchInversionDifferential: random and edge scalars and points at
// batch sizes that give groups of every shape (one element, a short last
// group, a whole number of groups, one more) up to 4096.
func TestBatchInversionDifferential(t *testing.T) {
	const k = testK
	for _, c := range ecdh.Curves() {
		edge := ecdh.EdgeU(c)
		for _, n := range []int{1, 2, k - 1, k, k + 1, 3*k + 5, 1000, 4096} {
			t.Run(fmt.Sprintf("%s/%d", c, n), func(t *testing.T) {
				privs := keysFor(t, c, n) // edge scalars first (X448: 4q, whose public key is 0)
				peers := make([][]byte, n)
				for i := range n {
					if i%3 == 0 {
						peers[i] = edge[(i/3)%len(edge)]
						continue
					}
					peers[i] = make([]byte, c.Size())
					rand.Read(peers[i])
				}
				checkShared(t, c, k, privs, peers, nil)
				checkPublic(t, c, k, privs)
			})
		}
	}
}

// TestBatchInversionLowOrder puts low-order peers (zero denominators) at
// the start, middle and end of groups and fills one group with them; each
// must fail alone with ErrLowOrder and every other element of its group
// must be right. For public keys the X448 scalar 4q (the neutral element,
// public key 0) takes the same places.
func TestBatchInversionLowOrder(t *testing.T) {
	for _, k := range []int{2, testK} {
		for _, c := range ecdh.Curves() {
			low := lowOrderU(c)
			for _, n := range []int{1, 3*k + 5, 300} {
				t.Run(fmt.Sprintf("%s/k%d/n%d", c, k, n), func(t *testing.T) {
					zeroAt := zeroSlots(n, k)
					privs, peers := make([][]byte, n), make([][]byte, n)
					pubSrc := make([][]byte, n)
					nz := 0
					for i := range n {
						privs[i] = make([]byte, c.Size())
						rand.Read(privs[i])
						pubSrc[i] = make([]byte, c.Size())
						rand.Read(pubSrc[i])
					}
					pubs, err := ecdh.CPUEngine().PublicKeys(c, pubSrc)
					require.NoError(t, err)
					for i := range n {
						peers[i] = pubs[i]
						if zeroAt[i] {
							peers[i] = low[nz%len(low)]
							nz++
						}
					}
					checkShared(t, c, k, privs, peers, zeroAt)

					if c == ecdh.X448() {
						q4 := leBytes(c, new(big.Int).Lsh(order(c), 2))
						keys := slices.Clone(privs)
						for i := range n {
							if zeroAt[i] {
								keys[i] = q4
							}
						}
						checkPublic(t, c, k, keys)
						got, err := binvEngine(t, k).PublicKeys(c, keys)
						require.NoError(t, err)
						for i := range n {
							require.Equal(t, zeroAt[i], isAllZero(got[i]), "element %d", i)
						}
					}
				})
			}
		}
	}
}

func isAllZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// TestBatchInversionPublicKeys: the comb kernel gives the same public
// keys with batch inversion, and spends device time doing it.
func TestBatchInversionPublicKeys(t *testing.T) {
	e := binvEngine(t, testK)
	for _, c := range ecdh.Curves() {
		privs := keysFor(t, c, 3*testK+5)
		want, err := ecdh.CPUEngine().PublicKeys(c, privs)
		require.NoError(t, err)
		before := e.Stats().DeviceTime
		got, err := e.PublicKeys(c, privs)
		require.NoError(t, err, "%s", c)
		require.Greater(t, e.Stats().DeviceTime, before)
		require.Equal(t, want, got, "%s", c)
	}
}
