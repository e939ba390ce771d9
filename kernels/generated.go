package kernels

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

// generated are the virtual files of the tree: Source puts in place of an
// #include of one of them what it returns for the program's defines.
// The defines each reads:
//
//	arith_gen.h       ARITH_WANT_<bits>: the kernels of those widths only;
//	                  without one, of every width (ArithLimbs)
//	mont_gen.h        MONT_WANT_<W>, at least one: mont_cios_<W> and
//	                  mont_reduce_once_<W> at each width W;
//	                  MONT_VARIANT (cios, fios or fips): the product
//	                  mont_fios_<W> or mont_fips_<W> too, and MONT_SQR=1
//	                  the squaring mont_sqr_<W>, both at width MONT_W (one
//	                  of the wanted widths; without MONT_W, at every one);
//	                  MONT_UNROLL_<W>: the rows of width W unrolled
//	fp64_gen.h        FP64_WANT_<n>, at least one: the fp64 code of each
//	                  modulus width n; FP64_SQR=1: fp64_sqr_<n> too
//	field25519_gen.h  FIELD_MUL_ROWS=<u> (optional): the fe25519_* arithmetic,
//	                  the product's rows a loop of u per iteration (8:
//	                  unrolled; default 4); FIELD_MUL_FORM (optional):
//	                  schoolbook, the only form X25519 has
//	field448_gen.h    the same for fe448_* (14: unrolled; default 2);
//	                  FIELD_MUL_FORM=karatsuba: the product and squaring
//	                  by Hamburg's golden-ratio Karatsuba, three 7-limb
//	                  half products (generate.FieldForms), and then
//	                  FIELD_MUL_ROWS the rows per iteration of each half
//	                  product (7: unrolled; default 1; the squares'
//	                  unrolled always); schoolbook (the default): as above
//	comb25519_gen.h   none: the constants of the X25519 comb
//	comb448_gen.h     none: the constants of the X448 comb
//	ed25519_gen.h     none: the field constants of Ed25519
//
// (MONT_FINAL_SUB and FP64_UNROLL stay conditions for the compiler.) Code
// that does not exist (a width without Montgomery code, a FIPS product or
// a squaring beyond the widths that have one) is an error, not a source
// that fails to compile.
var generated = map[string]func(options) (string, error){
	"arith_gen.h":      arithGen,
	"mont_gen.h":       montGen,
	"fp64_gen.h":       fp64Gen,
	"field25519_gen.h": func(d options) (string, error) { return fieldGen(d, generate.Field25519) },
	"field448_gen.h":   func(d options) (string, error) { return fieldGen(d, generate.Field448) },
	"comb25519_gen.h":  func(options) (string, error) { return generate.Comb("x25519") },
	"comb448_gen.h":    func(options) (string, error) { return generate.Comb("x448") },
	"ed25519_gen.h":    func(options) (string, error) { return generate.Ed25519() },
}

// options are a program's -D options: NAME → value, "" for a bare -DNAME.
type options map[string]string

// widths returns the numbers N of the defines named prefix+N, ascending.
func (d options) widths(prefix string) ([]int, error) {
	var ws []int
	for _, name := range slices.Sorted(maps.Keys(d)) {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n <= 0 || strconv.Itoa(n) != rest {
			return nil, fmt.Errorf("%s: %q is not a width", name, rest)
		}
		ws = append(ws, n)
	}
	slices.Sort(ws)
	return ws, nil
}

// flag reads a 0/1 option: absent or "0" is off; "1", or "" (a bare -DNAME,
// which the compiler defines as 1), is on.
func (d options) flag(name string) (bool, error) {
	switch v, ok := d[name]; {
	case !ok || v == "0":
		return false, nil
	case v == "" || v == "1":
		return true, nil
	default:
		return false, fmt.Errorf("%s=%s: want 0 or 1", name, v)
	}
}

func arithGen(d options) (string, error) {
	bits, err := d.widths("ARITH_WANT_")
	if err != nil {
		return "", err
	}
	if len(bits) == 0 {
		return generate.Arith(generate.ArithLimbs)
	}
	limbs := make([]int, len(bits))
	for i, b := range bits {
		if b%32 != 0 {
			return "", fmt.Errorf("ARITH_WANT_%d: not a whole number of 32-bit limbs", b)
		}
		limbs[i] = b / 32
	}
	return generate.Arith(limbs)
}

func montGen(d options) (string, error) {
	ws, err := d.widths("MONT_WANT_")
	if err != nil {
		return "", err
	}
	if len(ws) == 0 {
		return "", errors.New("no MONT_WANT_<W> define: no width asked")
	}
	variant, ok := d["MONT_VARIANT"]
	if ok && !slices.Contains(generate.MontVariants, variant) {
		return "", fmt.Errorf("MONT_VARIANT=%s: unknown Montgomery variant (have %v)", variant, generate.MontVariants)
	}
	sqr, err := d.flag("MONT_SQR")
	if err != nil {
		return "", err
	}
	main := ws // the widths of the variant and the squaring
	if v, ok := d["MONT_W"]; ok {
		w, err := strconv.Atoi(v)
		if err != nil || !slices.Contains(ws, w) {
			return "", fmt.Errorf("MONT_W=%s is not one of the widths asked by MONT_WANT_<W> (%v)", v, ws)
		}
		main = []int{w}
	}
	specs := make([]generate.MontWidth, len(ws))
	for i, w := range ws {
		_, unroll := d[fmt.Sprintf("MONT_UNROLL_%d", w)]
		specs[i] = generate.MontWidth{W: w, Unroll: unroll}
		if slices.Contains(main, w) {
			specs[i].Variant, specs[i].Sqr = variant, sqr
		}
	}
	return generate.Mont(specs)
}

func fp64Gen(d options) (string, error) {
	ns, err := d.widths("FP64_WANT_")
	if err != nil {
		return "", err
	}
	if len(ns) == 0 {
		return "", errors.New("no FP64_WANT_<n> define: no width asked")
	}
	sqr, err := d.flag("FP64_SQR")
	if err != nil {
		return "", err
	}
	specs := make([]generate.FP64Width, len(ns))
	for i, n := range ns {
		specs[i] = generate.FP64Width{N: n, Sqr: sqr}
	}
	return generate.FP64(specs)
}

func fieldGen(d options, gen func(form string, mulRows int) (string, error)) (string, error) {
	form, ok := d["FIELD_MUL_FORM"]
	if ok && !slices.Contains(generate.FieldForms, form) {
		return "", fmt.Errorf("FIELD_MUL_FORM=%s: unknown form of the field product (have %v)", form, generate.FieldForms)
	}
	rows := 0
	if v, ok := d["FIELD_MUL_ROWS"]; ok {
		var err error
		if rows, err = strconv.Atoi(v); err != nil || rows <= 0 {
			return "", fmt.Errorf("FIELD_MUL_ROWS=%s: want a positive number of rows", v)
		}
	}
	return gen(form, rows)
}
