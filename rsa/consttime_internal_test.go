package rsa

import (
	stdrsa "crypto/rsa"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The constant-time CPU private operation against math/big's x^d mod n,
// for every test key with its primes in both orders (Garner's
// recombination differs when q > p), on random inputs and the edges: 0, 1,
// n-1, and multiples of p and of q (one CRT half is zero).
func TestConstTimePrivate(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(7, 8))
	for _, name := range []string{"rsa1024a", "rsa2048a", "rsa2049", "rsa3072", "rsa4096"} {
		key := loadKey(t, name)
		swapped := *key
		swapped.Primes = []*big.Int{key.Primes[1], key.Primes[0]}
		swapped.Precomputed = stdrsa.PrecomputedValues{}
		for order, k := range []*stdrsa.PrivateKey{key, &swapped} {
			pk, err := newPrivKey(k)
			require.NoError(t, err)
			ck, err := pk.constTime()
			require.NoError(t, err)
			n := k.N
			p, q := k.Primes[0], k.Primes[1]
			ins := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(n, big.NewInt(1)),
				new(big.Int).Set(p), new(big.Int).Mul(q, big.NewInt(3))}
			for range 20 {
				b := make([]byte, (n.BitLen()+7)/8)
				for i := range b {
					b[i] = byte(rng.Uint32())
				}
				ins = append(ins, new(big.Int).Mod(new(big.Int).SetBytes(b), n))
			}
			for _, x := range ins {
				got, err := ck.private(x, nil)
				require.NoError(t, err, "%s order %d x=%x", name, order, x)
				want := new(big.Int).Exp(x, k.D, n)
				require.Zero(t, want.Cmp(got), "%s order %d x=%x", name, order, x)
				require.True(t, checkPrivate(pk.pub, got, x))
				// m -> m^e is a permutation: any other value fails the check
				require.False(t, checkPrivate(pk.pub, new(big.Int).Xor(got, big.NewInt(1)), x))
			}
			// out of range inputs are errors, never values
			for _, x := range []*big.Int{n, new(big.Int).Add(n, big.NewInt(5)), big.NewInt(-1)} {
				_, err := ck.private(x, nil)
				require.ErrorIs(t, err, ErrInputRange)
			}
			// a corrupted half is ErrFault
			_, err = ck.private(big.NewInt(12345), func(mp *big.Int) { mp.Add(mp, big.NewInt(1)) })
			require.ErrorIs(t, err, ErrFault)
		}
	}
}
