package generate

import (
	"fmt"
	"slices"
	"strings"
)

// FP64Limbs are the modulus widths, in 32-bit limbs, of the floating-point
// Montgomery code (512, 1024 and 2048 bits).
var FP64Limbs = []int{16, 32, 64}

// fp64SqrMax: widths up to this get the dedicated squaring, whose square
// part is straight-line code (n(n+1)/2 digit products) even on CPU devices.
const fp64SqrMax = 32

// fp64Bits is the digit size of the floating-point representation. 51, not
// 52: the constant K = 2^103 + 3·2^51 of FP64_SPLIT (fp64.h), the high
// half's anchor plus the low half's offset, spans 53 bits and is a double,
// so one subtraction and one fma give the low half already offset into
// [2^52, 2^53). With 52-bit digits it would be 2^104 + 3·2^51 (54 bits),
// and every product would need a second subtraction.
const fp64Bits = 51

// FP64Digits is the number of 51-bit digits for an n-limb modulus m: the
// least d with 51d ≥ 32n + 2, so that R = 2^(51d) ≥ 4m and products of
// values below 2m stay below 2m without a final subtraction (Orup 1995).
func FP64Digits(n int) int { return (32*n + 2 + fp64Bits - 1) / fp64Bits }

// FP64HasSqr reports whether the dedicated squaring exists at n limbs.
func FP64HasSqr(n int) bool { return n <= fp64SqrMax }

// Offsets of the bit patterns that FP64_SPLIT yields (mirrors fp64.h): the
// pattern of the high half is fp64BH + H, that of the low half fp64BL + L.
// Both are multiples of 2^51, so they never change a column mod 2^51.
const (
	fp64BL uint64 = 0x433<<52 | 1<<51 // bits(2^52) + 2^51
	fp64BH uint64 = 0x466 << 52       // bits(2^103)
)

// neg is −x mod 2^64 as a C constant.
func neg(x uint64) string { return fmt.Sprintf("0x%016xul", -x) }

// FP64Width asks fp64_gen.h for the code of one modulus width.
type FP64Width struct {
	N   int  // 32-bit limbs, one of FP64Limbs
	Sqr bool // the dedicated squaring fp64_sqr_<N>
}

// FP64 returns fp64_gen.h for the widths asked, in their order: Montgomery
// multiplication on 51-bit digits held in doubles (fp64_mul_<n>, CIOS
// rows), the dedicated squaring (fp64_sqr_<n>, up to 1024 bits) when Sqr
// asks, the conversions between 32-bit words and digits
// (fp64_from_words_<n>, fp64_to_words_<n>) and the constants
// FP64_DIGITS_<n> and FP64_SHIFT_<n>. It fails for a width or squaring
// that has no code.
//
// Contract of fp64_mul_<n> and fp64_sqr_<n>: d = FP64_DIGITS_<n> digits
// per operand, each an integer in [0, 2^51) (a double); a and b below 2m,
// m odd, n0 = −m^(−1) mod 2^51. r = a·b·2^(−51d) mod m, below 2m, in
// digits. r may alias a. No branch and no index depends on data. b is the
// bit patterns of its digits in memory, digit i at b[i·bstride] (fp64_mul
// only: the squaring takes none).
func FP64(widths []FP64Width) (string, error) {
	for _, w := range widths {
		if !slices.Contains(FP64Limbs, w.N) {
			return "", fmt.Errorf("no fp64 code for %d words (have %v)", w.N, FP64Limbs)
		}
		if w.Sqr && !FP64HasSqr(w.N) {
			return "", fmt.Errorf("no fp64 squaring for %d words (it exists up to %d)", w.N, fp64SqrMax)
		}
	}
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("#include \"fp64.h\"\n")
	for _, w := range widths {
		n, d := w.N, FP64Digits(w.N)
		fmt.Fprintf(&b, "\n#define FP64_DIGITS_%d %d /* R = 2^%d */\n", n, d, fp64Bits*d)
		// R'^2 = 2^(2k) mod m from R^2 = 2^(2r) (k = 51d, r = 32n):
		// MP(MP(R^2, R^2), 2^s) = 2^(4r − 2k + s) with s = 4(k − r).
		fmt.Fprintf(&b, "#define FP64_SHIFT_%d %d /* 4·(%d − %d) */\n", n, 4*(fp64Bits*d-32*n), fp64Bits*d, 32*n)
		fp64FromWords(&b, n, d)
		fp64ToWords(&b, n, d)
		fp64Mul(&b, n, d)
		if w.Sqr {
			fp64Sqr(&b, n, d)
		}
	}
	return b.String(), nil
}

func fp64Fn(b *strings.Builder, comment, sig string, body func(e *emitter)) {
	var e emitter
	body(&e)
	fmt.Fprintf(b, "\n/* %s */\nDEVICE_FN void %s\n{\n%s}\n", comment, sig, e.b.String())
}

// fp64FromWords: digit i is bits [51i, 51i+51) of the n-word value.
func fp64FromWords(b *strings.Builder, n, d int) {
	fp64Fn(b, fmt.Sprintf("%d words → %d digits of 51 bits (any value below 2^%d)", n, d, 32*n),
		fmt.Sprintf("fp64_from_words_%d(double *r, const u32 *w)", n), func(e *emitter) {
			for i := range d {
				k, s := fp64Bits*i/32, fp64Bits*i%32
				var terms []string
				if k < n && s == 0 {
					terms = append(terms, fmt.Sprintf("(u64)w[%d]", k))
				} else if k < n {
					terms = append(terms, fmt.Sprintf("(u64)w[%d] >> %d", k, s))
				}
				if k+1 < n {
					terms = append(terms, fmt.Sprintf("(u64)w[%d] << %d", k+1, 32-s))
				}
				if k+2 < n && 64-s < fp64Bits {
					terms = append(terms, fmt.Sprintf("(u64)w[%d] << %d", k+2, 64-s))
				}
				if len(terms) == 0 {
					e.f("r[%d] = 0.0;", i)
					continue
				}
				e.f("r[%d] = FP64_DIGIT((%s) & FP64_MASK);", i, strings.Join(terms, " | "))
			}
		})
}

// fp64ToWords: word k is bits [32k, 32k+32) of the digits.
func fp64ToWords(b *strings.Builder, n, d int) {
	fp64Fn(b, fmt.Sprintf("%d digits → %d words (the value must be below 2^%d)", d, n, 32*n),
		fmt.Sprintf("fp64_to_words_%d(u32 *w, const double *a)", n), func(e *emitter) {
			used := (32*n + fp64Bits - 1) / fp64Bits
			for i := range used {
				e.f("const u64 d%d = FP64_VALUE(a[%d]);", i, i)
			}
			for k := range n {
				i, s := 32*k/fp64Bits, 32*k%fp64Bits
				x := fmt.Sprintf("(u32)(d%d >> %d)", i, s)
				if s == 0 {
					x = fmt.Sprintf("(u32)d%d", i)
				}
				if fp64Bits-s < 32 && i+1 < used {
					x += fmt.Sprintf(" | (u32)(d%d << %d)", i+1, fp64Bits-s)
				}
				e.f("w[%d] = %s;", k, x)
			}
		})
}

// fp64Split emits the exact split of x·y into hi and lo (FP64_SPLIT).
func fp64Split(e *emitter, hi, lo, x, y string) {
	e.f("FP64_SPLIT(%s, %s, %s, %s);", hi, lo, x, y)
}

// sumBits emits dst = init + the bit patterns of terms (+ extra words).
func sumBits(e *emitter, decl, dst, init string, terms []string, extra ...string) {
	parts := []string{}
	if init != "" {
		parts = append(parts, init)
	}
	for _, t := range terms {
		parts = append(parts, "F64_BITS("+t+")")
	}
	parts = append(parts, extra...)
	if decl != "" {
		e.f("%s%s = %s;", decl, dst, strings.Join(parts, " + "))
		return
	}
	e.f("%s += %s;", dst, strings.Join(parts, " + "))
}

// fp64Reduce emits the reduction half of a row: q = t0·n0 mod 2^51, then
// t += m·q by digits, the carry of t0 (now a multiple of 2^51) into t1, the
// shift down by one digit and the top column's initial value. scale is the
// number of split products per column per row (2 with the a·b_i half, 1 in
// the squaring's rows), which sets the offsets the new top column cancels.
func fp64Reduce(e *emitter, d, scale int) {
	e.f("const u64 q = (t0 * n0) & FP64_MASK;")
	e.f("const double qd = FP64_DIGIT(q);")
	for j := range d {
		fp64Split(e, fmt.Sprintf("hm%d", j), fmt.Sprintf("xm%d", j), fmt.Sprintf("m[%d]", j), "qd")
	}
	e.f("t0 += F64_BITS(xm0); /* now a multiple of 2^51 */")
	sumBits(e, "", "t1", "", []string{"xm1", "hm0"}, "(u64)((i64)t0 >> 51)")
	for j := 2; j < d; j++ {
		sumBits(e, "", fmt.Sprintf("t%d", j), "", []string{fmt.Sprintf("xm%d", j), fmt.Sprintf("hm%d", j-1)})
	}
	sumBits(e, "", fmt.Sprintf("t%d", d), "", []string{fmt.Sprintf("hm%d", d-1)})
	for j := range d {
		e.f("t%d = t%d;", j, j+1)
	}
	// The column entering at the top after row i is column c = i+d+1; it
	// receives scale high halves at position d and scale·(1 low + 1 high)
	// at positions d−1 .. c−d+1 before it is final: 2d−1−c = d−2−i rows.
	e.f("t%d = (u64)0 - (%d * FP64_BH + (u64)(%d - i) * (%d * (FP64_BL + FP64_BH))); /* offsets it will receive */",
		d, scale, d-2, scale)
}

// fp64Normalize emits r = the digits of t0..t(d−1) (true values, signed),
// carrying from the bottom: each digit keeps 51 bits, the rest moves up.
// The value is below 2m < 2^(51d), so the final carry is zero.
func fp64Normalize(e *emitter, d int) {
	e.f("u64 v = t0;")
	e.f("r[0] = FP64_DIGIT(v & FP64_MASK);")
	for j := 1; j < d; j++ {
		e.f("v = t%d + (u64)((i64)v >> 51);", j)
		e.f("r[%d] = FP64_DIGIT(v & FP64_MASK);", j)
	}
}

// rowOffset is what a column receives from the split products of the rows
// before it is read: with scale products per column per row, column c < d
// is read at position 0 of row c after scale low halves there and
// scale·(low + high) at each of positions c..1; column d gets scale high
// halves at position d and scale·(low + high) at positions d−1..1.
func rowOffset(c, d, scale int) uint64 {
	s := uint64(scale)
	if c < d {
		return s*fp64BL + uint64(c)*s*(fp64BL+fp64BH)
	}
	return s*fp64BH + uint64(2*d-1-c)*s*(fp64BL+fp64BH)
}

// fp64Mul: CIOS. The multiplier b is read a digit per row from memory
// (its bit patterns, stride bstride): held in registers beside a, m and
// the columns, it made the exponentiation spill. Row i adds a·b_i into
// the 64-bit columns t0..td (low
// half of digit product j into t_j, high half into t_(j+1)), takes
// q = t0·n0 mod 2^51 (it depends on t0 alone), adds m·q, carries t0
// (a multiple of 2^51) into t1 and shifts. Each column starts at minus the
// offsets of the bit patterns it will receive, so the columns hold true
// (signed) values whenever they are read.
func fp64Mul(b *strings.Builder, n, d int) {
	fp64Fn(b, fmt.Sprintf("fp64 Montgomery product, %d-bit moduli: %d digits, CIOS rows", 32*n, d),
		fmt.Sprintf("fp64_mul_%d(double *r, const double *a, GLOBAL const u64 *b, const u32 bstride, const double *m, const u64 n0)", n),
		func(e *emitter) {
			inits := make([]string, d+1)
			for c := range d + 1 {
				inits[c] = fmt.Sprintf("t%d = %s", c, neg(rowOffset(c, d, 2)))
			}
			e.f("u64 %s;", strings.Join(inits, ", "))
			e.b.WriteString("\tFP64_ROWS\n\tfor (int i = 0; i < " + fmt.Sprint(d) + "; i++) {\n")
			e.f("const double bi = F64_FROM_BITS(b[(u32)i * bstride]);")
			fp64Split(e, "ha0", "xa0", "a[0]", "bi")
			e.f("t0 += F64_BITS(xa0);")
			for j := 1; j < d; j++ {
				fp64Split(e, fmt.Sprintf("ha%d", j), fmt.Sprintf("xa%d", j), fmt.Sprintf("a[%d]", j), "bi")
				sumBits(e, "", fmt.Sprintf("t%d", j), "", []string{fmt.Sprintf("xa%d", j), fmt.Sprintf("ha%d", j-1)})
			}
			sumBits(e, "", fmt.Sprintf("t%d", d), "", []string{fmt.Sprintf("ha%d", d-1)})
			fp64Reduce(e, d, 2)
			e.b.WriteString("\t}\n")
			fp64Normalize(e, d)
		})
}

// fp64Sqr: the square by product scanning into columns s0..s(2d−1); then
// d reduction rows as in fp64Mul without the a·b_i half, feeding the high
// columns in one per row (the integer mont_sqr's order). Each
// off-diagonal product a_i·a_j (i < j) is formed once: its halves are
// summed apart from the diagonal ones, and that sum doubled (one shift per
// column) counts it twice. Doubling the sum, not a digit, keeps no array of
// doubled digits live (21 doubles at 1024 bits) beside the columns.
func fp64Sqr(b *strings.Builder, n, d int) {
	fp64Fn(b, fmt.Sprintf("fp64 Montgomery squaring, %d-bit moduli: %d digits, square once, then reduce", 32*n, d),
		fmt.Sprintf("fp64_sqr_%d(double *r, const double *a, const double *m, const u64 n0)", n),
		func(e *emitter) {
			var prevOff, prevDiag []string // high halves of column c−1's products
			for c := 0; c < 2*d; c++ {
				var off, diag, hiOff, hiDiag []string
				for i := max(0, c-d+1); 2*i <= c && c-i < d; i++ {
					j := c - i
					h, x := fmt.Sprintf("hs%d_%d", i, j), fmt.Sprintf("xs%d_%d", i, j)
					fp64Split(e, h, x, fmt.Sprintf("a[%d]", i), fmt.Sprintf("a[%d]", j))
					if i == j {
						diag, hiDiag = append(diag, x), append(hiDiag, h)
					} else {
						off, hiOff = append(off, x), append(hiOff, h)
					}
				}
				// column offsets: every pattern carries its half's offset,
				// the doubled ones twice; columns up to d also cancel what
				// the rows add before reading them (one product per column
				// per row).
				offTerms, diagTerms := append(off, prevOff...), append(diag, prevDiag...)
				nl, nh := uint64(len(diag)+2*len(off)), uint64(len(prevDiag)+2*len(prevOff))
				offset := nl*fp64BL + nh*fp64BH
				if c <= d {
					offset += rowOffset(c, d, 1)
				}
				decl := "const u64 "
				if c <= d {
					decl = "u64 "
				}
				name := fmt.Sprintf("t%d", c)
				if c > d {
					name = fmt.Sprintf("s%d", c)
				}
				var extra []string
				if len(offTerms) > 0 {
					sumBits(e, "const u64 ", fmt.Sprintf("o%d", c), "", offTerms)
					extra = append(extra, fmt.Sprintf("(o%d << 1)", c))
				}
				sumBits(e, decl, name, neg(offset), diagTerms, extra...)
				prevOff, prevDiag = hiOff, hiDiag
			}
			// Column d is t_d already; row i (i ≥ 1) adds column i+d at
			// position d−1 after its shift, where that column now sits.
			hs := []string{"0"}
			for c := d + 1; c < 2*d; c++ {
				hs = append(hs, fmt.Sprintf("s%d", c))
			}
			e.f("const u64 sh[%d] = { %s };", d, strings.Join(hs, ", "))
			e.b.WriteString("\tFP64_ROWS\n\tfor (int i = 0; i < " + fmt.Sprint(d) + "; i++) {\n")
			fp64Reduce(e, d, 1)
			e.f("t%d += sh[i]; /* column i+%d of the square */", d-1, d)
			e.b.WriteString("\t}\n")
			fp64Normalize(e, d)
		})
}
