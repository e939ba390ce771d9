package kernels_test

import (
	"crypto/elliptic"
	"embed"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// mont256TestKernels holds the test kernel of p256.h and mont256.h.
//
//go:embed testdata/p256_test.cl
var mont256TestKernels embed.FS

// mont256TestKernelName is the one kernel of p256_test.cl.
const mont256TestKernelName = "p256_test_operations"

// mont256Slots is TEST_SLOTS of p256_test.cl: the results of one element,
// 8 words each.
const mont256Slots = 31

// mont256SlotNames name the slots of p256_test.cl, for messages.
var mont256SlotNames = [mont256Slots]string{
	"mul(a, b)", "sqr(a)", "add(a, b)", "sub(a, b)", "neg(a)", "to_mont(x)", "from_mont(a)", "invert(a)",
	"from_mont(mul(to_mont(a), to_mont(b)))", "from_mont(invert(to_mont(a)))", "mul(to_mont(a), invert(to_mont(a)))",
	"set_one()", "cmov(r = a, b, all ones)", "cmov(r = a, b, 0)", "the masks", "from_mont(to_mont(x))",
	"mul(t, t, b), t = a", "mul(t, a, t), t = b", "mul(t, t, t), t = a", "sqr(t, t), t = a",
	"add(t, t, b), t = a", "add(t, a, t), t = b", "add(t, t, t), t = a",
	"sub(t, t, b), t = a", "sub(t, a, t), t = b", "sub(t, t, t), t = a", "neg(t, t), t = a",
	"to_mont(t, t), t = x", "from_mont(t, t), t = a", "invert(t, t), t = a", "cmov(t, t, all ones), t = a",
}

// mont256Modulus is one instance of mont256.h in p256.h.
type mont256Modulus struct {
	name     string   // the prefix of its functions
	argument uint32   // the kernel argument that picks it
	m        *big.Int // the modulus
}

// The two instances of p256.h, the moduli from their definitions: p by its
// formula, n by its published value (both also checked against
// crypto/elliptic in TestMont256Constants).
var (
	mont256Field = mont256Modulus{"p256", 0, func() *big.Int {
		p := mont256PowerOfTwo(256)
		p.Sub(p, mont256PowerOfTwo(224)).Add(p, mont256PowerOfTwo(192)).Add(p, mont256PowerOfTwo(96))
		return p.Sub(p, big.NewInt(1))
	}()}
	mont256Order = mont256Modulus{"p256n", 1, func() *big.Int {
		n, ok := new(big.Int).SetString("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", 16)
		if !ok {
			panic("bad constant")
		}
		return n
	}()}
	mont256Moduli = []mont256Modulus{mont256Field, mont256Order}
)

// mont256PowerOfTwo is 2^n.
func mont256PowerOfTwo(n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), n) }

// mont256R is R = 2^256, the Montgomery radix.
var mont256R = mont256PowerOfTwo(256)

// mont256TestProgram is p256_test.cl, built on the tree's headers.
func mont256TestProgram() device.Source {
	sub, err := fs.Sub(mont256TestKernels, "testdata")
	if err != nil {
		panic(err)
	}
	return kernels.ProgramFrom(sub, "p256_test.cl", nil)
}

// mont256Words appends x (0 ≤ x < 2^256) as 8 little-endian 32-bit words,
// in bytes as the device stores them.
func mont256Words(out []byte, x *big.Int) []byte {
	b := x.FillBytes(make([]byte, 32)) // big-endian
	for j := 7; j >= 0; j-- {
		out = binary.LittleEndian.AppendUint32(out, binary.BigEndian.Uint32(b[4*j:]))
	}
	return out
}

// mont256Value is the number of 8 little-endian words in bytes.
func mont256Value(b []byte) *big.Int {
	be := make([]byte, 32)
	for j := range 8 {
		binary.BigEndian.PutUint32(be[4*(7-j):], binary.LittleEndian.Uint32(b[4*j:]))
	}
	return new(big.Int).SetBytes(be)
}

// mont256Input is one element of p256_test_operations: a and b below the
// modulus, x any 256-bit number.
type mont256Input struct{ a, b, x *big.Int }

// mont256Expected are the slots of p256_test.cl for in modulo m, by
// math/big.
func mont256Expected(m *big.Int, in mont256Input) [mont256Slots]*big.Int {
	mod := func(x *big.Int) *big.Int { return x.Mod(x, m) }
	rInverse := new(big.Int).ModInverse(mont256R, m)
	product := func(x, y *big.Int) *big.Int { // the Montgomery product x·y·R^−1
		p := new(big.Int).Mul(x, y)
		return mod(p.Mul(p, rInverse))
	}
	exponent := new(big.Int).Sub(m, big.NewInt(2))
	inverse := new(big.Int).Exp(in.a, exponent, m) // a^−1, 0 for 0
	// invert(a) works on what the element a stands for, v = a·R^−1: its
	// result is the element of v^−1, that is v^(m−2)·R
	value := mod(new(big.Int).Mul(in.a, rInverse))
	montgomeryInverse := new(big.Int).Exp(value, exponent, m)
	montgomeryInverse = mod(montgomeryInverse.Mul(montgomeryInverse, mont256R))
	one := mod(new(big.Int).Set(mont256R))
	oneIfNonzero := new(big.Int)
	if in.a.Sign() != 0 {
		oneIfNonzero.Set(one)
	}
	mask := func(c bool) uint64 {
		if c {
			return 0xffffffff
		}
		return 0
	}
	masks := new(big.Int) // slot 14: one mask per word, in the kernel's order
	for j, c := range []bool{in.a.Sign() == 0, in.b.Sign() == 0, in.a.Cmp(in.b) == 0, in.a.Cmp(in.b) == 0, true,
		in.a.Cmp(in.x) == 0} {
		masks.Or(masks, new(big.Int).Lsh(new(big.Int).SetUint64(mask(c)), uint(32*j)))
	}
	sum := mod(new(big.Int).Add(in.a, in.b))
	difference := mod(new(big.Int).Sub(in.a, in.b))
	return [mont256Slots]*big.Int{
		product(in.a, in.b),
		product(in.a, in.a),
		sum,
		difference,
		mod(new(big.Int).Neg(in.a)),
		mod(new(big.Int).Mul(in.x, mont256R)),
		product(in.a, big.NewInt(1)),
		montgomeryInverse,
		mod(new(big.Int).Mul(in.a, in.b)),
		inverse,
		oneIfNonzero,
		one,
		in.b,
		in.a,
		masks,
		mod(new(big.Int).Set(in.x)),
		product(in.a, in.b),
		product(in.a, in.b),
		product(in.a, in.a),
		product(in.a, in.a),
		sum,
		sum,
		mod(new(big.Int).Lsh(in.a, 1)),
		difference,
		difference,
		new(big.Int),
		mod(new(big.Int).Neg(in.a)),
		mod(new(big.Int).Mul(in.x, mont256R)),
		product(in.a, big.NewInt(1)),
		montgomeryInverse,
		in.a,
	}
}

// runMont256 runs p256_test_operations for modulus on ins and returns each
// element's slots.
func runMont256(t *testing.T, modulus mont256Modulus, ins []mont256Input) [][mont256Slots]*big.Int {
	t.Helper()
	var in []byte
	for _, e := range ins {
		require.True(t, e.a.Cmp(modulus.m) < 0 && e.b.Cmp(modulus.m) < 0 && e.x.Cmp(mont256R) < 0, "the test's inputs")
		in = mont256Words(mont256Words(mont256Words(in, e.a), e.b), e.x)
	}
	const elementBytes = 32 * mont256Slots
	out := devicetest.RunKernel(t, devicetest.Device(t), mont256TestProgram(), mont256TestKernelName, len(ins), len(ins)*elementBytes,
		in, uint32(len(ins)), modulus.argument)
	results := make([][mont256Slots]*big.Int, len(ins))
	for i := range results {
		for k := range mont256Slots {
			results[i][k] = mont256Value(out[elementBytes*i+32*k:])
		}
	}
	return results
}

// mont256Edges are canonical values at the boundaries of the arithmetic
// modulo m: small numbers, m − 1 and below, around 2^255 and word edges,
// the Montgomery forms of 1 and −1, R^2 mod m, and the halves of m.
func mont256Edges(m *big.Int) []*big.Int {
	one := big.NewInt(1)
	montgomeryOne := new(big.Int).Mod(mont256R, m)
	xs := []*big.Int{big.NewInt(0), one, big.NewInt(2), big.NewInt(3),
		new(big.Int).Sub(m, one), new(big.Int).Sub(m, big.NewInt(2)), new(big.Int).Sub(m, big.NewInt(3)),
		new(big.Int).Sub(mont256PowerOfTwo(255), one), mont256PowerOfTwo(255), new(big.Int).Add(mont256PowerOfTwo(255), one),
		new(big.Int).Sub(mont256PowerOfTwo(32), one), mont256PowerOfTwo(32), mont256PowerOfTwo(224),
		new(big.Int).Sub(mont256PowerOfTwo(128), one), montgomeryOne, new(big.Int).Sub(m, montgomeryOne),
		new(big.Int).Exp(mont256R, big.NewInt(2), m), new(big.Int).Rsh(m, 1), new(big.Int).Rsh(new(big.Int).Add(m, one), 1)}
	// m with its low words cleared, and m − 2^32: long borrow chains
	xs = append(xs, new(big.Int).AndNot(m, new(big.Int).Sub(mont256PowerOfTwo(128), one)),
		new(big.Int).Sub(m, mont256PowerOfTwo(32)))
	return xs
}

// mont256WideEdges are 256-bit values for to_mont, which takes any: 0, 1,
// m − 1, m and just above, 2^256 − m (R mod m) and below it, 2^255 and
// its neighbour, a value with its low word zero, and the largest two.
func mont256WideEdges(m *big.Int) []*big.Int {
	one := big.NewInt(1)
	rest := new(big.Int).Sub(mont256R, m)
	return []*big.Int{big.NewInt(0), one, new(big.Int).Sub(m, one), m, new(big.Int).Add(m, one), new(big.Int).Add(m, big.NewInt(2)),
		rest, new(big.Int).Sub(rest, one), mont256PowerOfTwo(255), new(big.Int).Sub(mont256PowerOfTwo(255), one),
		new(big.Int).Lsh(new(big.Int).Sub(mont256PowerOfTwo(224), one), 32),
		new(big.Int).Sub(mont256R, big.NewInt(2)), new(big.Int).Sub(mont256R, one)}
}

// mont256Random is a uniform random number below limit.
func mont256Random(rng *rand.ChaCha8, limit *big.Int) *big.Int {
	b := make([]byte, 40) // 64 bits more than needed: the bias is below 2^−64
	_, _ = rng.Read(b)
	return new(big.Int).Mod(new(big.Int).SetBytes(b), limit)
}

// mont256Patterned is a number whose words are each 0, 1, all ones or
// random, reduced below limit: long carry and borrow chains.
func mont256Patterned(rng *rand.ChaCha8, limit *big.Int) *big.Int {
	x := new(big.Int)
	for j := range 8 {
		var w uint64
		switch rng.Uint64() % 4 {
		case 0:
			w = 0
		case 1:
			w = 1
		case 2:
			w = 0xffffffff
		default:
			w = rng.Uint64() & 0xffffffff
		}
		x.Or(x, new(big.Int).Lsh(new(big.Int).SetUint64(w), uint(32*j)))
	}
	return x.Mod(x, limit)
}

// mont256Inputs are the test's elements for modulus m: every pair of edge
// values (x through the wide edges), uniform random ones, random ones
// close to m (and x close to 2^256), and patterned ones.
func mont256Inputs(m *big.Int, seed string, random int) []mont256Input {
	var s [32]byte
	copy(s[:], seed)
	rng := rand.NewChaCha8(s)
	edges, wide := mont256Edges(m), mont256WideEdges(m)
	var ins []mont256Input
	for _, a := range edges {
		for _, b := range edges {
			ins = append(ins, mont256Input{a, b, wide[len(ins)%len(wide)]})
		}
	}
	// x = a and x = b: equal(a, x) sees equal values too
	for _, a := range edges {
		ins = append(ins, mont256Input{a, edges[len(ins)%len(edges)], a})
	}
	small := mont256PowerOfTwo(64)
	for i := range random {
		var in mont256Input
		switch i % 4 {
		case 0, 1:
			in = mont256Input{mont256Random(rng, m), mont256Random(rng, m), mont256Random(rng, mont256R)}
		case 2:
			in = mont256Input{new(big.Int).Sub(m, mont256Random(rng, small)), new(big.Int).Sub(m, mont256Random(rng, small)),
				new(big.Int).Sub(mont256R, mont256Random(rng, small))}
			in.a.Sub(in.a, big.NewInt(1)) // below m
			in.b.Sub(in.b, big.NewInt(1))
			in.x.Sub(in.x, big.NewInt(1))
		default:
			in = mont256Input{mont256Patterned(rng, m), mont256Patterned(rng, m), mont256Patterned(rng, mont256R)}
		}
		ins = append(ins, in)
	}
	return ins
}

// TestMont256Arithmetic: every function of both instances of p256.h (and
// with the result in place of an input) against math/big, on every pair
// of edge values and on random, near-m and patterned values.
func TestMont256Arithmetic(t *testing.T) {
	random := 20000
	if devicetest.Short(devicetest.Device(t)) {
		random = 4000
	}
	for _, modulus := range mont256Moduli {
		t.Run(modulus.name, func(t *testing.T) {
			ins := mont256Inputs(modulus.m, "mont256 "+modulus.name, random)
			got := runMont256(t, modulus, ins)
			for i, in := range ins {
				want := mont256Expected(modulus.m, in)
				for k := range mont256Slots {
					require.Zero(t, want[k].Cmp(got[i][k]), "%s element %d, slot %d %s: a = %#x, b = %#x, x = %#x: want %#x, device %#x",
						modulus.name, i, k, mont256SlotNames[k], in.a, in.b, in.x, want[k], got[i][k])
				}
			}
			t.Logf("%d elements, %d functions each", len(ins), mont256Slots)
		})
	}
}

// TestMont256Constants recomputes the constants of p256.h with math/big:
// the moduli (also against crypto/elliptic), −m^−1 mod 2^32 and R^2 mod m,
// and that each modulus is what mont256.h requires (odd, above 2^255) and
// prime (invert is an inverse).
func TestMont256Constants(t *testing.T) {
	src, err := kernels.Source("p256.h", nil)
	require.NoError(t, err)
	arrays := devicetest.DefineArrays(t, src, "P256_")
	inverses := devicetest.DefineWords(t, src, "P256_")

	params := elliptic.P256().Params()
	require.Zero(t, mont256Field.m.Cmp(params.P), "p")
	require.Zero(t, mont256Order.m.Cmp(params.N), "n")
	word := mont256PowerOfTwo(32)
	for _, c := range []struct {
		modulus                                     mont256Modulus
		modulusName, minusInverseName, rSquaredName string // in the header
	}{
		{mont256Field, "P256_FIELD_MODULUS", "P256_FIELD_MINUS_INVERSE", "P256_FIELD_R_SQUARED"},
		{mont256Order, "P256_ORDER", "P256_ORDER_MINUS_INVERSE", "P256_ORDER_R_SQUARED"},
	} {
		m := c.modulus.m
		require.Equal(t, uint(1), m.Bit(0), "%s: odd", c.modulusName)
		require.Equal(t, 256, m.BitLen(), "%s: 2^255 < m < 2^256", c.modulusName)
		require.True(t, m.ProbablyPrime(32), "%s: prime", c.modulusName)

		require.NotNil(t, arrays[c.modulusName], c.modulusName)
		require.Zero(t, m.Cmp(arrays[c.modulusName]), "%s: header %#x, want %#x", c.modulusName, arrays[c.modulusName], m)

		rSquared := new(big.Int).Exp(mont256R, big.NewInt(2), m)
		require.NotNil(t, arrays[c.rSquaredName], c.rSquaredName)
		require.Zero(t, rSquared.Cmp(arrays[c.rSquaredName]), "%s: header %#x, want %#x", c.rSquaredName, arrays[c.rSquaredName], rSquared)

		minusInverse := new(big.Int).ModInverse(m, word)
		minusInverse.Sub(word, minusInverse)
		inverse, ok := inverses[c.minusInverseName]
		require.True(t, ok, c.minusInverseName)
		require.Equal(t, minusInverse.Uint64(), inverse, c.minusInverseName)
		require.Equal(t, uint32(0xffffffff), uint32(m.Uint64())*uint32(inverse), "%s: m·(−m^−1) ≡ −1 mod 2^32", c.minusInverseName)
	}
	require.Len(t, arrays, 4, "the header's word arrays")
	require.Len(t, inverses, 2, "the header's inverses")
}

// TestMont256CUDABuild: the test kernel, and so p256.h and mont256.h, compile
// as CUDA C for an H100 (sm_90) through NVRTC (no GPU needed; skipped
// without NVRTC or the build tag cuda unless GPUCRYPTO_REQUIRE_NVRTC=1).
func TestMont256CUDABuild(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	p, err := d.Program(mont256TestProgram())
	require.NoError(t, err)
	_, err = p.Kernel(mont256TestKernelName)
	require.NoError(t, err, mont256TestKernelName)
}

// TestMont256Slots: the test's slot count is TEST_SLOTS of p256_test.cl.
func TestMont256Slots(t *testing.T) {
	text, err := fs.ReadFile(mont256TestKernels, "testdata/p256_test.cl")
	require.NoError(t, err)
	require.Contains(t, string(text), fmt.Sprintf("#define TEST_SLOTS %d\n", mont256Slots))
}
