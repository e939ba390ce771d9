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
			pk, err := newPrivateKey(k)
			require.NoError(t, err)
			ck, err := pk.constantTime()
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
			size := modBytes(pk.pub)
			value := func(x *big.Int) []byte { return x.FillBytes(make([]byte, size)) }
			for _, x := range ins {
				got := make([]byte, size)
				require.NoError(t, ck.private(value(x), got, nil), "%s order %d x=%x", name, order, x)
				want := value(new(big.Int).Exp(x, k.D, n))
				require.Equal(t, want, got, "%s order %d x=%x", name, order, x)
				require.True(t, checkPrivate(pk.pub, got, value(x)))
				// m -> m^e is a permutation: any other value fails the check
				got[size-1] ^= 1
				require.False(t, checkPrivate(pk.pub, got, value(x)))
			}
			// out of range inputs are errors, never values
			for _, x := range []*big.Int{n, new(big.Int).Add(n, big.NewInt(5))} {
				require.ErrorIs(t, ck.private(value(x), make([]byte, size), nil), ErrInputRange)
			}
			// so are strings of the wrong size
			require.ErrorIs(t, ck.private(make([]byte, size+1), make([]byte, size), nil), errValueSize)
			require.ErrorIs(t, ck.private(make([]byte, size), make([]byte, size-1), nil), errValueSize)
			// a corrupted half is ErrFault
			err = ck.private(value(big.NewInt(12345)), make([]byte, size), func(mp *big.Int) { mp.Add(mp, big.NewInt(1)) })
			require.ErrorIs(t, err, ErrFault)
		}
	}
}
