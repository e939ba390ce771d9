package generate

import (
	stdecdh "crypto/ecdh"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/cloudflare/circl/dh/x448"
	"github.com/stretchr/testify/require"
)

// combOrder is the prime order q of each curve's base point.
func combOrder(c *combCurve) *big.Int {
	if c.name == "x25519" {
		q, _ := new(big.Int).SetString("27742317777372353535851937790883648493", 10)
		return q.Add(q, new(big.Int).Lsh(big.NewInt(1), 252))
	}
	q, _ := new(big.Int).SetString("13818066809895115352007386748515426880336692474882178609894547503885", 10)
	return q.Sub(new(big.Int).Lsh(big.NewInt(1), 446), q)
}

func (c *combCurve) edMul(n *big.Int, P edPoint) edPoint {
	R := edPoint{big.NewInt(0), big.NewInt(1)}
	for i := n.BitLen() - 1; i >= 0; i-- {
		R = c.edAdd(R, R)
		if n.Bit(i) == 1 {
			R = c.edAdd(R, P)
		}
	}
	return R
}

func TestCombModels(t *testing.T) {
	for _, c := range combCurves() {
		t.Run(c.name, func(t *testing.T) {
			a := c.mod(big.NewInt(c.a))
			require.Equal(t, 1, big.Jacobi(a, c.p), "a must be a square (complete addition law)")
			require.Equal(t, -1, big.Jacobi(c.d, c.p), "d must be a non-square (complete addition law)")
			B := c.base()
			require.True(t, c.onCurve(B))
			require.Equal(t, big.NewInt(c.baseU), c.u(B))
			require.Zero(t, B.x.Bit(0), "x of the base point is even")
			O := c.edMul(combOrder(c), B)
			require.Zero(t, O.x.Sign(), "q·B is the neutral element")
			require.Zero(t, O.y.Cmp(big.NewInt(1)), "q·B is the neutral element")
			// the grid holds every digit: i = M·j + r with j < rows
			require.GreaterOrEqual(t, c.spacing*c.rows, c.digits)
			require.Less(t, c.spacing*(c.rows-1), c.digits)
			if c.name == "x25519" { // the Ed25519 base point
				require.Equal(t, "216936d3cd6e53fec0a4e231fdd6dc5c692cc7609525a7b2c9562d608f25d51a", B.x.Text(16))
			}
		})
	}
}

// montPoint is an affine point of v² = u³ + A·u² + u (nil u: infinity).
type montPoint struct{ u, v *big.Int }

// TestCombTable checks every stored entry against an independent
// computation on the Montgomery curve with its own group law:
// T[j][n] = n·16^(M·j)·B, each entry on the Edwards curve and stored in the
// form comb.h reads; and the fault checks' tables alike, with
// FaultCheckMultiple·B in place of B.
func TestCombTable(t *testing.T) {
	for _, c := range combCurves() {
		for _, table := range []struct {
			name     string
			multiple int
			words    func(string) ([]uint32, error)
		}{{"B", 1, CombTableWords}, {"check", FaultCheckMultiple, CombCheckTableWords}} {
			t.Run(c.name+"/"+table.name, func(t *testing.T) { testCombTable(t, c, table.multiple, table.words) })
		}
	}
}

// testCombTable is TestCombTable for the table table(c.name) of the base
// point multiple·B.
func testCombTable(t *testing.T, c *combCurve, multiple int, table func(string) ([]uint32, error)) {
	A := big.NewInt(486662)
	if c.name == "x448" {
		A = big.NewInt(156326)
	}
	madd := func(P, Q montPoint) montPoint {
		var l *big.Int
		if P.u.Cmp(Q.u) == 0 { // doubling (no point of order 2 occurs)
			num := c.add(c.add(c.mul(big.NewInt(3), c.mul(P.u, P.u)), c.mul(c.add(A, A), P.u)), big.NewInt(1))
			l = c.mul(num, c.inv(c.add(P.v, P.v)))
		} else {
			l = c.mul(c.sub(Q.v, P.v), c.inv(c.sub(Q.u, P.u)))
		}
		u := c.sub(c.sub(c.sub(c.mul(l, l), A), P.u), Q.u)
		return montPoint{u, c.sub(c.mul(l, c.sub(P.u, u)), P.v)}
	}
	onMont := func(P montPoint) bool {
		rhs := c.add(c.add(c.mul(P.u, c.mul(P.u, P.u)), c.mul(A, c.mul(P.u, P.u))), P.u)
		return c.mul(P.v, P.v).Cmp(rhs) == 0
	}
	// The isomorphism Edwards → Montgomery: u as in c.u, v = s·u/x
	// with s fixed by the base point (either square root of the
	// base point's v² gives an isomorphism).
	Be := c.base()
	ub := c.u(Be)
	vb := new(big.Int).ModSqrt(c.add(c.add(c.mul(ub, c.mul(ub, ub)), c.mul(A, c.mul(ub, ub))), ub), c.p)
	require.NotNil(t, vb)
	s := c.mul(c.mul(vb, Be.x), c.inv(ub))
	toMont := func(P edPoint) montPoint {
		u := c.u(P)
		return montPoint{u, c.mul(c.mul(s, u), c.inv(P.x))}
	}

	words, err := table(c.name)
	require.NoError(t, err)
	entryWords := combEntryElems * c.limbs
	require.Len(t, words, c.rows*combEntries*entryWords)
	elem := func(off int) *big.Int {
		v := new(big.Int)
		for w := c.limbs - 1; w >= 0; w-- {
			v.Lsh(v, 32).Or(v, big.NewInt(int64(words[off+w])))
		}
		require.Negative(t, v.Cmp(c.p), "canonical")
		return v
	}
	half := new(big.Int).ModInverse(big.NewInt(2), c.p)
	R := toMont(Be)
	for range multiple - 1 {
		R = madd(R, toMont(Be))
	}
	for j := range c.rows {
		P := R
		for n := 1; n <= combEntries; n++ {
			off := ((j * combEntries) + n - 1) * entryWords
			e0, e1, e2 := elem(off), elem(off+c.limbs), elem(off+2*c.limbs)
			var x, y, k *big.Int
			if c.a < 0 { // (y + x, y − x, 2d·x·y)
				x = c.mul(c.sub(e0, e1), half)
				y = c.mul(c.add(e0, e1), half)
				k = c.add(c.d, c.d)
			} else { // (x, y, d·x·y)
				x, y, k = e0, e1, c.d
			}
			E := edPoint{x, y}
			require.True(t, c.onCurve(E), "row %d entry %d on the curve", j, n)
			require.Zero(t, e2.Cmp(c.mul(k, c.mul(x, y))), "row %d entry %d: third element", j, n)
			M := toMont(E)
			require.True(t, onMont(M))
			require.Zero(t, M.u.Cmp(P.u), "row %d entry %d: u", j, n)
			require.Zero(t, M.v.Cmp(P.v), "row %d entry %d: v (the sign of x)", j, n)
			P = madd(P, R)
		}
		for range 4 * c.spacing {
			R = madd(R, R)
		}
	}
}

// TestCombSum evaluates the comb as comb.h does (recoding, digit grid,
// Horner's rule, table entries, negation) in affine arithmetic and checks
// the u-coordinate against crypto/ecdh and circl.
func TestCombSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range combCurves() {
		t.Run(c.name, func(t *testing.T) {
			tab := c.table()
			size := 4 * c.limbs
			for it := range 6 {
				priv := make([]byte, size)
				for i := range priv {
					priv[i] = byte(rng.Uint32())
				}
				if it == 0 {
					for i := range priv {
						priv[i] = 0xff
					}
				}
				cl := append([]byte(nil), priv...)
				var want []byte
				if c.name == "x25519" {
					k, err := stdecdh.X25519().NewPrivateKey(priv)
					require.NoError(t, err)
					want = k.PublicKey().Bytes()
					cl[0] &= 248
					cl[31] = cl[31]&127 | 64
				} else {
					var k, pub x448.Key
					copy(k[:], priv)
					x448.KeyGen(&pub, &k)
					want = pub[:]
					cl[0] &= 252
					cl[55] |= 128
				}
				s := new(big.Int)
				for i := size - 1; i >= 0; i-- {
					s.Lsh(s, 8).Or(s, big.NewInt(int64(cl[i])))
				}
				// s' = s + Σ 8·16^i; digit i = nibble i − 8, the carry last
				// (X448) or folded into the top digit (X25519)
				sp := new(big.Int).Set(s)
				for i := range 8 * c.limbs {
					sp.Add(sp, new(big.Int).Lsh(big.NewInt(8), uint(4*i)))
				}
				digit := func(i int) int64 {
					m := new(big.Int).Rsh(sp, uint(4*i))
					if i == 8*c.limbs {
						return m.Int64()
					}
					if !(c.topFold && i == 8*c.limbs-1) {
						m.And(m, big.NewInt(15))
					}
					return m.Int64() - 8
				}
				acc := edPoint{big.NewInt(0), big.NewInt(1)}
				for r := c.spacing - 1; r >= 0; r-- {
					if r != c.spacing-1 {
						for range 4 {
							acc = c.edAdd(acc, acc)
						}
					}
					for j := range c.rows {
						i := c.spacing*j + r
						if i >= c.digits {
							break
						}
						e := digit(i)
						require.True(t, e >= -8 && e <= 8)
						if e == 0 {
							continue
						}
						P := tab[j][abs(e)-1]
						if e < 0 {
							P = edPoint{c.sub(new(big.Int), P.x), P.y}
						}
						acc = c.edAdd(acc, P)
					}
				}
				u := c.u(acc)
				got := make([]byte, size)
				for i := range got {
					got[i] = byte(new(big.Int).Rsh(u, uint(8*i)).Uint64())
				}
				require.Equal(t, want, got, "priv %x", priv)
			}
		})
	}
}

func abs(e int64) int64 {
	if e < 0 {
		return -e
	}
	return e
}
