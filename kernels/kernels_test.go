package kernels

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

// source is Source that must succeed, give the same text twice (it is a
// cache key) and give one self-contained string.
func source(t *testing.T, name string, defines map[string]string) string {
	t.Helper()
	src, err := Source(name, defines)
	require.NoError(t, err, "%s %v", name, defines)
	again, err := Source(name, maps.Clone(defines))
	require.NoError(t, err)
	require.Equal(t, src, again, "%s %v: not deterministic", name, defines)
	lacks(t, src, "#include")
	lacks(t, src, "#pragma once")
	require.Equal(t, 1, strings.Count(src, "/* ---- dialect.h ---- */"), "dialect.h once")
	return src
}

// has is require.Contains without the whole source in the message.
func has(t *testing.T, src, s string) {
	t.Helper()
	require.True(t, strings.Contains(src, s), "the source lacks %q", s)
}

// lacks is require.NotContains without the whole source in the message.
func lacks(t *testing.T, src, s string) {
	t.Helper()
	require.False(t, strings.Contains(src, s), "the source has %q", s)
}

// widthsOf returns the distinct widths in the names that re matches (its
// first group), ascending.
func widthsOf(re *regexp.Regexp, src string) []int {
	var ws []int
	for _, m := range re.FindAllStringSubmatch(src, -1) {
		w, _ := strconv.Atoi(m[1])
		if !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	slices.Sort(ws)
	return ws
}

var (
	montName    = regexp.MustCompile(`\bmont_(?:cios|fios|fips|sqr|reduce_once)_(\d+)\b`)
	fp64Name    = regexp.MustCompile(`\b(?:fp64_(?:mul|sqr|from_words|to_words)|FP64_DIGITS|FP64_SHIFT)_(\d+)\b`)
	arithKernel = regexp.MustCompile(`\barith_(?:add|sub|mul)_(\d+)\b`)
)

// montDefines are the options arith.Mont.Defines gives a one-thread
// integer modexp at width w.
func montDefines(w int, variant string, sqr, unroll bool) map[string]string {
	d := map[string]string{
		"MONT_W":                       strconv.Itoa(w),
		fmt.Sprintf("MONT_WANT_%d", w): "",
		"MONT_FINAL_SUB":               "1",
		"MONT_VARIANT":                 variant,
		"MONT_SQR":                     "0",
		"WINDOW":                       "4",
	}
	if !slices.Contains(generate.MontLimbs, w) {
		d["MONT_FINAL_SUB"] = "0" // w = n+1
	}
	if sqr {
		d["MONT_SQR"] = "1"
	}
	if unroll {
		d[fmt.Sprintf("MONT_UNROLL_%d", w)] = ""
	}
	return d
}

// TestModExpSource builds modexp.cl for every width, variant and squaring
// the hosts can ask for: the width's functions are there, exactly those
// asked, and no other width's.
func TestModExpSource(t *testing.T) {
	for _, w := range generate.MontWidths() {
		for _, variant := range generate.MontVariants {
			if variant == "fips" && !generate.MontHasFIPS(w) {
				continue
			}
			for _, sqr := range []bool{false, true} {
				if sqr && !generate.MontHasSqr(w) {
					continue
				}
				unroll := w%2 == 0 // each form both ways over the widths
				src := source(t, "modexp.cl", montDefines(w, variant, sqr, unroll))
				require.Equal(t, []int{w}, widthsOf(montName, src), "w=%d %s", w, variant)
				for _, fn := range []string{"cios", "fios", "fips", "sqr", "reduce_once"} {
					want := fn == "cios" || fn == "reduce_once" || fn == variant || fn == "sqr" && sqr
					require.Equal(t, want, strings.Contains(src, fmt.Sprintf("void mont_%s_%d(", fn, w)), "w=%d %s sqr=%v: mont_%s", w, variant, sqr, fn)
				}
				require.Equal(t, variant == "fips", strings.Contains(src, "#define MONT_MAC"))
				loop := fmt.Sprintf("\t_Pragma(\"unroll 1\")\n\tfor (int i = 0; i < %d; i++)", w)
				if unroll {
					loop = fmt.Sprintf("\t_Pragma(\"unroll\")\n\tfor (int i = 0; i < %d; i++)", w)
				}
				has(t, src, loop)
				lacks(t, src, "fp64_")
			}
		}
	}
}

// TestRSASource builds rsa.cl as rsaBuild does: CIOS at the half width
// MONT_W and at the full width RSA_FW, nothing else.
func TestRSASource(t *testing.T) {
	ws := generate.MontWidths()
	for i, h := range ws {
		for _, f := range ws[i:] {
			d := montDefines(h, "cios", false, false)
			d["RSA_FW"] = strconv.Itoa(f)
			d[fmt.Sprintf("MONT_WANT_%d", f)] = ""
			if f != h {
				d["RSA_PRIVATE"] = ""
			}
			src := source(t, "rsa.cl", d)
			require.Equal(t, slices.Compact([]int{h, f}), widthsOf(montName, src))
			for _, w := range []int{h, f} {
				has(t, src, fmt.Sprintf("void mont_cios_%d(", w))
				has(t, src, fmt.Sprintf("void mont_reduce_once_%d(", w))
			}
			for _, fn := range []string{"fios", "fips", "sqr"} {
				lacks(t, src, "void mont_"+fn+"_")
			}
		}
	}
}

// TestFP64Source builds modexp_fp64.cl for every fp64 width with and
// without its squaring.
func TestFP64Source(t *testing.T) {
	for _, n := range generate.FP64Limbs {
		for _, sqr := range []bool{false, true} {
			if sqr && !generate.FP64HasSqr(n) {
				continue
			}
			d := montDefines(n, "cios", false, false)
			d[fmt.Sprintf("FP64_WANT_%d", n)] = ""
			d["FP64_SQR"] = "0"
			if sqr {
				d["FP64_SQR"] = "1"
			}
			src := source(t, "modexp_fp64.cl", d)
			require.Equal(t, []int{n}, widthsOf(fp64Name, src))
			require.Equal(t, []int{n}, widthsOf(montName, src))
			for _, fn := range []string{"mul", "from_words", "to_words"} {
				has(t, src, fmt.Sprintf("void fp64_%s_%d(", fn, n))
			}
			require.Equal(t, sqr, strings.Contains(src, fmt.Sprintf("void fp64_sqr_%d(", n)))
			has(t, src, fmt.Sprintf("#define FP64_DIGITS_%d %d ", n, generate.FP64Digits(n)))
		}
	}
}

// TestArithSource: every width without ARITH_WANT_<bits>, else those
// asked; the loop product (arith_mul.h) only where a width needs it.
func TestArithSource(t *testing.T) {
	var all []int
	for _, n := range ArithLimbs() {
		all = append(all, 32*n)
	}
	src := source(t, "arith.cl", nil)
	require.Equal(t, all, widthsOf(arithKernel, src))
	for _, bits := range all {
		for _, op := range []string{"add", "sub", "mul"} {
			has(t, src, fmt.Sprintf("KERNEL void arith_%s_%d(", op, bits))
		}
	}
	has(t, src, "mul_comba(")

	src = source(t, "arith.cl", map[string]string{"ARITH_WANT_256": "", "ARITH_WANT_512": ""})
	require.Equal(t, []int{256, 512}, widthsOf(arithKernel, src))
	lacks(t, src, "mul_comba")
	src = source(t, "arith.cl", map[string]string{"ARITH_WANT_4096": ""})
	require.Equal(t, []int{4096}, widthsOf(arithKernel, src))
	has(t, src, "mul_comba(r, a, b, 128, count)")
}

// TestCurveSource: each curve's file holds its own field and comb
// constants only, the ladder and comb kernels, and none of the removed
// experiments.
func TestCurveSource(t *testing.T) {
	for _, c := range []struct{ file, fe, other, rows string }{
		{"x25519.cl", "fe25519", "fe448", "32"},
		{"x448.cl", "fe448", "fe25519", "23"},
	} {
		src := source(t, c.file, nil)
		curve := strings.TrimSuffix(c.file, ".cl")
		has(t, src, "DEVICE_FN void "+c.fe+"_mul(")
		has(t, src, "DEVICE_FN void "+c.fe+"_invert(")
		require.False(t, strings.Contains(src, "DEVICE_FN void "+c.other+"_"), "%s: %s code", c.file, c.other)
		has(t, src, "#define COMB_ROWS "+c.rows+"\n")
		require.Equal(t, 1, strings.Count(src, "#define COMB_TABLE_WORDS "))
		for _, k := range []string{
			"LADDER_KERNEL " + curve, "LADDER_XZ_KERNEL " + curve + "_xz",
			"COMB_KERNEL " + curve + "_base_comb", "COMB_XZ_KERNEL " + curve + "_base_comb_xz",
			"BATCH_INVERT_KERNEL " + curve + "_invert_batch",
		} {
			has(t, src, "#define "+k+"\n")
		}
		for _, gone := range []string{"LADDER_BASE_KERNEL", "BASE_U", "COMB_TABLE_CONSTANT", "comb_table", "COMB_X25519", "COMB_X448", "CONSTANT_DECL u32"} {
			lacks(t, src, gone)
		}
	}
}

// TestSourceErrors: options that ask for code which does not exist fail
// in Source, naming the virtual file.
func TestSourceErrors(t *testing.T) {
	with := func(d map[string]string, set ...string) map[string]string {
		d = maps.Clone(d)
		for i := 0; i < len(set); i += 2 {
			if set[i+1] == "-" {
				delete(d, set[i])
			} else {
				d[set[i]] = set[i+1]
			}
		}
		return d
	}
	m32, m64 := montDefines(32, "cios", false, false), montDefines(64, "cios", false, false)
	fp := with(m64, "FP64_WANT_64", "", "FP64_SQR", "0")
	for _, c := range []struct {
		file    string
		defines map[string]string
		want    string
	}{
		{"modexp.cl", map[string]string{"MONT_W": "20", "MONT_WANT_20": "", "MONT_VARIANT": "cios"}, "kernels: mont_gen.h (via modexp.cl, modexp.h): no Montgomery code for 20 words"},
		{"modexp.cl", with(m32, "MONT_WANT_32", "-"), "no MONT_WANT_<W> define"},
		{"modexp.cl", with(m32, "MONT_WANT_x", ""), `MONT_WANT_x: "x" is not a width`},
		{"modexp.cl", with(m32, "MONT_WANT_032", ""), `MONT_WANT_032: "032" is not a width`},
		{"modexp.cl", with(m32, "MONT_VARIANT", "foo"), "MONT_VARIANT=foo: unknown Montgomery variant"},
		{"modexp.cl", with(m32, "MONT_VARIANT", ""), "MONT_VARIANT=: unknown Montgomery variant"},
		{"modexp.cl", with(m64, "MONT_VARIANT", "fips"), "no FIPS product for 64 words"},
		{"modexp.cl", with(m64, "MONT_SQR", "1"), "no dedicated squaring for 64 words"},
		{"modexp.cl", with(m32, "MONT_SQR", "2"), "MONT_SQR=2: want 0 or 1"},
		{"modexp.cl", with(m32, "MONT_W", "64"), "MONT_W=64 is not one of the widths asked"},
		{"rsa.cl", with(m32, "RSA_FW", "80", "MONT_WANT_80", ""), "no Montgomery code for 80 words"},
		{"modexp_fp64.cl", with(fp, "FP64_WANT_64", "-", "FP64_WANT_48", ""), "kernels: fp64_gen.h (via modexp_fp64.cl, modexp_fp64.h): no fp64 code for 48 words"},
		{"modexp_fp64.cl", with(fp, "FP64_WANT_64", "-"), "no FP64_WANT_<n> define"},
		{"modexp_fp64.cl", with(fp, "FP64_SQR", "1"), "no fp64 squaring for 64 words"},
		{"arith.cl", map[string]string{"ARITH_WANT_100": ""}, "ARITH_WANT_100: not a whole number of 32-bit limbs"},
		{"arith.cl", map[string]string{"ARITH_WANT_96": ""}, "kernels: arith_gen.h (via arith.cl): no arith kernels for 96 bits"},
		{"missing.cl", nil, "kernels: missing.cl"},
	} {
		_, err := Source(c.file, c.defines)
		require.ErrorContains(t, err, c.want, "%s %v", c.file, c.defines)
	}
}

// TestNoGeneratedFileInTree: the *_gen.h files exist only as generator
// output, and only limb_ptx.h (of the tree and of that output) has PTX.
func TestNoGeneratedFileInTree(t *testing.T) {
	entries, err := files.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		require.NotContains(t, e.Name(), "_gen.h", "generated files are virtual")
		data, err := files.ReadFile(e.Name())
		require.NoError(t, err)
		if e.Name() != "limb_ptx.h" {
			require.NotContains(t, string(data), "asm", "%s: inline PTX belongs in limb_ptx.h", e.Name())
		}
	}
	everything := options{"MONT_VARIANT": "fios", "MONT_SQR": "0", "FP64_SQR": "0"}
	for _, w := range generate.MontWidths() {
		everything[fmt.Sprintf("MONT_WANT_%d", w)] = ""
	}
	for _, n := range generate.FP64Limbs {
		everything[fmt.Sprintf("FP64_WANT_%d", n)] = ""
	}
	for name, gen := range generated {
		require.True(t, strings.HasSuffix(name, "_gen.h"), name)
		text, err := gen(everything)
		require.NoError(t, err, name)
		require.False(t, strings.Contains(text, "asm"), "%s: inline PTX belongs in limb_ptx.h", name)
		require.False(t, strings.Contains(text, "#pragma once"), name)
	}
}

// The field product's rows: a loop of FIELD_MUL_ROWS per iteration
// (default 4 for X25519, 2 for X448), unrolled at the field's width;
// numbers of rows that do not divide it are errors, not sources.
func TestFieldMulRows(t *testing.T) {
	for _, c := range []struct {
		file  string
		limbs int
		def   int
	}{{"x25519.cl", 8, 4}, {"x448.cl", 14, 2}} {
		src := source(t, c.file, nil)
		has(t, src, fmt.Sprintf("for (int i = 0; i < %d; i += %d) {", c.limbs, c.def))
		src = source(t, c.file, map[string]string{"FIELD_MUL_ROWS": fmt.Sprint(c.limbs)})
		require.False(t, strings.Contains(src, "bl[i + 0]"), "%s unrolled: no row loop", c.file)
		src = source(t, c.file, map[string]string{"FIELD_MUL_ROWS": "1"})
		has(t, src, fmt.Sprintf("for (int i = 0; i < %d; i += 1) {", c.limbs))
		for _, bad := range []string{"3", "0", "-2", "x"} {
			_, err := Source(c.file, map[string]string{"FIELD_MUL_ROWS": bad})
			require.Error(t, err, "%s FIELD_MUL_ROWS=%s", c.file, bad)
		}
	}
}

// The karatsuba form of X448's field (FIELD_MUL_FORM): three 7-limb half
// products (two multiply instructions per partial product: 3·49 pairs in
// the product, 3·28 in the squaring, against 196 and 105), the product's
// halves a loop of one row per iteration by default and unrolled at 7;
// schoolbook is the default form; other forms, X25519's karatsuba and
// numbers of rows that do not divide 7 are errors.
func TestFieldMulForm(t *testing.T) {
	muls := func(src, fn string) int { // multiply macros in fn's body
		_, body, ok := strings.Cut(src, "DEVICE_FN void "+fn+"(")
		require.True(t, ok, fn)
		body, _, _ = strings.Cut(body, "\n}\n")
		return strings.Count(body, "MADLO") + strings.Count(body, "MADHI")
	}
	def := source(t, "x448.cl", nil)
	require.Equal(t, def, source(t, "x448.cl", map[string]string{"FIELD_MUL_FORM": "schoolbook"}))
	unrolled := source(t, "x448.cl", map[string]string{"FIELD_MUL_ROWS": "14"})
	require.Equal(t, 2*196, muls(unrolled, "fe448_mul"))
	require.Equal(t, 2*105, muls(def, "fe448_sqr"))

	src := source(t, "x448.cl", map[string]string{"FIELD_MUL_FORM": "karatsuba"})
	require.Equal(t, 3, strings.Count(src, "for (int i = 0; i < 7; i += 1) {"), "the product's three halves in loops")
	has(t, src, "const u32 *a1 = a + 7;")
	require.Equal(t, 2*3*28, muls(src, "fe448_sqr"))
	src = source(t, "x448.cl", map[string]string{"FIELD_MUL_FORM": "karatsuba", "FIELD_MUL_ROWS": "7"})
	lacks(t, src, "bl[i + 0]")
	require.Equal(t, 2*3*49, muls(src, "fe448_mul"))
	require.Equal(t, 2*3*28, muls(src, "fe448_sqr"))
	require.Equal(t, source(t, "x25519.cl", nil), source(t, "x25519.cl", map[string]string{"FIELD_MUL_FORM": "schoolbook"}))

	for _, c := range []struct {
		file    string
		defines map[string]string
		want    string
	}{
		{"x448.cl", map[string]string{"FIELD_MUL_FORM": "toom"}, "FIELD_MUL_FORM=toom: unknown form"},
		{"x448.cl", map[string]string{"FIELD_MUL_FORM": ""}, "FIELD_MUL_FORM=: unknown form"},
		{"x448.cl", map[string]string{"FIELD_MUL_FORM": "karatsuba", "FIELD_MUL_ROWS": "2"}, "2 rows per iteration do not divide the halves' 7 limbs"},
		{"x448.cl", map[string]string{"FIELD_MUL_FORM": "karatsuba", "FIELD_MUL_ROWS": "14"}, "14 rows per iteration do not divide the halves' 7 limbs"},
		{"x25519.cl", map[string]string{"FIELD_MUL_FORM": "karatsuba"}, "fe25519: no karatsuba form"},
	} {
		_, err := Source(c.file, c.defines)
		require.ErrorContains(t, err, c.want, "%s %v", c.file, c.defines)
	}
}

// An #include with a comment after the name resolves like one without
// (each file once); one the resolver cannot read (angle brackets, a macro)
// is an error, not a line passed on for the compiler to include again.
func TestIncludeLines(t *testing.T) {
	tree := fstest.MapFS{
		"a.cl":   {Data: []byte("#include \"b.h\" /* b */\n#include \"b.h\" // again\nint a;\n")},
		"b.h":    {Data: []byte("#pragma once\nint b;\n")},
		"bad.cl": {Data: []byte("#include <b.h>\n")},
	}
	src, err := SourceFrom(tree, "a.cl", nil)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(src, "int b;"))
	lacks(t, src, "#include")
	_, err = SourceFrom(tree, "bad.cl", nil)
	require.ErrorContains(t, err, "cannot read")
}
