package kernels_test

import (
	"bytes"
	"embed"
	"encoding/binary"
	"fmt"
	"io/fs"
	"maps"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// fieldTestKernels holds the test kernels of the curves' fields.
//
//go:embed testdata/field_test.h testdata/fe25519_test.cl testdata/fe448_test.cl
var fieldTestKernels embed.FS

// fieldSlots is TEST_SLOTS of field_test.h; fieldSlotNames name them.
const fieldSlots = 10

var fieldSlotNames = [fieldSlots]string{"mul(a, b)", "sqr(a)", "mul(t, t, b), t = a", "mul(t, a, t), t = b",
	"mul(t, t, t), t = a", "sqr(t, t), t = a", "invert(a)", "add(a, b)", "sub(a, b)", "mul_small_add(a, s, b)"}

// fieldCase is one of the curves' fields, its test kernel (field_test.h)
// in name+"_test.cl", and the forms of its product to test
// (kernels/generated.go).
type fieldCase struct {
	name  string
	limbs int
	p     *big.Int
	small int64 // TEST_SMALL
	forms []map[string]string
}

func fieldPowerOfTwo(n int) *big.Int { return new(big.Int).Lsh(big.NewInt(1), uint(n)) }

var fieldCases = []fieldCase{
	{"fe25519", 8, new(big.Int).Sub(fieldPowerOfTwo(255), big.NewInt(19)), 121665,
		[]map[string]string{nil, {"FIELD_MUL_ROWS": "1"}, {"FIELD_MUL_ROWS": "8"}}},
	{"fe448", 14,
		new(big.Int).Sub(new(big.Int).Sub(fieldPowerOfTwo(448), fieldPowerOfTwo(224)), big.NewInt(1)), 39081,
		[]map[string]string{nil, {"FIELD_MUL_ROWS": "1"}, {"FIELD_MUL_ROWS": "14"},
			{"FIELD_MUL_FORM": "karatsuba"}, {"FIELD_MUL_FORM": "karatsuba", "FIELD_MUL_ROWS": "7"}}},
}

// edges are values below 2^(32·limbs) (loosely reduced elements) at the
// carries of the reduction and of the karatsuba form's halves: every
// value a0 + a1·2^(16·limbs) whose halves are 0, 1, 2^(16·limbs−1),
// 2^(16·limbs) − 2 or 2^(16·limbs) − 1 (all ones: the halves' sums carry,
// 2^(32·limbs) − 1 the largest), and p − 1, p, p + 1, p + 2 and 2p − 1
// where below 2^(32·limbs).
func (c fieldCase) edges() []*big.Int {
	hb := 16 * c.limbs
	one := big.NewInt(1)
	half := fieldPowerOfTwo(hb)
	halves := []*big.Int{big.NewInt(0), one, fieldPowerOfTwo(hb - 1), new(big.Int).Sub(half, big.NewInt(2)), new(big.Int).Sub(half, one)}
	var xs []*big.Int
	for _, lo := range halves {
		for _, hi := range halves {
			xs = append(xs, new(big.Int).Add(lo, new(big.Int).Lsh(hi, uint(hb))))
		}
	}
	top := fieldPowerOfTwo(32 * c.limbs)
	for _, x := range []*big.Int{new(big.Int).Sub(c.p, one), c.p, new(big.Int).Add(c.p, one), new(big.Int).Add(c.p, big.NewInt(2)),
		new(big.Int).Sub(new(big.Int).Lsh(c.p, 1), one)} {
		if x.Cmp(top) < 0 {
			xs = append(xs, x)
		}
	}
	return xs
}

// inputs are the pairs (a, b) of the test: every pair of edges, then
// random ones, half uniform below 2^(32·limbs), half of words each 0, 1,
// all ones or random (long carry chains).
func (c fieldCase) inputs(random int) [][2]*big.Int {
	edges := c.edges()
	var ins [][2]*big.Int
	for _, a := range edges {
		for _, b := range edges {
			ins = append(ins, [2]*big.Int{a, b})
		}
	}
	var seed [32]byte
	copy(seed[:], "field "+c.name)
	rng := rand.NewChaCha8(seed)
	value := func(patterned bool) *big.Int {
		x := new(big.Int)
		for j := range c.limbs {
			w := rng.Uint64() & 0xffffffff
			if patterned {
				w = []uint64{0, 1, 0xffffffff, w}[rng.Uint64()%4]
			}
			x.Or(x, new(big.Int).Lsh(new(big.Int).SetUint64(w), uint(32*j)))
		}
		return x
	}
	for i := range random {
		ins = append(ins, [2]*big.Int{value(i%2 == 1), value(i%2 == 1)})
	}
	return ins
}

// words appends x as limbs little-endian 32-bit words, in bytes.
func (c fieldCase) words(out []byte, x *big.Int) []byte {
	for j := range c.limbs {
		w := new(big.Int).Rsh(x, uint(32*j))
		out = binary.LittleEndian.AppendUint32(out, uint32(w.Uint64()))
	}
	return out
}

// value is the number of limbs little-endian words in b.
func (c fieldCase) value(b []byte) *big.Int {
	x := new(big.Int)
	for j := c.limbs - 1; j >= 0; j-- {
		x.Lsh(x, 32).Or(x, big.NewInt(int64(binary.LittleEndian.Uint32(b[4*j:]))))
	}
	return x
}

// check compares out, field_test.h's results for ins, with math/big: each
// slot congruent to its value mod p as the function left it, and equal to
// it (below p) after canon.
func (c fieldCase) check(t *testing.T, what string, ins [][2]*big.Int, out []byte) {
	t.Helper()
	p := c.p
	element := 8 * c.limbs * fieldSlots
	require.Len(t, out, element*len(ins), what)
	exponent := new(big.Int).Sub(p, big.NewInt(2))
	for i, in := range ins {
		a, b := in[0], in[1]
		ab := new(big.Int).Mul(a, b)
		aa := new(big.Int).Mul(a, a)
		want := [fieldSlots]*big.Int{ab, aa, ab, ab, aa, aa, new(big.Int).Exp(a, exponent, p),
			new(big.Int).Add(a, b), new(big.Int).Sub(a, b), new(big.Int).Add(new(big.Int).Mul(a, big.NewInt(c.small)), b)}
		for k, w := range want {
			w = new(big.Int).Mod(w, p)
			loose := c.value(out[element*i+4*c.limbs*k:])
			canon := c.value(out[element*i+4*c.limbs*(fieldSlots+k):])
			require.Zero(t, w.Cmp(canon), "%s, element %d, %s: a = %#x, b = %#x: want %#x, got %#x (canon)", what, i, fieldSlotNames[k], a, b, w, canon)
			require.Zero(t, w.Cmp(loose.Mod(loose, p)), "%s, element %d, %s: a = %#x, b = %#x: %#x before canon is not congruent", what, i, fieldSlotNames[k], a, b, loose)
		}
	}
}

// fieldInputBytes are ins as field_test.h reads them.
func (c fieldCase) inputBytes(ins [][2]*big.Int) []byte {
	var in []byte
	for _, x := range ins {
		in = c.words(c.words(in, x[0]), x[1])
	}
	return in
}

// fieldFormName names a form by its defines ("default": none).
func fieldFormName(form map[string]string) string {
	if len(form) == 0 {
		return "default"
	}
	var ds []string
	for _, name := range slices.Sorted(maps.Keys(form)) {
		ds = append(ds, name+"="+form[name])
	}
	return strings.Join(ds, ",")
}

// fieldTestSource is c's test kernel in form.
func fieldTestSource(c fieldCase, form map[string]string) device.Source {
	sub, err := fs.Sub(fieldTestKernels, "testdata")
	if err != nil {
		panic(err)
	}
	return kernels.ProgramFrom(sub, c.name+"_test.cl", form)
}

// TestFieldOnDevice: each field's functions on the test device, in every
// form of the product, against math/big (field_test.h), on every pair of
// edge values (the halves of the karatsuba form all ones, p − 1, p,
// p + 1, 2^(32·limbs) − 1, ...) and on random and patterned values.
func TestFieldOnDevice(t *testing.T) {
	d := devicetest.Device(t)
	random := 1024
	if devicetest.Short(d) {
		random = 128
	}
	for _, c := range fieldCases {
		ins := c.inputs(random)
		in := c.inputBytes(ins)
		for _, form := range c.forms {
			what := c.name + " " + fieldFormName(form)
			t.Run(what, func(t *testing.T) {
				out := devicetest.RunKernel(t, d, fieldTestSource(c, form), "field_test", len(ins), len(ins)*8*c.limbs*fieldSlots,
					in, uint32(len(ins)))
				c.check(t, what, ins, out)
			})
		}
	}
}

// fieldHostMain runs field_test_element on stdin's elements (2·NL words
// each, the host's byte order) and writes their results to stdout.
const fieldHostMain = `
#include <stdio.h>
int main(void)
{
	static u32 in[2 * NL], out[2 * NL * TEST_SLOTS];
	while (fread(in, 4, 2 * NL, stdin) == 2 * NL) {
		field_test_element(out, in, in + NL);
		fwrite(out, 4, 2 * NL * TEST_SLOTS, stdout);
	}
	return 0;
}
`

// TestFieldOnHost: the same, the generated C compiled for the host by gcc
// (the portable limb path, the OpenCL words mapped by CShim; the host's
// words little-endian), so the forms are checked without a device. Skipped
// where gcc is missing and in -short runs.
func TestFieldOnHost(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil || testing.Short() {
		t.Skip("needs gcc and no -short")
	}
	require.Equal(t, []byte{1, 0, 0, 0}, binary.NativeEndian.AppendUint32(nil, 1), "a little-endian host")
	dir := t.TempDir()
	shim := filepath.Join(dir, "shim.h")
	require.NoError(t, os.WriteFile(shim, []byte(kernels.CShim), 0o644))
	sub, err := fs.Sub(fieldTestKernels, "testdata")
	require.NoError(t, err)
	for _, c := range fieldCases {
		ins := c.inputs(1024)
		in := c.inputBytes(ins)
		for i, form := range c.forms {
			what := c.name + " " + fieldFormName(form)
			t.Run(what, func(t *testing.T) {
				src, err := kernels.SourceFrom(sub, c.name+"_test.cl", form)
				require.NoError(t, err)
				path := filepath.Join(dir, fmt.Sprintf("%s-%d.c", c.name, i))
				require.NoError(t, os.WriteFile(path, []byte(src+fieldHostMain), 0o644))
				bin := filepath.Join(dir, fmt.Sprintf("%s-%d", c.name, i))
				args := []string{"-std=c99", "-O1", "-Werror", "-Werror=implicit-function-declaration", "-include", shim, "-o", bin}
				for _, name := range slices.Sorted(maps.Keys(form)) {
					args = append(args, "-D"+name+"="+form[name])
				}
				out, err := exec.Command(gcc, append(args, "-x", "c", path)...).CombinedOutput()
				require.NoError(t, err, "%s:\n%s", what, out)
				run := exec.Command(bin)
				run.Stdin = bytes.NewReader(in)
				out, err = run.Output()
				require.NoError(t, err, what)
				c.check(t, what, ins, out)
			})
		}
	}
}

// TestFieldCUDABuild: the fields' test kernels, in every form tested,
// compile as CUDA C for an H100 (sm_90) through NVRTC (no GPU needed;
// skipped without NVRTC or the build tag cuda unless
// GPUCRYPTO_REQUIRE_NVRTC=1).
func TestFieldCUDABuild(t *testing.T) {
	d := devicetest.CUDACompiler(t)
	for _, c := range fieldCases {
		for _, form := range c.forms {
			p, err := d.Program(fieldTestSource(c, form))
			require.NoError(t, err, "%s %s", c.name, fieldFormName(form))
			_, err = p.Kernel("field_test")
			require.NoError(t, err, "%s %s", c.name, fieldFormName(form))
		}
	}
}
