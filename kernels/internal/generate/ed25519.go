package generate

import (
	"fmt"
	"math/big"
	"strings"
)

// Ed25519 returns ed25519_gen.h, the field constants of Ed25519's
// kernels (ed25519_point.h) as initializers of 8 little-endian 32-bit
// limbs, each canonical:
//
//	ED25519_D        d = −121665/121666 mod p, of −x² + y² = 1 + d·x²·y²
//	ED25519_D2       2d, the factor of the cached points' T
//	ED25519_SQRT_M1  √−1 = 2^((p−1)/4), the one with an even value
//
// The curve is the X25519 comb's (comb.go): the same d, the same base
// point, whose multiples the comb table holds.
func Ed25519() (string, error) {
	c, err := combCurveByName("x25519")
	if err != nil {
		return "", err
	}
	sqrtM1 := new(big.Int).Exp(big.NewInt(2), new(big.Int).Rsh(new(big.Int).Sub(c.p, big.NewInt(1)), 2), c.p)
	if sqrtM1.Bit(0) == 1 {
		sqrtM1 = c.sub(new(big.Int), sqrtM1)
	}
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("/* The field constants of Ed25519 (kernels/internal/generate/ed25519.go). */\n#include \"dialect.h\"\n")
	for _, k := range []struct {
		name string
		v    *big.Int
	}{
		{"ED25519_D", c.d},
		{"ED25519_D2", c.add(c.d, c.d)},
		{"ED25519_SQRT_M1", sqrtM1},
	} {
		fmt.Fprintf(&b, "#define %s {", k.name)
		for w := range c.limbs {
			if w > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "0x%08xu", uint32(new(big.Int).Rsh(k.v, uint(32*w)).Uint64()))
		}
		b.WriteString("}\n")
	}
	return b.String(), nil
}
