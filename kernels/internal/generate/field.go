package generate

import (
	"fmt"
	"strings"
)

// emitter collects C statements for one generated function.
type emitter struct{ b strings.Builder }

func (e *emitter) f(format string, args ...any) { fmt.Fprintf(&e.b, "\t"+format+"\n", args...) }

// chain emits one carry chain over j in [lo, hi): the first statement with
// first, the rest with rest; line(op, j) formats a statement.
func chain(e *emitter, lo, hi int, first, rest string, line func(op string, j int) string) {
	for j := lo; j < hi; j++ {
		op := rest
		if j == lo {
			op = first
		}
		e.f("%s", line(op, j))
	}
}

// addAt emits the chain dst = src ± x over n limbs, where x has the words
// given in at (by limb index) and zeros elsewhere; first/rest are the chain
// macros (ADD_CC/ADDC_CC or SUB_CC/SUBC_CC).
func addAt(e *emitter, n int, first, rest, dst, src string, at map[int]string) {
	chain(e, 0, n, first, rest, func(op string, j int) string {
		x, ok := at[j]
		if !ok {
			x = "0u"
		}
		return fmt.Sprintf("%s(%s[%d], %s[%d], %s);", op, dst, j, src, j, x)
	})
}

// rowProduct emits c[0..2n-1] = a·b (or a² when square) into locals c0...,
// by operand scanning: for each row i one lo chain and one hi chain of
// multiply-adds (two instructions per partial product, Dong 2018 Fig. 3).
// For squares only the products a_j·a_i with j > i are formed, then doubled
// and the squares a_i² added.
func rowProduct(e *emitter, n int, a, b string, square bool) {
	rowProductTo(e, n, a, b, "c", square)
}

// rowProductTo is rowProduct into the locals out0 … out(2n−1).
func rowProductTo(e *emitter, n int, a, b, out string, square bool) {
	for k := 0; k < 2*n; k++ {
		e.f("u32 %s%d = 0;", out, k)
	}
	for i := 0; i < n; i++ {
		j0 := 0
		if square {
			j0 = i + 1
		}
		if j0 >= n {
			continue
		}
		// lo chain: c[i+j] += lo(a_j * b_i), carry into c[i+n]
		for j := j0; j < n; j++ {
			op := "MADLOC_CC"
			if j == j0 {
				op = "MADLO_CC"
			}
			e.f("%s(%s%d, %s[%d], %s[%d], %s%d);", op, out, i+j, a, j, b, i, out, i+j)
		}
		e.f("ADDC(%s%d, %s%d, 0u);", out, i+n, out, i+n)
		// hi chain: c[i+j+1] += hi(a_j * b_i), carry into c[i+n+1]
		for j := j0; j < n; j++ {
			op := "MADHIC_CC"
			if j == j0 {
				op = "MADHI_CC"
			}
			e.f("%s(%s%d, %s[%d], %s[%d], %s%d);", op, out, i+j+1, a, j, b, i, out, i+j+1)
		}
		if i+n+1 < 2*n {
			e.f("ADDC(%s%d, 0u, 0u);", out, i+n+1)
		}
	}
	if !square {
		return
	}
	// double the off-diagonal sum: c = 2c (c < 2^(64n-1), no carry out)
	e.f("%s%d = (%s%d << 1) | (%s%d >> 31);", out, 2*n-1, out, 2*n-1, out, 2*n-2)
	for k := 2*n - 2; k > 0; k-- {
		e.f("%s%d = (%s%d << 1) | (%s%d >> 31);", out, k, out, k, out, k-1)
	}
	e.f("%s0 = %s0 << 1;", out, out)
	// add the squares a_i² at 2i (lo) and 2i+1 (hi) in one chain
	for i := 0; i < n; i++ {
		lo, hi := "MADLOC_CC", "MADHIC_CC"
		if i == 0 {
			lo = "MADLO_CC"
		}
		if i == n-1 {
			hi = "MADHIC"
		}
		e.f("%s(%s%d, %s[%d], %s[%d], %s%d);", lo, out, 2*i, a, i, a, i, out, 2*i)
		e.f("%s(%s%d, %s[%d], %s[%d], %s%d);", hi, out, 2*i+1, a, i, a, i, out, 2*i+1)
	}
}

// rowLoopProduct emits c[0..2n-1] = a·b into locals c0... like rowProduct,
// with the rows in a loop of u rows per iteration (u divides n) instead of
// unrolled: code n/u times smaller, for the instruction cache. The rows of
// one iteration add into a window t0..t(n+u) of registers at offsets
// 0..u−1; after them the u low words are final, go to lo[] and the window
// shifts by u. b and lo are indexed by the loop counter, so they are
// arrays in local memory (a copy of b: the caller's array stays in
// registers).
func rowLoopProduct(e *emitter, n, u int, a, b string) {
	rowLoopProductTo(e, n, u, a, b, "c")
}

// rowLoopProductTo is rowLoopProduct into the locals out0 … out(2n−1),
// its own locals in a block of their own.
func rowLoopProductTo(e *emitter, n, u int, a, b, out string) {
	outs := make([]string, 2*n)
	for k := range outs {
		outs[k] = fmt.Sprintf("%s%d", out, k)
	}
	e.f("u32 %s;", strings.Join(outs, ", "))
	e.f("{")
	e.f("u32 bl[%d], lo[%d];", n, n)
	for j := range n {
		e.f("bl[%d] = %s[%d];", j, b, j)
	}
	w := n + u + 1
	names := make([]string, w)
	for j := range names {
		names[j] = fmt.Sprintf("t%d = 0", j)
	}
	e.f("u32 %s;", strings.Join(names, ", "))
	e.f("_Pragma(\"unroll 1\")")
	e.f("for (int i = 0; i < %d; i += %d) {", n, u)
	for r := range u {
		e.f("\t{ const u32 bi = bl[i + %d];", r)
		for j := range n {
			op := "MADLOC_CC"
			if j == 0 {
				op = "MADLO_CC"
			}
			e.f("\t%s(t%d, %s[%d], bi, t%d);", op, r+j, a, j, r+j)
		}
		e.f("\tADDC(t%d, t%d, 0u);", r+n, r+n)
		for j := range n {
			op := "MADHIC_CC"
			if j == 0 {
				op = "MADHI_CC"
			}
			e.f("\t%s(t%d, %s[%d], bi, t%d);", op, r+j+1, a, j, r+j+1)
		}
		e.f("\tADDC(t%d, 0u, 0u); }", r+n+1)
	}
	for r := range u {
		e.f("\tlo[i + %d] = t%d;", r, r)
	}
	for j := 0; j < w; j++ {
		if j+u < w {
			e.f("\tt%d = t%d;", j, j+u)
		} else {
			e.f("\tt%d = 0;", j)
		}
	}
	e.f("}")
	for k := range n {
		e.f("%s%d = lo[%d]; %s%d = t%d;", out, k, k, out, n+k, k)
	}
	e.f("}")
}

// goldenProduct emits r = a·b mod p (a² when square) for a field with
// p = φ² − φ − 1, φ = 2^(32h), n = 2h limbs (X448: φ = 2^224, h = 7): one
// level of Hamburg's golden-ratio Karatsuba, three h-limb half products
// instead of the n×n schoolbook ones (147 multiply pairs instead of 196
// for X448's product, 84 instead of 105 for its square), each a row
// product (rowProductTo; the squares' triangles, and the products with
// rows == h, unrolled; else a loop of rows per iteration,
// rowLoopProductTo). r is written only after the last read of a and b, so
// it may be either of them. The half products in the order M, L, H (below):
// NVRTC 11.8 gave X448's x448_xz 130 registers so, 140 with L first (sm_90,
// the halves in loops; the order's speed not measured on a GPU).
//
// With a = a0 + a1·φ, b = b0 + b1·φ, 0 ≤ a_i, b_i ≤ φ − 1 (any loosely
// reduced a, b < 2^(32n) = φ²) and φ² ≡ φ + 1 (mod p):
//
//	a·b = a0b0 + (a0b1 + a1b0)·φ + a1b1·φ² ≡ L + H + Y·φ,
//	L = a0·b0, H = a1·b1, M = (a0 + a1)(b0 + b1), Y = M − L = a0b1 + a1b0 + a1b1.
//
// Y is a sum of products of non-negative halves, so M − L does not borrow
// out, and Y ≤ 3(φ−1)² < 3φ². With Y = Y0 + Z·φ, Y0 < φ, Z < 3φ:
// Y·φ = Y0·φ + Z·φ² ≡ Z + (Y0 + Z)·φ, so
//
//	a·b ≡ R = L + H + Z + (Y0 + Z)·φ,  R < 2φ² + 3φ + 4φ² < 7φ²,
//
// n words and a top word k ≤ 6, which the field's fold (fold448: k·φ² ≡
// k·φ + k, twice) takes to a loosely reduced result: the first round
// carries out at most 1 and leaves r < 2^(32h+3), so the second does not
// carry. Every chain is exact (each sum fits the words it is given:
// L, H < φ², M < 4φ² in n+1 words, Y < 3φ², the running sum < 7φ² in n
// words and k).
//
// The sums a0 + a1 = sa + ca·φ and b0 + b1 = sb + cb·φ have a carry bit
// each (ca, cb ∈ {0, 1}); M = sa·sb + (ca·sb + cb·sa)·φ + ca·cb·φ², the
// middle terms added as words masked by 0 − ca and 0 − cb: no branch and
// no index depends on the data. For a square M = sa² + 2·ca·sa·φ + ca·φ²
// (sa masked, added twice).
func goldenProduct(e *emitter, f fieldSpec, rows int, square bool) {
	n := f.n
	h := n / 2
	b, b1 := "b", "b1" // the second operand and its high half
	if square {
		b, b1 = "a", "a1"
	}
	half := func(x, y, out string) { // out0 … out(n−1) = x·y, h limbs each
		switch {
		case square:
			rowProductTo(e, h, x, x, out, true)
		case rows == h:
			rowProductTo(e, h, x, y, out, false)
		default:
			rowLoopProductTo(e, h, rows, x, y, out)
		}
	}
	sum := func(s, c, x string) { // s + c·φ = x0 + x1
		e.f("u32 %s[%d], %s;", s, h, c)
		chain(e, 0, h, "ADD_CC", "ADDC_CC", func(op string, j int) string {
			return fmt.Sprintf("%s(%s[%d], %s[%d], %s[%d]);", op, s, j, x, j, x, j+h)
		})
		e.f("ADDC(%s, 0u, 0u);", c)
	}
	// w += (x & mask)·φ, its carry into the top word w(n) by top
	addMasked := func(x, mask, top string) {
		chain(e, h, n, "ADD_CC", "ADDC_CC", func(op string, j int) string {
			return fmt.Sprintf("%s(w%d, w%d, %s[%d] & %s);", op, j, j, x, j-h, mask)
		})
		e.f("%s", top)
	}
	e.f("const u32 *a1 = a + %d;", h)
	if !square {
		e.f("const u32 *b1 = b + %d;", h)
	}
	sum("sa", "ca", "a")
	if !square {
		sum("sb", "cb", "b")
	}
	// M = (a0 + a1)(b0 + b1) in w0 … w(n)
	if square {
		half("sa", "sa", "w")
		e.f("u32 w%d;", n)
		e.f("const u32 ma = 0u - ca;")
		addMasked("sa", "ma", fmt.Sprintf("ADDC(w%d, ca, 0u);", n))
		addMasked("sa", "ma", fmt.Sprintf("ADDC(w%d, w%d, 0u);", n, n))
	} else {
		half("sa", "sb", "w")
		e.f("u32 w%d;", n)
		e.f("const u32 ma = 0u - ca, mb = 0u - cb;")
		addMasked("sb", "ma", fmt.Sprintf("ADDC(w%d, ca & cb, 0u);", n))
		addMasked("sa", "mb", fmt.Sprintf("ADDC(w%d, w%d, 0u);", n, n))
	}
	// L = a0·b0 in u0 … u(n−1)
	half("a", b, "u")
	// Y = M − L ≥ 0: Y0 = w0 … w(h−1), Z = w(h) … w(n)
	chain(e, 0, n, "SUB_CC", "SUBC_CC", func(op string, j int) string {
		return fmt.Sprintf("%s(w%d, w%d, u%d);", op, j, j, j)
	})
	e.f("SUBC(w%d, w%d, 0u);", n, n)
	// u, k = L + Z + Y0·φ + Z·φ
	e.f("u32 k;")
	chain(e, 0, n, "ADD_CC", "ADDC_CC", func(op string, j int) string {
		z := "0u"
		if j <= h {
			z = fmt.Sprintf("w%d", j+h)
		}
		return fmt.Sprintf("%s(u%d, u%d, %s);", op, j, j, z)
	})
	e.f("ADDC(k, 0u, 0u);")
	chain(e, h, n, "ADD_CC", "ADDC_CC", func(op string, j int) string {
		return fmt.Sprintf("%s(u%d, u%d, w%d);", op, j, j, j-h)
	})
	e.f("ADDC(k, k, 0u);")
	chain(e, h, n, "ADD_CC", "ADDC_CC", func(op string, j int) string {
		return fmt.Sprintf("%s(u%d, u%d, w%d);", op, j, j, j)
	})
	e.f("ADDC(k, k, w%d);", n)
	// H = a1·b1 in v0 … v(n−1): the last reads of a and b
	half("a1", b1, "v")
	// r, k = u + H, then k·φ² folded
	chain(e, 0, n, "ADD_CC", "ADDC_CC", func(op string, j int) string {
		return fmt.Sprintf("%s(r[%d], u%d, v%d);", op, j, j, j)
	})
	e.f("ADDC(k, k, 0u);")
	f.fold(e, n)
}

// FieldForms are the forms of the fields' product and squaring
// (FIELD_MUL_FORM): "schoolbook", the default, all n×n partial products
// (the product's rows in a loop or unrolled, the squaring's triangle
// unrolled), reduced by Dong et al.'s folding; "karatsuba", Hamburg's
// golden-ratio Karatsuba (goldenProduct): three half-size products, for
// the fields with p = φ² − φ − 1 only (X448).
var FieldForms = []string{"schoolbook", "karatsuba"}

// Field25519 returns field25519_gen.h: arithmetic modulo p25519 =
// 2^255 − 19 in 8 limbs (the fe25519_* functions), with the fast
// reduction of Dong et al. 2018. Elements are kept loosely reduced in
// [0, 2^256); only fe25519_canon gives the unique value below p. form is
// one of FieldForms ("": schoolbook; X25519 has no karatsuba form);
// mulRows is the number of the product's rows per loop iteration (0: the
// field's default; 8: unrolled).
func Field25519(form string, mulRows int) (string, error) { return field(p25519, form, mulRows) }

// Field448 returns field448_gen.h: arithmetic modulo p448 = 2^448 − 2^224
// − 1 in 14 limbs (the fe448_* functions), with the fast reduction of Dong
// et al. 2018. Elements are kept loosely reduced in [0, 2^448); only
// fe448_canon gives the unique value below p. form and mulRows as for
// Field25519 (14: unrolled), but in the karatsuba form mulRows are the
// rows per iteration of each 7-limb half product (7: unrolled; default
// 1, karatsubaRows).
func Field448(form string, mulRows int) (string, error) { return field(p448, form, mulRows) }

// karatsubaRows is the default number of rows per loop iteration of the
// karatsuba form's half products: a loop, as the schoolbook product is,
// for the instruction cache (unrolled, the three half products of each
// of a ladder step's products are 147 multiply pairs of straight code;
// the schoolbook product unrolled, 196, stalled X448's ladder on
// instruction fetch). 1 because a half has 7 limbs, a prime number, and
// the unrolled halves (FIELD_MUL_ROWS=7) run slower.
const karatsubaRows = 1

// field is the arithmetic of f. Every function is free of data-dependent
// branches and memory indices.
func field(f fieldSpec, form string, mulRows int) (string, error) {
	karatsuba := false
	switch form {
	case "", "schoolbook":
		if mulRows == 0 {
			mulRows = f.mulRows
		}
		if mulRows < 0 || f.n%mulRows != 0 {
			return "", fmt.Errorf("%s: %d rows per iteration do not divide %d limbs", f.name, mulRows, f.n)
		}
	case "karatsuba":
		if !f.golden {
			return "", fmt.Errorf("%s: no karatsuba form (p is not φ² − φ − 1 for φ = 2^%d)", f.name, 16*f.n)
		}
		karatsuba = true
		if mulRows == 0 {
			mulRows = karatsubaRows
		}
		if mulRows < 0 || (f.n/2)%mulRows != 0 {
			return "", fmt.Errorf("%s karatsuba: %d rows per iteration do not divide the halves' %d limbs", f.name, mulRows, f.n/2)
		}
	default:
		return "", fmt.Errorf("%s: unknown form %q of the product (have %v)", f.name, form, FieldForms)
	}
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("#include \"limb.h\"\n")
	f.emit(&b, mulRows, karatsuba)
	return b.String(), nil
}

type fieldSpec struct {
	name string
	n    int
	// mulRows is the default number of the product's rows per loop
	// iteration (n: unrolled). A ladder step makes nine products; unrolled,
	// its code outgrows the instruction cache and the warps stall on
	// instruction fetch. In a loop it fits: 2 rows per iteration for X448,
	// 4 for X25519. The squarings stay unrolled (their rows are
	// triangular).
	mulRows int
	// reduce emits the reduction of locals c0..c(2n-1) into r[0..n-1].
	reduce func(e *emitter, n int)
	// fold emits the reduction of r[0..n-1] plus a small top word k
	// (value r + k·2^(32n)) into r, loosely reduced.
	fold func(e *emitter, n int)
	// borrow emits the correction of r after a subtraction that borrowed
	// (bf in 0/1 in local k): r − k·2^(32n) mod p.
	borrow func(e *emitter, n int)
	// canon emits the final reduction of r into [0, p).
	canon func(e *emitter, n int)
	// golden: p = φ² − φ − 1 for φ = 2^(16n), the half width, so the
	// karatsuba form (goldenProduct) applies.
	golden bool
}

func (f fieldSpec) fn(b *strings.Builder, sig string, body func(e *emitter)) {
	var e emitter
	body(&e)
	fmt.Fprintf(b, "\nDEVICE_FN void %s_%s\n{\n\tCARRY_DECL;\n%s}\n", f.name, sig, e.b.String())
}

// emit writes the field's functions; mulRows, unless n, makes the product
// a loop of that many rows per iteration (rowLoopProduct); karatsuba makes
// the product and the squaring goldenProduct, mulRows the rows of its
// half products.
func (f fieldSpec) emit(b *strings.Builder, mulRows int, karatsuba bool) {
	n := f.n
	fmt.Fprintf(b, "\n/* ---- %s: %d limbs ---- */\n#define %s_LIMBS %d\n", f.name, n, strings.ToUpper(f.name), n)

	f.fn(b, "mul(u32 *r, const u32 *a, const u32 *b)", func(e *emitter) {
		switch {
		case karatsuba:
			goldenProduct(e, f, mulRows, false)
			return
		case mulRows == n:
			rowProduct(e, n, "a", "b", false)
		default:
			rowLoopProduct(e, n, mulRows, "a", "b")
		}
		f.reduce(e, n)
	})
	f.fn(b, "sqr(u32 *r, const u32 *a)", func(e *emitter) {
		if karatsuba {
			goldenProduct(e, f, mulRows, true)
			return
		}
		rowProduct(e, n, "a", "a", true)
		f.reduce(e, n)
	})
	rab := func(op string, j int) string { return fmt.Sprintf("%s(r[%d], a[%d], b[%d]);", op, j, j, j) }
	// r = a^(2^n), n ≥ 1 and public (inversion chains)
	fmt.Fprintf(b, "\nDEVICE_FN void %[1]s_sqr_n(u32 *r, const u32 *a, int n)\n{\n\t%[1]s_sqr(r, a);\n\tfor (int i = 1; i < n; i++)\n\t\t%[1]s_sqr(r, r);\n}\n", f.name)
	f.fn(b, "add(u32 *r, const u32 *a, const u32 *b)", func(e *emitter) {
		e.f("u32 k;")
		chain(e, 0, n, "ADD_CC", "ADDC_CC", rab)
		e.f("ADDC(k, 0u, 0u);")
		f.fold(e, n)
	})
	f.fn(b, "sub(u32 *r, const u32 *a, const u32 *b)", func(e *emitter) {
		e.f("u32 k;")
		chain(e, 0, n, "SUB_CC", "SUBC_CC", rab)
		e.f("SUBC(k, 0u, 0u);")
		e.f("k &= 1u;")
		f.borrow(e, n)
	})
	// r = a·s + b for a small constant s (< 2^20): the ladder's
	// z2 = E·(AA + a24·E) uses it as the fused multiply-add.
	f.fn(b, "mul_small_add(u32 *r, const u32 *a, const u32 s, const u32 *b)", func(e *emitter) {
		e.f("u32 k;")
		chain(e, 0, n, "MADLO_CC", "MADLOC_CC", func(op string, j int) string {
			return fmt.Sprintf("%s(r[%d], a[%d], s, b[%d]);", op, j, j, j)
		})
		e.f("ADDC(k, 0u, 0u);")
		for j := 0; j < n; j++ {
			op := "MADHIC_CC"
			if j == 0 {
				op = "MADHI_CC"
			}
			dst := fmt.Sprintf("r[%d]", j+1)
			if j == n-1 {
				op, dst = "MADHIC", "k"
			}
			e.f("%s(%s, a[%d], s, %s);", op, dst, j, dst)
		}
		f.fold(e, n)
	})
	f.fn(b, "canon(u32 *r)", func(e *emitter) { f.canon(e, n) })
	f.fn(b, "cswap(const u32 mask, u32 *a, u32 *b)", func(e *emitter) {
		e.f("u32 t;")
		for j := 0; j < n; j++ {
			e.f("t = mask & (a[%d] ^ b[%d]); a[%d] ^= t; b[%d] ^= t;", j, j, j, j)
		}
	})
	f.fn(b, "copy(u32 *r, const u32 *a)", func(e *emitter) {
		for j := 0; j < n; j++ {
			e.f("r[%d] = a[%d];", j, j)
		}
	})
	f.fn(b, "set_small(u32 *r, const u32 v)", func(e *emitter) {
		e.f("r[0] = v;")
		for j := 1; j < n; j++ {
			e.f("r[%d] = 0u;", j)
		}
	})
}

// p25519 = 2^255 − 19: 2^256 ≡ 38 and 2^255 ≡ 19 (mod p).
var p25519 = fieldSpec{
	name: "fe25519", n: 8, mulRows: 4,
	reduce: func(e *emitter, n int) {
		// (c0..c7) + 38·(c8..c15) → r, top word k ≤ 38 (Dong Alg. 1)
		e.f("u32 k;")
		chain(e, 0, n, "MADLO_CC", "MADLOC_CC", func(op string, j int) string {
			return fmt.Sprintf("%s(r[%d], c%d, 38u, c%d);", op, j, j+n, j)
		})
		e.f("ADDC(k, 0u, 0u);")
		for j := 0; j < n; j++ {
			op, dst := "MADHIC_CC", fmt.Sprintf("r[%d]", j+1)
			if j == 0 {
				op = "MADHI_CC"
			}
			if j == n-1 {
				op, dst = "MADHIC", "k"
			}
			e.f("%s(%s, c%d, 38u, %s);", op, dst, j+n, dst)
		}
		fold25519(e, n)
	},
	fold: fold25519,
	borrow: func(e *emitter, n int) {
		// r − k·2^256 ≡ r − 38k; a second round absorbs the one wrap
		for round := 0; round < 2; round++ {
			e.f("k = k * 38u;")
			addAt(e, n, "SUB_CC", "SUBC_CC", "r", "r", map[int]string{0: "k"})
			e.f("SUBC(k, 0u, 0u);")
			e.f("k &= 1u;")
		}
	},
	canon: func(e *emitter, n int) {
		// fold bit 255 (r < 2^255 + 19 after it), then subtract p when
		// r + 19 reaches 2^255; select by mask, never by branch
		e.f("u32 k = 0;")
		fold25519(e, n)
		e.f("u32 t[8];")
		e.f("ADD_CC(t[0], r[0], 19u);")
		for j := 1; j < n-1; j++ {
			e.f("ADDC_CC(t[%d], r[%d], 0u);", j, j)
		}
		e.f("ADDC(t[7], r[7], 0u);")
		e.f("const u32 m = 0u - (t[7] >> 31);")
		e.f("t[7] &= 0x7fffffffu;")
		for j := 0; j < n; j++ {
			e.f("r[%d] = (t[%d] & m) | (r[%d] & ~m);", j, j, j)
		}
	},
}

// fold25519: r + k·2^256 with k small → (2k + bit255)·19 added to the low
// 255 bits in one chain (Dong Alg. 2); the result is below 2^256.
func fold25519(e *emitter, n int) {
	e.f("k = (k << 1) | (r[7] >> 31);")
	e.f("r[7] &= 0x7fffffffu;")
	e.f("MADLO_CC(r[0], k, 19u, r[0]);")
	for j := 1; j < n-1; j++ {
		e.f("ADDC_CC(r[%d], r[%d], 0u);", j, j)
	}
	e.f("ADDC(r[7], r[7], 0u);")
}

// p448 = 2^448 − 2^224 − 1: 2^448 ≡ 2^224 + 1 (mod p).
var p448 = fieldSpec{
	name: "fe448", n: 14, mulRows: 2, golden: true,
	reduce: func(e *emitter, n int) {
		// Dong eq. 18: limbs 0..6 get c_i + c_{i+14} + c_{i+21},
		// limbs 7..13 get c_i + c_{i+7} + 2·c_{i+14}; carries summed in k
		e.f("u32 k;")
		chain(e, 0, n, "ADD_CC", "ADDC_CC", func(op string, j int) string { // r = L + H
			return fmt.Sprintf("%s(r[%d], c%d, c%d);", op, j, j, j+14)
		})
		e.f("ADDC(k, 0u, 0u);")
		chain(e, 0, n, "ADD_CC", "ADDC_CC", func(op string, j int) string { // r += (H_hi ‖ H_lo)
			src := j + 21
			if j >= 7 {
				src = j + 7
			}
			return fmt.Sprintf("%s(r[%d], r[%d], c%d);", op, j, j, src)
		})
		e.f("ADDC(k, k, 0u);")
		chain(e, 7, n, "ADD_CC", "ADDC_CC", func(op string, j int) string { // r[7..13] += H_hi
			return fmt.Sprintf("%s(r[%d], r[%d], c%d);", op, j, j, j+14)
		})
		e.f("ADDC(k, k, 0u);")
		fold448(e, n)
	},
	fold: fold448,
	borrow: func(e *emitter, n int) {
		// r − k·2^448 ≡ r − k·(2^224 + 1), two rounds
		for round := 0; round < 2; round++ {
			addAt(e, n, "SUB_CC", "SUBC_CC", "r", "r", map[int]string{0: "k", 7: "k"})
			e.f("SUBC(k, 0u, 0u);")
			e.f("k &= 1u;")
		}
	},
	canon: func(e *emitter, n int) {
		// r < 2^448 < 2p: subtract p once when r ≥ p, i.e. when
		// r + 2^224 + 1 carries out of 448 bits
		e.f("u32 t[14], k;")
		addAt(e, n, "ADD_CC", "ADDC_CC", "t", "r", map[int]string{0: "1u", 7: "1u"})
		e.f("ADDC(k, 0u, 0u);")
		e.f("const u32 m = 0u - k;")
		for j := 0; j < n; j++ {
			e.f("r[%d] = (t[%d] & m) | (r[%d] & ~m);", j, j, j)
		}
	},
}

// fold448: r + k·2^448 ≡ r + k·2^224 + k, twice (Dong Alg. 4); k ends 0.
func fold448(e *emitter, n int) {
	for round := 0; round < 2; round++ {
		addAt(e, n, "ADD_CC", "ADDC_CC", "r", "r", map[int]string{0: "k", 7: "k"})
		e.f("ADDC(k, 0u, 0u);")
	}
}
