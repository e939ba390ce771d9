package generate

import (
	"fmt"
	"slices"
	"strings"
)

// MontLimbs are the modulus widths, in 32-bit limbs, of the Montgomery code
// (512 to 4096 bits). Each has code at two widths: n for the form with a
// masked final subtraction, and n+1 for the no-final-subtraction
// form (one extra word, values kept below 2N; Orup 1995, zheng 2014 Alg. 1).
var MontLimbs = []int{16, 32, 48, 64, 96, 128}

// Widths up to these get the fully unrolled product-scanning (FIPS) and
// squaring code, whose size grows with the square of the width; wider
// numbers use the operand-scanning forms only.
const (
	montFIPSMax = 33
	montSqrMax  = 33
)

// MontWidths lists every width W that mont_gen.h has code for, ascending.
func MontWidths() []int {
	var ws []int
	for _, n := range MontLimbs {
		ws = append(ws, n, n+1)
	}
	slices.Sort(ws)
	return ws
}

// MontHasFIPS and MontHasSqr report which optional functions exist at a width.
func MontHasFIPS(w int) bool { return w <= montFIPSMax }
func MontHasSqr(w int) bool  { return w <= montSqrMax }

// MontVariants are the interleavings of the Montgomery product: CIOS
// and FIOS exist at every width, FIPS where MontHasFIPS.
var MontVariants = []string{"cios", "fios", "fips"}

// MontWidth asks mont_gen.h for the code of one width.
type MontWidth struct {
	W int // words, one of MontWidths
	// Variant is the product emitted beside mont_cios_<W>: "fios" or
	// "fips"; "" or "cios" for none.
	Variant string
	Sqr     bool // the dedicated squaring mont_sqr_<W>
	// Unroll asks the compiler to unroll the loop over the words of b
	// fully (all indices constant: b in registers, but a copy of W rows at
	// every call site); else it stays a loop (small code; b is read from
	// memory once per row).
	Unroll bool
}

// Mont returns mont_gen.h for the widths asked, in their order:
// Montgomery multiplication r = a·b·2^(−32W) mod m in the interleavings
// of Koç et al. compared by neves-araujo 2011 — CIOS (coarsely integrated
// operand scanning, mont_cios_<W>, always emitted), FIOS (finely
// integrated operand scanning) or FIPS (finely integrated product
// scanning) as Variant asks — the dedicated squaring when Sqr asks, and
// mont_reduce_once_<W>. It fails for a width, variant or squaring that
// has no code.
//
// Contract of every mont_* function: a, b and m are private arrays of W
// words, n0 = −m^(−1) mod 2^32, m odd. With MONT_FINAL_SUB=1 (the default)
// inputs below m give the canonical result below m (a masked subtraction,
// no branch). With MONT_FINAL_SUB=0 (the no-final-subtraction form) inputs
// below 2m give a result below 2m, which needs 4m < 2^(32W): callers use
// width n+1 for an n-word modulus. r may alias a or b. Nothing depends on
// data but the values: no branch, no data-dependent index.
func Mont(widths []MontWidth) (string, error) {
	fips := false
	for _, w := range widths {
		if !slices.Contains(MontWidths(), w.W) {
			return "", fmt.Errorf("no Montgomery code for %d words (have %v)", w.W, MontWidths())
		}
		switch {
		case w.Variant != "" && !slices.Contains(MontVariants, w.Variant):
			return "", fmt.Errorf("unknown Montgomery variant %q (have %v)", w.Variant, MontVariants)
		case w.Variant == "fips" && !MontHasFIPS(w.W):
			return "", fmt.Errorf("no FIPS product for %d words (it exists up to %d)", w.W, montFIPSMax)
		case w.Sqr && !MontHasSqr(w.W):
			return "", fmt.Errorf("no dedicated squaring for %d words (it exists up to %d)", w.W, montSqrMax)
		}
		fips = fips || w.Variant == "fips"
	}
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("#include \"limb.h\"\n")
	b.WriteString("#ifndef MONT_FINAL_SUB\n#define MONT_FINAL_SUB 1\n#endif\n")
	if fips {
		b.WriteString("/* (x:u:v) += a·b, the three-word accumulator of the FIPS columns */\n")
		b.WriteString("#define MONT_MAC(a, b) do { MADLO_CC(v, a, b, v); MADHIC_CC(u, a, b, u); ADDC(x, x, 0u); } while (0)\n")
	}
	for _, w := range widths {
		rows := "\t_Pragma(\"unroll 1\")\n"
		if w.Unroll {
			rows = "\t_Pragma(\"unroll\")\n"
		}
		montCIOS(&b, w.W, rows)
		switch w.Variant {
		case "fios":
			montFIOS(&b, w.W, rows)
		case "fips":
			montFIPS(&b, w.W)
		}
		if w.Sqr {
			montSqr(&b, w.W, rows)
		}
		montReduceOnce(&b, w.W)
	}
	return b.String(), nil
}

func montFn(b *strings.Builder, comment, sig string, body func(e *emitter)) {
	var e emitter
	body(&e)
	fmt.Fprintf(b, "\n/* %s */\nDEVICE_FN void %s\n{\n\tCARRY_DECL;\n%s}\n", comment, sig, e.b.String())
}

// tDecl declares the accumulator words t0..t(k-1), all zero.
func tDecl(e *emitter, k int) {
	names := make([]string, k)
	for j := range names {
		names[j] = fmt.Sprintf("t%d = 0", j)
	}
	e.f("u32 %s;", strings.Join(names, ", "))
}

// rowAdd emits t[0..w+1] += x[0..w-1]·y as one lo chain and one hi chain
// (t(w+1) receives both carries; it is zero on entry).
func rowAdd(e *emitter, w int, x, y string) {
	for j := range w {
		op := "MADLOC_CC"
		if j == 0 {
			op = "MADLO_CC"
		}
		e.f("%s(t%d, %s[%d], %s, t%d);", op, j, x, j, y, j)
	}
	e.f("ADDC_CC(t%d, t%d, 0u);", w, w)
	e.f("ADDC(t%d, t%d, 0u);", w+1, w+1)
	for j := range w {
		op := "MADHIC_CC"
		if j == 0 {
			op = "MADHI_CC"
		}
		e.f("%s(t%d, %s[%d], %s, t%d);", op, j+1, x, j, y, j+1)
	}
	e.f("ADDC(t%d, t%d, 0u);", w+1, w+1)
}

// shiftDown emits t_j = t_(j+1) for the k words t0..t(k-1), clearing the top.
func shiftDown(e *emitter, k int) {
	for j := 0; j+1 < k; j++ {
		e.f("t%d = t%d;", j, j+1)
	}
	e.f("t%d = 0;", k-1)
}

// maskedSub emits r = x − m when x ≥ m, else x, without a branch: d = x − m
// in one borrow chain (top, when not "", is a word above x's w words whose
// borrow counts too), then a select by the all-ones borrow mask. x(j)
// names word j of x.
func maskedSub(e *emitter, w int, x func(j int) string, top string) {
	e.f("u32 d[%d], bw;", w)
	for j := range w {
		op := "SUBC_CC"
		if j == 0 {
			op = "SUB_CC"
		}
		e.f("%s(d[%d], %s, m[%d]);", op, j, x(j), j)
	}
	if top != "" {
		e.f("SUBC_CC(bw, %s, 0u);", top)
	}
	e.f("SUBC(bw, 0u, 0u); /* all ones when x < m: keep x */")
	for j := range w {
		e.f("r[%d] = (%s & bw) | (d[%d] & ~bw);", j, x(j), j)
	}
}

// montFinish writes the W+1-word value t0..tW (below 2m) to r: canonical
// with MONT_FINAL_SUB, else as it is (tW is then zero).
func montFinish(e *emitter, w int) {
	e.b.WriteString("#if MONT_FINAL_SUB\n")
	maskedSub(e, w, func(j int) string { return fmt.Sprintf("t%d", j) }, fmt.Sprintf("t%d", w))
	e.b.WriteString("#else\n")
	for j := range w {
		e.f("r[%d] = t%d;", j, j)
	}
	e.b.WriteString("#endif\n")
}

const montSig = "(u32 *r, const u32 *a, const u32 *b, const u32 *m, const u32 n0)"

// montCIOS: for each word b_i, t += a·b_i (one row), q = t0·n0,
// t = (t + q·m) / 2^32 (a second row and a shift). Each row is unrolled;
// rows (a pragma, MontWidth.Unroll) says whether the loop over them is too.
func montCIOS(b *strings.Builder, w int, rows string) {
	montFn(b, fmt.Sprintf("CIOS, %d words: two carry-chained rows per word of b", w),
		fmt.Sprintf("mont_cios_%d%s", w, montSig), func(e *emitter) {
			tDecl(e, w+2)
			e.b.WriteString(rows + "\tfor (int i = 0; i < " + fmt.Sprint(w) + "; i++) {\n")
			e.f("const u32 bi = b[i];")
			rowAdd(e, w, "a", "bi")
			e.f("const u32 q = t0 * n0;")
			rowAdd(e, w, "m", "q")
			shiftDown(e, w+2)
			e.b.WriteString("\t}\n")
			montFinish(e, w)
		})
}

// montFIOS: one inner loop that adds a_j·b_i and m_j·q for each j with
// 64-bit products (32×32+32+32 never overflows 64 bits) and two running
// carries, the redundant carry of neves-araujo Alg. 3. Portable C: on
// NVIDIA the products map to IMAD.WIDE.
func montFIOS(b *strings.Builder, w int, rows string) {
	montFn(b, fmt.Sprintf("FIOS, %d words: multiply and reduce in one pass, 64-bit products", w),
		fmt.Sprintf("mont_fios_%d%s", w, montSig), func(e *emitter) {
			tDecl(e, w+1)
			e.b.WriteString(rows + "\tfor (int i = 0; i < " + fmt.Sprint(w) + "; i++) {\n")
			e.f("const u32 bi = b[i];")
			e.f("u64 s = (u64)a[0] * bi + t0;")
			e.f("u32 ca = (u32)(s >> 32);")
			e.f("const u32 q = (u32)s * n0;")
			e.f("u64 p = (u64)m[0] * q + (u32)s;")
			e.f("u32 cm = (u32)(p >> 32);")
			for j := 1; j < w; j++ {
				e.f("s = (u64)a[%d] * bi + t%d + ca; ca = (u32)(s >> 32);", j, j)
				e.f("p = (u64)m[%d] * q + (u32)s + cm; cm = (u32)(p >> 32); t%d = (u32)p;", j, j-1)
			}
			e.f("s = (u64)t%d + ca + cm; t%d = (u32)s; t%d = (u32)(s >> 32);", w, w-1, w)
			e.b.WriteString("\t}\n")
			montFinish(e, w)
		})
}

// montFIPS: product scanning (Comba) with the reduction folded into each
// column: column k sums a_j·b_(k−j) and p_j·m_(k−j) in a three-word
// accumulator; p_k = v·n0 clears the column's low word. Fully unrolled.
func montFIPS(b *strings.Builder, w int) {
	montFn(b, fmt.Sprintf("FIPS, %d words: product scanning, fully unrolled", w),
		fmt.Sprintf("mont_fips_%d%s", w, montSig), func(e *emitter) {
			e.f("u32 v = 0, u = 0, x = 0, p[%d];", w)
			mac := func(x1, x2 string) { e.f("MONT_MAC(%s, %s);", x1, x2) }
			for k := 0; k < w; k++ {
				for j := 0; j < k; j++ {
					mac(fmt.Sprintf("a[%d]", j), fmt.Sprintf("b[%d]", k-j))
					mac(fmt.Sprintf("p[%d]", j), fmt.Sprintf("m[%d]", k-j))
				}
				mac(fmt.Sprintf("a[%d]", k), "b[0]")
				e.f("p[%d] = v * n0;", k)
				mac(fmt.Sprintf("p[%d]", k), "m[0]")
				e.f("v = u; u = x; x = 0;")
			}
			for k := w; k < 2*w; k++ {
				for j := k - w + 1; j < w; j++ {
					mac(fmt.Sprintf("a[%d]", j), fmt.Sprintf("b[%d]", k-j))
					mac(fmt.Sprintf("p[%d]", j), fmt.Sprintf("m[%d]", k-j))
				}
				e.f("const u32 t%d = v; v = u; u = x; x = 0;", k-w)
			}
			e.f("const u32 t%d = v;", w)
			montFinish(e, w)
		})
}

// montSqr: the square a² by rows with the off-diagonal products formed once
// and doubled (rowProduct), then Montgomery reduction of the 2W-word
// square by rows, feeding one high word per row.
func montSqr(b *strings.Builder, w int, rows string) {
	montFn(b, fmt.Sprintf("squaring, %d words: square once, then reduce", w),
		fmt.Sprintf("mont_sqr_%d(u32 *r, const u32 *a, const u32 *m, const u32 n0)", w), func(e *emitter) {
			rowProduct(e, w, "a", "a", true)
			hi := make([]string, w)
			lo := make([]string, w+2)
			for j := range w {
				hi[j] = fmt.Sprintf("c%d", w+j)
				lo[j] = fmt.Sprintf("t%d = c%d", j, j)
			}
			lo[w], lo[w+1] = fmt.Sprintf("t%d = 0", w), fmt.Sprintf("t%d = 0", w+1)
			e.f("const u32 ch[%d] = { %s };", w, strings.Join(hi, ", "))
			e.f("u32 %s;", strings.Join(lo, ", "))
			e.b.WriteString(rows + "\tfor (int i = 0; i < " + fmt.Sprint(w) + "; i++) {\n")
			e.f("const u32 q = t0 * n0;")
			rowAdd(e, w, "m", "q")
			shiftDown(e, w+2)
			e.f("ADD_CC(t%d, t%d, ch[i]);", w-1, w-1)
			e.f("ADDC(t%d, t%d, 0u);", w, w)
			e.b.WriteString("\t}\n")
			montFinish(e, w)
		})
}

// montReduceOnce: r = r − m when r ≥ m (masked), for values below 2m.
func montReduceOnce(b *strings.Builder, w int) {
	montFn(b, fmt.Sprintf("r mod m for r < 2m, %d words (masked subtraction)", w),
		fmt.Sprintf("mont_reduce_once_%d(u32 *r, const u32 *m)", w), func(e *emitter) {
			maskedSub(e, w, func(j int) string { return fmt.Sprintf("r[%d]", j) }, "")
		})
}
