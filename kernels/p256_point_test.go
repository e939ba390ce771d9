package kernels_test

import (
	"embed"
	"io/fs"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

//go:embed testdata/p256_point_test.cl
var p256PointTestKernels embed.FS

// curveP256 is NIST P-256 with math/big: the reference of the point tests.
var curveP256 = func() (c struct{ p, n, b, gx, gy *big.Int }) {
	hex := func(s string) *big.Int { v, _ := new(big.Int).SetString(s, 16); return v }
	c.p = hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
	c.n = hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
	c.b = hex("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b")
	c.gx = hex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")
	c.gy = hex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")
	return
}()

// affine is a point of P-256, nil x for the point at infinity.
type affine struct{ x, y *big.Int }

func (a affine) infinity() bool { return a.x == nil }

func p256Add(a, b affine) affine {
	p := curveP256.p
	switch {
	case a.infinity():
		return b
	case b.infinity():
		return a
	}
	var l *big.Int
	if a.x.Cmp(b.x) == 0 {
		if new(big.Int).Add(a.y, b.y).Mod(new(big.Int).Add(a.y, b.y), p).Sign() == 0 {
			return affine{}
		}
		num := new(big.Int).Mul(a.x, a.x)
		num.Mul(num, big.NewInt(3)).Sub(num, big.NewInt(3))
		den := new(big.Int).Lsh(a.y, 1)
		l = num.Mul(num, den.ModInverse(den.Mod(den, p), p))
	} else {
		num := new(big.Int).Sub(b.y, a.y)
		den := new(big.Int).Sub(b.x, a.x)
		l = num.Mul(num, den.ModInverse(den.Mod(den, p), p))
	}
	l.Mod(l, p)
	x := new(big.Int).Mul(l, l)
	x.Sub(x, a.x).Sub(x, b.x).Mod(x, p)
	y := new(big.Int).Sub(a.x, x)
	y.Mul(y, l).Sub(y, a.y).Mod(y, p)
	return affine{x, y}
}

func p256Mul(k *big.Int, a affine) affine {
	r := affine{}
	for i := k.BitLen() - 1; i >= 0; i-- {
		r = p256Add(r, r)
		if k.Bit(i) == 1 {
			r = p256Add(r, a)
		}
	}
	return r
}

func p256Neg(a affine) affine {
	if a.infinity() {
		return a
	}
	return affine{a.x, new(big.Int).Sub(curveP256.p, a.y)}
}

// words appends v's 8 little-endian words.
func words(out []uint32, v *big.Int) []uint32 {
	for w := range 8 {
		out = append(out, uint32(new(big.Int).Rsh(v, uint(32*w)).Uint64()))
	}
	return out
}

func pointWords(out []uint32, a affine) []uint32 {
	if a.infinity() {
		out = words(words(out, new(big.Int)), new(big.Int))
		return append(out, 1)
	}
	return append(words(words(out, a.x), a.y), 0)
}

func wordsValue(w []uint32) *big.Int {
	v := new(big.Int)
	for i := 7; i >= 0; i-- {
		v.Lsh(v, 32).Or(v, big.NewInt(int64(w[i])))
	}
	return v
}

func pointOf(w []uint32) affine {
	if w[16] == 1 {
		return affine{}
	}
	return affine{wordsValue(w[:8]), wordsValue(w[8:16])}
}

func runPointKernel(t *testing.T, d *device.Device, name string, count, outWords int, in ...[]uint32) []uint32 {
	t.Helper()
	sub, err := fs.Sub(p256PointTestKernels, "testdata")
	require.NoError(t, err)
	args := make([]any, 0, len(in)+1)
	for _, w := range in {
		args = append(args, device.Uint32Bytes(w))
	}
	out := devicetest.RunKernel(t, d, kernels.ProgramFrom(sub, "p256_point_test.cl", nil), name, count, 4*outWords*count,
		append(args, uint32(count))...)
	return device.Uint32s(out, outWords*count)
}

// The Jacobian formulas (p256_jacobian.h) against math/big, with their
// exceptions handled as verification handles them: sums of random points,
// P + P, P + (−P), sums with the point at infinity on either side, and
// doublings, in coordinates scaled by a random λ (Z ≠ 1), through the
// general and the mixed addition.
func TestP256Jacobian(t *testing.T) {
	d := devicetest.Device(t)
	r := rand.New(rand.NewPCG(15, 16))
	g := affine{curveP256.gx, curveP256.gy}
	below := func(m *big.Int) *big.Int {
		b := make([]byte, 40)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return new(big.Int).Mod(new(big.Int).SetBytes(b), m)
	}
	random := func() affine { return p256Mul(below(curveP256.n), g) }
	var as, bs []affine
	for range 16 {
		a, b := random(), random()
		as, bs = append(as, a, a, a, affine{}, a, affine{}), append(bs, b, a, p256Neg(a), a, affine{}, affine{})
	}
	var ain, bin, lin []uint32
	for i := range as {
		ain, bin = pointWords(ain, as[i]), pointWords(bin, bs[i])
		lin = words(lin, new(big.Int).Add(below(new(big.Int).Sub(curveP256.p, big.NewInt(1))), big.NewInt(1)))
	}
	out := runPointKernel(t, d, "p256_point_test_jacobian", len(as), 51, ain, bin, lin)
	for i := range as {
		require.Equal(t, p256Add(as[i], bs[i]), pointOf(out[51*i:51*i+17]), "sum %d", i)
		require.Equal(t, p256Add(as[i], as[i]), pointOf(out[51*i+17:51*i+34]), "double %d", i)
		require.Equal(t, p256Add(as[i], bs[i]), pointOf(out[51*i+34:51*i+51]), "mixed sum %d", i)
	}
}

// The constant-time comb (p256_comb.h) against math/big: k·G for the
// edges 0, 1, n − 1, n, n + 1, 2^256 − 1, small k, and random k.
func TestP256BaseMult(t *testing.T) {
	d := devicetest.Device(t)
	r := rand.New(rand.NewPCG(13, 14))
	n := curveP256.n
	ks := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(8), big.NewInt(9), big.NewInt(16),
		new(big.Int).Sub(n, big.NewInt(1)), n, new(big.Int).Add(n, big.NewInt(1)),
		new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)),
		new(big.Int).Lsh(big.NewInt(1), 255)}
	for range 40 {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		ks = append(ks, new(big.Int).SetBytes(b))
	}
	var kin []uint32
	for _, k := range ks {
		kin = words(kin, k)
	}
	out := runPointKernel(t, d, "p256_point_test_base_mult", len(ks), 17, kin, kernels.P256CombTable())
	g := affine{curveP256.gx, curveP256.gy}
	for i, k := range ks {
		require.Equal(t, p256Mul(k, g), pointOf(out[17*i:17*i+17]), "k·G %d (k = %x)", i, k)
	}
}

// P256_B_MONT in p256_point.h is b·2^256 mod p.
func TestP256PointConstants(t *testing.T) {
	src, err := kernels.Source("p256_point.h", nil)
	require.NoError(t, err)
	got := devicetest.DefineArrays(t, src, "P256_B_MONT")["P256_B_MONT"]
	require.NotNil(t, got)
	want := new(big.Int).Lsh(curveP256.b, 256)
	require.Equal(t, want.Mod(want, curveP256.p), got)
}

// The point test program, and so p256_jacobian.h and p256_comb.h,
// compiles as CUDA C for an H100 (sm_90) through NVRTC (no GPU needed;
// skipped without NVRTC or the build tag cuda unless
// GPUCRYPTO_REQUIRE_NVRTC=1).
func TestP256PointCUDABuild(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	sub, err := fs.Sub(p256PointTestKernels, "testdata")
	require.NoError(t, err)
	p, err := d.Program(kernels.ProgramFrom(sub, "p256_point_test.cl", nil))
	require.NoError(t, err)
	for _, name := range []string{"p256_point_test_jacobian", "p256_point_test_base_mult"} {
		_, err := p.Kernel(name)
		require.NoError(t, err, name)
	}
}
