package generate

import (
	"fmt"
	"math/big"
	"strings"
	"sync"
)

// The fixed-base comb of comb.h computes public keys k·B on a twisted
// Edwards curve a·x² + y² = 1 + d·x²·y² birationally equivalent to the
// Montgomery curve v² = u³ + A·u² + u of RFC 7748, then maps the result
// back to u. Each model below has a square a and a non-square d, so its
// addition law is complete (Bernstein et al., "Twisted Edwards curves",
// 2008, Thm. 3.3): the formulas of comb.h have no exceptional inputs at all.
//
//   - X25519 (A = 486662): a = −1, d = −121665/121666, u = (1 + y)/(1 − y).
//     It is a·x² + y² = 1 + d·x²·y² with a = A + 2, d = A − 2 after the
//     change x → x·sqrt(−(A + 2)) (−(A + 2) is a square mod 2^255 − 19),
//     and it is exactly the Ed25519 curve; the base point (u = 9) is the
//     Ed25519 base point. a = −1 saves one multiplication per addition.
//   - X448 (A = 156326): a = 1, d = 39082/39081, u = (y + 1)/(y − 1).
//     The model with a = A + 2, d = A − 2 and u = (1 + y)/(1 − y) is not
//     complete modulo 2^448 − 2^224 − 1 (there A + 2 is a non-square); the
//     substitution y → 1/y swaps a and d, and x → x·sqrt(A − 2) then gives
//     a = 1 (a square) and d = (A + 2)/(A − 2) (a non-square), with
//     u = (y + 1)/(y − 1).
//
// In both, the base point is the one whose u is the RFC's (9 or 5) and
// whose x is even (the Ed25519 convention); −B has the same u.
//
// Scalars are recoded into signed radix-16 digits: with s' = s + Σ 8·16^i
// (a plain addition, no branch), digit i is nibble i of s' minus 8, in
// [−8, 7]. X25519 (s < 2^255, 64 nibbles) folds the final carry into the
// top digit, which is then in [−8, 8]; X448 (448-bit s, 112 nibbles) keeps
// it as a 113th digit in {0, 1}. Digit i = M·j + r (M the spacing) is added
// with row j of the table, T[j][n] = n·16^(M·j)·B for n = 1..8, and
// k·B = Σ_r 16^r · Σ_j e_(M·j+r) · T[j][|e|] is evaluated by Horner's rule
// in r: 4·(M − 1) doublings in all.

// combCurve describes one curve's comb and its Edwards model.
type combCurve struct {
	name    string // "x25519" or "x448"
	p       *big.Int
	a       int64    // −1 or 1
	d       *big.Int // mod p
	baseU   int64
	uNeg    bool // u = −(1 + y)/(1 − y) = (y + 1)/(y − 1)
	limbs   int  // 32-bit words per field element
	spacing int  // M: digit i = M·j + r
	digits  int  // 64 or 113
	rows    int  // ceil(digits / M)
	topFold bool // the carry of s' joins the top digit (else it is digit 112)
	topMask string
}

// combEntryElems is the number of field elements of one table entry:
// (y + x, y − x, 2d·x·y) for a = −1 (the form of the a = −1 addition), and
// (x, y, d·x·y) for a = 1.
const combEntryElems = 3

// combEntries is the number of entries per row (|digit| = 1..8).
const combEntries = 8

var combCurves = sync.OnceValue(func() []*combCurve {
	one := big.NewInt(1)
	p25519 := new(big.Int).Sub(new(big.Int).Lsh(one, 255), big.NewInt(19))
	p448 := new(big.Int).Lsh(one, 448)
	p448.Sub(p448, new(big.Int).Lsh(one, 224)).Sub(p448, one)
	frac := func(p *big.Int, num, den int64) *big.Int {
		r := new(big.Int).ModInverse(big.NewInt(den), p)
		r.Mul(r, big.NewInt(num))
		return r.Mod(r, p)
	}
	return []*combCurve{
		{
			name: "x25519", p: p25519, a: -1, d: frac(p25519, -121665, 121666),
			baseU: 9, limbs: 8, spacing: 2, digits: 64, rows: 32, topFold: true, topMask: "0x7fffffffu",
		},
		{
			name: "x448", p: p448, a: 1, d: frac(p448, 39082, 39081),
			baseU: 5, uNeg: true, limbs: 14, spacing: 5, digits: 113, rows: 23, topMask: "0xffffffffu",
		},
	}
})

func combCurveByName(name string) (*combCurve, error) {
	for _, c := range combCurves() {
		if c.name == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("no comb for curve %q (have x25519, x448)", name)
}

// edPoint is an affine point of a combCurve's Edwards model.
type edPoint struct{ x, y *big.Int }

func (c *combCurve) mod(x *big.Int) *big.Int { return x.Mod(x, c.p) }
func (c *combCurve) mul(x, y *big.Int) *big.Int {
	return c.mod(new(big.Int).Mul(x, y))
}
func (c *combCurve) add(x, y *big.Int) *big.Int {
	return c.mod(new(big.Int).Add(x, y))
}
func (c *combCurve) sub(x, y *big.Int) *big.Int {
	return c.mod(new(big.Int).Sub(x, y))
}
func (c *combCurve) inv(x *big.Int) *big.Int { return new(big.Int).ModInverse(x, c.p) }

// onCurve reports a·x² + y² = 1 + d·x²·y².
func (c *combCurve) onCurve(P edPoint) bool {
	x2, y2 := c.mul(P.x, P.x), c.mul(P.y, P.y)
	lhs := c.add(c.mul(big.NewInt(c.a), x2), y2)
	rhs := c.add(big.NewInt(1), c.mul(c.d, c.mul(x2, y2)))
	return lhs.Cmp(rhs) == 0
}

// edAdd is the complete affine addition law.
func (c *combCurve) edAdd(P, Q edPoint) edPoint {
	t := c.mul(c.d, c.mul(c.mul(P.x, Q.x), c.mul(P.y, Q.y)))
	x := c.add(c.mul(P.x, Q.y), c.mul(P.y, Q.x))
	y := c.sub(c.mul(P.y, Q.y), c.mul(big.NewInt(c.a), c.mul(P.x, Q.x)))
	return edPoint{
		c.mul(x, c.inv(c.add(big.NewInt(1), t))),
		c.mul(y, c.inv(c.sub(big.NewInt(1), t))),
	}
}

// u maps an Edwards point to the Montgomery u-coordinate (0 for the
// neutral element, like the ladder).
func (c *combCurve) u(P edPoint) *big.Int {
	den := c.sub(big.NewInt(1), P.y)
	if den.Sign() == 0 {
		return new(big.Int)
	}
	u := c.mul(c.add(big.NewInt(1), P.y), c.inv(den))
	if c.uNeg {
		u = c.sub(new(big.Int), u)
	}
	return u
}

// base is the Edwards point with u = baseU and even x.
func (c *combCurve) base() edPoint {
	u := big.NewInt(c.baseU)
	one := big.NewInt(1)
	var y *big.Int
	if c.uNeg { // u = (y + 1)/(y − 1)
		y = c.mul(c.add(u, one), c.inv(c.sub(u, one)))
	} else { // u = (1 + y)/(1 − y)
		y = c.mul(c.sub(u, one), c.inv(c.add(u, one)))
	}
	y2 := c.mul(y, y)
	x2 := c.mul(c.sub(one, y2), c.inv(c.sub(big.NewInt(c.a), c.mul(c.d, y2))))
	x := new(big.Int).ModSqrt(x2, c.p)
	if x == nil {
		panic("generate: " + c.name + " base point has no x")
	}
	if x.Bit(0) == 1 {
		x = c.sub(new(big.Int), x)
	}
	return edPoint{x, y}
}

// table returns T[j][n−1] = n·16^(M·j)·B for j < rows, n = 1..8.
func (c *combCurve) table() [][combEntries]edPoint { return c.tableOf(c.base()) }

// tableOf is table for the base point P in place of B.
func (c *combCurve) tableOf(P edPoint) [][combEntries]edPoint {
	t := make([][combEntries]edPoint, c.rows)
	R := P
	for j := range t {
		P := R
		for n := range combEntries {
			t[j][n] = P
			P = c.edAdd(P, R)
		}
		for range 4 * c.spacing {
			R = c.edAdd(R, R)
		}
	}
	return t
}

// entry is the stored form of P: (y + x, y − x, 2d·x·y) for a = −1,
// (x, y, d·x·y) for a = 1.
func (c *combCurve) entry(P edPoint) [combEntryElems]*big.Int {
	xy := c.mul(P.x, P.y)
	if c.a < 0 {
		return [combEntryElems]*big.Int{c.add(P.y, P.x), c.sub(P.y, P.x), c.mul(c.add(c.d, c.d), xy)}
	}
	return [combEntryElems]*big.Int{P.x, P.y, c.mul(c.d, xy)}
}

// FaultCheckMultiple is the multiple c of the base point B whose tables
// the fault checks of the signing kernels read: they compute a nonce's
// point k·B a second time as (k/c mod q)·(c·B), q the order of B, so that
// the two computations share neither their digits nor their table
// entries.
const FaultCheckMultiple = 3

// multiple is n·P for n ≥ 1, by n − 1 additions.
func (c *combCurve) multiple(n int, P edPoint) edPoint {
	R := P
	for range n - 1 {
		R = c.edAdd(R, P)
	}
	return R
}

// words is the table as comb.h reads it: entry (j, n) at word
// ((j·8 + n − 1)·3 + e)·limbs + w for element e, limb w (little-endian).
func (c *combCurve) words() []uint32 { return c.wordsOf(c.table()) }

// wordsOf is words for the table t.
func (c *combCurve) wordsOf(t [][combEntries]edPoint) []uint32 {
	var out []uint32
	for _, row := range t {
		for _, P := range row {
			for _, v := range c.entry(P) {
				for w := range c.limbs {
					out = append(out, uint32(new(big.Int).Rsh(v, uint(32*w)).Uint64()))
				}
			}
		}
	}
	return out
}

var combWords = sync.OnceValue(func() map[string][]uint32 {
	m := map[string][]uint32{}
	for _, c := range combCurves() {
		m[c.name] = c.words()
	}
	return m
})

// combCheckWords are the comb tables of FaultCheckMultiple·B.
var combCheckWords = sync.OnceValue(func() map[string][]uint32 {
	m := map[string][]uint32{}
	for _, c := range combCurves() {
		m[c.name] = c.wordsOf(c.tableOf(c.multiple(FaultCheckMultiple, c.base())))
	}
	return m
})

// CombTableWords returns the words of curve's ("x25519" or "x448") comb
// table in the layout comb.h reads from its global buffer (documented in
// Comb). The caller must not modify them.
func CombTableWords(curve string) ([]uint32, error) {
	if _, err := combCurveByName(curve); err != nil {
		return nil, err
	}
	return combWords()[curve], nil
}

// CombCheckTableWords returns the table of CombTableWords for the base
// point FaultCheckMultiple·B in place of B, in the same layout: row j,
// entry n is n·16^(M·j)·c·B. The caller must not modify them.
func CombCheckTableWords(curve string) ([]uint32, error) {
	if _, err := combCurveByName(curve); err != nil {
		return nil, err
	}
	return combCheckWords()[curve], nil
}

// Comb returns the constants of curve's ("x25519" or "x448") comb, the
// virtual file comb25519_gen.h or comb448_gen.h that x25519.cl and x448.cl
// include before comb.h.
func Comb(curve string) (string, error) {
	c, err := combCurveByName(curve)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(header)
	b.WriteString(`/* The constants of the fixed-base comb of comb.h for one curve:
 *   COMB_A          a of the Edwards model a·x² + y² = 1 + d·x²·y² (−1 or 1)
 *   COMB_U_NEG      0: u = (1 + y)/(1 − y); 1: u = (y + 1)/(y − 1)
 *   COMB_SPACING    M: digit i is added with table row i / M after i % M
 *                   groups of 4 doublings (Horner's rule in i % M)
 *   COMB_ROWS, COMB_DIGITS, COMB_NIBBLES (4-bit digits of the scalar)
 *   COMB_TOP_FOLD   1: the carry of the recoding joins the top digit;
 *                   0: it is digit COMB_NIBBLES, in {0, 1}
 *   COMB_TOP_MASK   applied to the scalar's top limb (X25519: bit 255 is
 *                   ignored, as the ladder ignores it)
 *   COMB_ENTRY_WORDS, COMB_TABLE_WORDS
 * The kernel gets the table (kernels.CombTable) in a global buffer. Row j,
 * entry n (n = 1..8) is n·16^(M·j)·B in affine coordinates, stored as
 * (y + x, y − x, 2d·x·y) when COMB_A is −1 and as (x, y, d·x·y) when it
 * is 1, each element canonical, little-endian limbs. Entry (j, n) starts
 * at word (j·8 + n − 1)·COMB_ENTRY_WORDS. Computed with math/big by
 * kernels/internal/generate/comb.go, which documents the curve models. */
#include "dialect.h"
`)
	c.emit(&b)
	return b.String(), nil
}

func (c *combCurve) emit(b *strings.Builder) {
	entryWords := combEntryElems * c.limbs
	B := c.base()
	fmt.Fprintf(b, "\n/* %s: base point x = 0x%x,\n * y = 0x%x */\n", c.name, B.x, B.y)
	defs := []struct {
		name string
		val  any
	}{
		{"COMB_A", fmt.Sprintf("(%d)", c.a)},
		{"COMB_U_NEG", btoi(c.uNeg)},
		{"COMB_SPACING", c.spacing},
		{"COMB_ROWS", c.rows},
		{"COMB_DIGITS", c.digits},
		{"COMB_NIBBLES", 8 * c.limbs},
		{"COMB_TOP_FOLD", btoi(c.topFold)},
		{"COMB_TOP_MASK", c.topMask},
		{"COMB_ENTRY_WORDS", entryWords},
		{"COMB_TABLE_WORDS", c.rows * combEntries * entryWords},
	}
	for _, d := range defs {
		fmt.Fprintf(b, "#define %s %v\n", d.name, d.val)
	}
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}
