package ed25519

import (
	stded25519 "crypto/ed25519"
	"crypto/sha512"
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

// scalarTestKernels are the test kernels of kernels/scalar25519.h
// (arithmetic modulo the group order L), one work-item per element.
//
//go:embed testdata/kernels/scalar_test.cl
var scalarTestKernels embed.FS

// scalarTestKernelNames are the kernels of scalar_test.cl.
var scalarTestKernelNames = []string{"sc25519_test_reduce", "sc25519_test_muladd", "sc25519_test_montgomery_multiply",
	"sc25519_test_aliasing"}

// scalarOrder is L = 2^252 + 27742317777372353535851937790883648493, the
// order of the Ed25519 base point.
var scalarOrder = func() *big.Int {
	delta, ok := new(big.Int).SetString("27742317777372353535851937790883648493", 10)
	if !ok {
		panic("bad constant")
	}
	return delta.Add(delta, new(big.Int).Lsh(big.NewInt(1), 252))
}()

// scalarTestProgram is scalar_test.cl, built on the tree's headers.
func scalarTestProgram() device.Source {
	sub, err := fs.Sub(scalarTestKernels, "testdata/kernels")
	if err != nil {
		panic(err)
	}
	return kernels.ProgramFrom(sub, "scalar_test.cl", nil)
}

// scalarLittleEndian is x (0 ≤ x < 2^(8n)) as n little-endian bytes: on
// the device, the words of the header's layout.
func scalarLittleEndian(x *big.Int, n int) []byte {
	b := x.FillBytes(make([]byte, n))
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return b
}

// scalarFromLittleEndian is the inverse of scalarLittleEndian.
func scalarFromLittleEndian(b []byte) *big.Int {
	r := make([]byte, len(b))
	for i := range b {
		r[len(b)-1-i] = b[i]
	}
	return new(big.Int).SetBytes(r)
}

// scalarPowerOfTwo is 2^n.
func scalarPowerOfTwo(n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), n) }

// runScalarKernel runs kernel name of scalar_test.cl over count elements
// of in (element-major) and returns outBytes bytes per element.
func runScalarKernel(t *testing.T, name string, in []byte, count, outBytes int) []byte {
	t.Helper()
	return devicetest.RunKernel(t, devicetest.Device(t), scalarTestProgram(), name, count, count*outBytes, in, uint32(count))
}

// scalarDeviceReduce is x mod L for each x (< 2^512) on the device.
func scalarDeviceReduce(t *testing.T, xs []*big.Int) []*big.Int {
	t.Helper()
	var in []byte
	for _, x := range xs {
		in = append(in, scalarLittleEndian(x, 64)...)
	}
	out := runScalarKernel(t, "sc25519_test_reduce", in, len(xs), 32)
	rs := make([]*big.Int, len(xs))
	for i := range rs {
		rs[i] = scalarFromLittleEndian(out[32*i : 32*(i+1)])
	}
	return rs
}

// scalarMulAddInput is one element of sc25519_test_muladd: a, b, c < 2^256.
type scalarMulAddInput struct{ a, b, c *big.Int }

func (m scalarMulAddInput) bytes() []byte {
	return append(append(scalarLittleEndian(m.a, 32), scalarLittleEndian(m.b, 32)...), scalarLittleEndian(m.c, 32)...)
}

// want is (a·b + c) mod L by math/big.
func (m scalarMulAddInput) want() *big.Int {
	r := new(big.Int).Mul(m.a, m.b)
	r.Add(r, m.c)
	return r.Mod(r, scalarOrder)
}

// scalarDeviceMulAdd is (a·b + c) mod L for each input on the device.
func scalarDeviceMulAdd(t *testing.T, ms []scalarMulAddInput) []*big.Int {
	t.Helper()
	var in []byte
	for _, m := range ms {
		in = append(in, m.bytes()...)
	}
	out := runScalarKernel(t, "sc25519_test_muladd", in, len(ms), 32)
	rs := make([]*big.Int, len(ms))
	for i := range rs {
		rs[i] = scalarFromLittleEndian(out[32*i : 32*(i+1)])
	}
	return rs
}

// scalarRandomBits is a uniform random number below 2^bits.
func scalarRandomBits(rng *rand.ChaCha8, bits uint) *big.Int {
	b := make([]byte, (bits+7)/8)
	_, _ = rng.Read(b)
	x := new(big.Int).SetBytes(b)
	return x.Rsh(x, uint(8*len(b))-bits)
}

// scalarReduceEdges are 512-bit inputs at the boundaries of the
// reduction: 0, 1, around L and its multiples (up to the largest below
// 2^512), powers of two and all-ones values.
func scalarReduceEdges() []*big.Int {
	one := big.NewInt(1)
	limit := scalarPowerOfTwo(512)
	largestMultiple := new(big.Int).Div(new(big.Int).Sub(limit, one), scalarOrder)
	var xs []*big.Int
	for _, k := range []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3), big.NewInt(15), big.NewInt(16),
		big.NewInt(17), scalarPowerOfTwo(128), scalarPowerOfTwo(256), new(big.Int).Sub(scalarPowerOfTwo(256), one), largestMultiple} {
		for _, e := range []int64{-2, -1, 0, 1, 2} {
			x := new(big.Int).Mul(k, scalarOrder)
			x.Add(x, big.NewInt(e))
			if x.Sign() >= 0 && x.Cmp(limit) < 0 {
				xs = append(xs, x)
			}
		}
	}
	for _, n := range []uint{252, 253, 255, 256, 257, 384, 511, 512} {
		xs = append(xs, scalarPowerOfTwo(n-1), new(big.Int).Sub(scalarPowerOfTwo(n), one))
	}
	// the high half all ones or zero with the low half at its extremes
	top := new(big.Int).Lsh(new(big.Int).Sub(scalarPowerOfTwo(256), one), 256)
	xs = append(xs, top, new(big.Int).Add(top, scalarOrder), new(big.Int).Add(top, one))
	return xs
}

// TestScalarConstants recomputes the header's constants with math/big.
func TestScalarConstants(t *testing.T) {
	src, err := kernels.Source("scalar25519.h", nil)
	require.NoError(t, err)
	words := devicetest.DefineArrays(t, src, "SC25519_")
	R := scalarPowerOfTwo(256)
	want := map[string]*big.Int{
		"SC25519_ORDER":     scalarOrder,
		"SC25519_R_SQUARED": new(big.Int).Exp(R, big.NewInt(2), scalarOrder),
		"SC25519_R_CUBED":   new(big.Int).Exp(R, big.NewInt(3), scalarOrder),
	}
	require.Len(t, words, len(want))
	for name, w := range want {
		require.NotNil(t, words[name], name)
		require.Zero(t, w.Cmp(words[name]), "%s: header %#x, want %#x", name, words[name], w)
	}

	inverse, ok := devicetest.DefineWords(t, src, "SC25519_MINUS_ORDER_INVERSE")["SC25519_MINUS_ORDER_INVERSE"]
	require.True(t, ok, "SC25519_MINUS_ORDER_INVERSE")
	word := scalarPowerOfTwo(32)
	minusInverse := new(big.Int).ModInverse(scalarOrder, word)
	minusInverse.Sub(word, minusInverse)
	require.Equal(t, minusInverse.Uint64(), inverse)
	require.Equal(t, uint32(0xffffffff), uint32(scalarOrder.Uint64())*uint32(inverse), "L·(−L^−1) ≡ −1 mod 2^32")
}

// TestScalarReduce: sc25519_reduce against math/big on edge values and
// random 512-bit inputs, uniform and near multiples of L.
func TestScalarReduce(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{'r', 'e', 'd', 'u', 'c', 'e'})
	xs := scalarReduceEdges()
	largestMultiple := new(big.Int).Div(scalarPowerOfTwo(512), scalarOrder)
	for range 3000 {
		xs = append(xs, scalarRandomBits(rng, 512))
	}
	for range 1000 {
		// q·L + e for random q and |e| ≤ 3
		x := new(big.Int).Mod(scalarRandomBits(rng, 260), largestMultiple)
		x.Mul(x, scalarOrder).Add(x, big.NewInt(int64(rng.Uint64()%7)-3))
		if x.Sign() < 0 {
			x.SetInt64(0)
		}
		xs = append(xs, x)
	}
	for _, bits := range []uint{64, 200, 252, 253, 256, 300, 400} {
		for range 100 {
			xs = append(xs, scalarRandomBits(rng, bits))
		}
	}
	got := scalarDeviceReduce(t, xs)
	for i, x := range xs {
		want := new(big.Int).Mod(x, scalarOrder)
		require.Zero(t, want.Cmp(got[i]), "element %d: %#x mod L = %#x, device %#x", i, x, want, got[i])
	}
	t.Logf("%d inputs", len(xs))
}

// TestScalarMulAdd: sc25519_muladd against math/big on every combination
// of edge operands and on random ones.
func TestScalarMulAdd(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{'m', 'u', 'l', 'a', 'd', 'd'})
	one := big.NewInt(1)
	L := scalarOrder
	maximum := new(big.Int).Sub(scalarPowerOfTwo(256), one)
	edges := []*big.Int{big.NewInt(0), one, big.NewInt(2), new(big.Int).Sub(L, big.NewInt(2)), new(big.Int).Sub(L, one),
		L, new(big.Int).Add(L, one), new(big.Int).Lsh(L, 1), new(big.Int).Mul(L, big.NewInt(15)), scalarPowerOfTwo(252),
		scalarPowerOfTwo(255), new(big.Int).Sub(scalarPowerOfTwo(255), one), maximum}
	var ms []scalarMulAddInput
	for _, a := range edges {
		for _, b := range edges {
			product := new(big.Int).Mul(a, b)
			zero := new(big.Int).Neg(product)
			zero.Mod(zero, L) // a·b + zero ≡ 0
			minusOne := new(big.Int).Sub(zero, one)
			minusOne.Mod(minusOne, L) // a·b + minusOne ≡ L − 1
			for _, c := range []*big.Int{big.NewInt(0), one, new(big.Int).Sub(L, one), L, maximum,
				zero, new(big.Int).Add(zero, L), minusOne, new(big.Int).Add(minusOne, L)} {
				ms = append(ms, scalarMulAddInput{a, b, c})
			}
		}
	}
	for range 3000 {
		ms = append(ms, scalarMulAddInput{scalarRandomBits(rng, 256), scalarRandomBits(rng, 256), scalarRandomBits(rng, 256)})
	}
	for range 1000 { // canonical operands, as in signing with reduced scalars
		ms = append(ms, scalarMulAddInput{new(big.Int).Mod(scalarRandomBits(rng, 256), L), new(big.Int).Mod(scalarRandomBits(rng, 256), L),
			new(big.Int).Mod(scalarRandomBits(rng, 256), L)})
	}
	for range 1000 { // one operand at an edge, the others random
		e := edges[rng.Uint64()%uint64(len(edges))]
		a, b, c := scalarRandomBits(rng, 256), scalarRandomBits(rng, 256), scalarRandomBits(rng, 256)
		switch rng.Uint64() % 3 {
		case 0:
			a = e
		case 1:
			b = e
		default:
			c = e
		}
		ms = append(ms, scalarMulAddInput{a, b, c})
	}
	got := scalarDeviceMulAdd(t, ms)
	for i, m := range ms {
		want := m.want()
		require.Zero(t, want.Cmp(got[i]), "element %d: (%#x·%#x + %#x) mod L = %#x, device %#x", i, m.a, m.b, m.c, want, got[i])
	}
	t.Logf("%d inputs", len(ms))
}

// TestScalarMontgomeryMultiply: the header's inner Montgomery
// multiplication gives exactly (a·b + m·L) / 2^256, m = −a·b·L^−1 mod
// 2^256, over the whole range it allows (a·b < 2^256·(2^256 − L)), where
// the product rows carry into the tenth word that sc25519_reduce's
// operands never reach.
func TestScalarMontgomeryMultiply(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{'m', 'o', 'n', 't'})
	one := big.NewInt(1)
	R := scalarPowerOfTwo(256)
	maximum := new(big.Int).Sub(R, one)
	limit := new(big.Int).Mul(R, new(big.Int).Sub(R, scalarOrder)) // a·b below this
	// largestPartner is the largest b < 2^256 with a·b < limit.
	largestPartner := func(a *big.Int) *big.Int {
		if a.Sign() == 0 {
			return maximum
		}
		b := new(big.Int).Sub(limit, one)
		b.Div(b, a)
		if b.Cmp(maximum) > 0 {
			return maximum
		}
		return b
	}
	type pair struct{ a, b *big.Int }
	var ps []pair
	for _, a := range []*big.Int{big.NewInt(0), one, new(big.Int).Sub(scalarOrder, one), scalarOrder,
		new(big.Int).Sub(R, scalarOrder), maximum, new(big.Int).Sqrt(limit)} {
		b := largestPartner(a)
		ps = append(ps, pair{a, b}, pair{b, a}, pair{a, new(big.Int).Sub(b, one)}, pair{a, one})
	}
	for range 3000 {
		a := scalarRandomBits(rng, 256)
		if rng.Uint64()%2 == 0 { // top-heavy: a close to 2^256
			a.Sub(maximum, scalarRandomBits(rng, 200))
		}
		b := scalarRandomBits(rng, 256)
		b.Mod(b, new(big.Int).Add(largestPartner(a), one))
		if rng.Uint64()%2 == 0 {
			ps = append(ps, pair{a, b})
		} else {
			ps = append(ps, pair{b, a})
		}
	}
	var in []byte
	for _, p := range ps {
		in = append(in, append(scalarLittleEndian(p.a, 32), scalarLittleEndian(p.b, 32)...)...)
	}
	out := runScalarKernel(t, "sc25519_test_montgomery_multiply", in, len(ps), 32)
	minusInverse := new(big.Int).ModInverse(scalarOrder, R)
	minusInverse.Sub(R, minusInverse)
	for i, p := range ps {
		product := new(big.Int).Mul(p.a, p.b)
		m := new(big.Int).Mul(product, minusInverse)
		m.Mod(m, R)
		want := m.Mul(m, scalarOrder).Add(m, product)
		want.Rsh(want, 256)
		require.True(t, want.Cmp(R) < 0, "element %d: the range allowed gives a result below 2^256", i)
		got := scalarFromLittleEndian(out[32*i : 32*(i+1)])
		require.Zero(t, want.Cmp(got), "element %d: mont(%#x, %#x) = %#x, device %#x", i, p.a, p.b, want, got)
	}
}

// TestScalarAliasing: the results are the same when r is one of the
// inputs (or all of them), as the header allows.
func TestScalarAliasing(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{'a', 'l', 'i', 'a', 's'})
	maximum := new(big.Int).Sub(scalarPowerOfTwo(256), big.NewInt(1))
	ms := []scalarMulAddInput{{maximum, maximum, maximum}, {scalarOrder, scalarOrder, scalarOrder}}
	for range 2000 {
		ms = append(ms, scalarMulAddInput{scalarRandomBits(rng, 256), scalarRandomBits(rng, 256), scalarRandomBits(rng, 256)})
	}
	var in []byte
	for _, m := range ms {
		in = append(in, m.bytes()...)
	}
	out := runScalarKernel(t, "sc25519_test_aliasing", in, len(ms), 5*32)
	for i, m := range ms {
		square := scalarMulAddInput{m.a, m.a, m.a}.want()
		x := new(big.Int).Lsh(m.b, 256)
		x.Add(x, m.a).Mod(x, scalarOrder)
		for k, want := range []*big.Int{m.want(), m.want(), m.want(), square, x} {
			got := scalarFromLittleEndian(out[160*i+32*k : 160*i+32*(k+1)])
			require.Zero(t, want.Cmp(got), "element %d, case %d (see scalar_test.cl): want %#x, device %#x", i, k, want, got)
		}
	}
}

// TestScalarSignatures cross-checks against crypto/ed25519: for each key
// and message, the device reduces the nonce digest r = SHA-512(prefix ‖ M)
// and the challenge k = SHA-512(R ‖ A ‖ M), and S = (r + k·s) mod L with
// the clamped secret scalar s (below 2^255, not reduced) must be the
// second half of the standard library's signature. (filippo.io/
// edwards25519 is not in this module's dependency graph.)
func TestScalarSignatures(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{'s', 'i', 'g', 'n'})
	const n = 1000
	var digests []*big.Int
	var scalars [][]byte
	var signatures [][]byte
	for i := range n {
		seed := make([]byte, stded25519.SeedSize)
		_, _ = rng.Read(seed)
		message := make([]byte, i%200)
		_, _ = rng.Read(message)
		key := stded25519.NewKeyFromSeed(seed)
		signature := stded25519.Sign(key, message)

		h := sha512.Sum512(seed)
		s := h[:32]
		s[0] &= 248
		s[31] &= 127
		s[31] |= 64
		nonce := sha512.New()
		nonce.Write(h[32:])
		nonce.Write(message)
		challenge := sha512.New()
		challenge.Write(signature[:32])
		challenge.Write(key.Public().(stded25519.PublicKey))
		challenge.Write(message)
		digests = append(digests, scalarFromLittleEndian(nonce.Sum(nil)), scalarFromLittleEndian(challenge.Sum(nil)))
		scalars = append(scalars, s)
		signatures = append(signatures, signature)
	}
	reduced := scalarDeviceReduce(t, digests)
	for i, d := range digests {
		want := new(big.Int).Mod(d, scalarOrder)
		require.Zero(t, want.Cmp(reduced[i]), "digest %d", i)
	}
	ms := make([]scalarMulAddInput, n)
	for i := range ms {
		ms[i] = scalarMulAddInput{a: reduced[2*i+1], b: scalarFromLittleEndian(scalars[i]), c: reduced[2*i]}
	}
	got := scalarDeviceMulAdd(t, ms)
	for i := range ms {
		require.Equal(t, signatures[i][32:], scalarLittleEndian(got[i], 32), "signature %d: S", i)
	}
}

// TestScalarCUDABuild: the test kernels, and so the header, compile as
// CUDA C for an H100 (sm_90) through NVRTC (no GPU needed; skipped
// without NVRTC or the build tag cuda unless GPUCRYPTO_REQUIRE_NVRTC=1).
func TestScalarCUDABuild(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	p, err := d.Program(scalarTestProgram())
	require.NoError(t, err)
	for _, name := range scalarTestKernelNames {
		_, err := p.Kernel(name)
		require.NoError(t, err, name)
	}
}
