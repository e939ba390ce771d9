package rsa_test

import (
	"crypto"
	stdrsa "crypto/rsa"
	"math/big"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/rsa"
)

// clone returns a deep enough copy of k to modify its fields.
func clone(k *stdrsa.PrivateKey) *stdrsa.PrivateKey {
	c := &stdrsa.PrivateKey{
		PublicKey: stdrsa.PublicKey{N: new(big.Int).Set(k.N), E: k.E},
		D:         new(big.Int).Set(k.D),
	}
	for _, p := range k.Primes {
		c.Primes = append(c.Primes, new(big.Int).Set(p))
	}
	return c
}

func TestBadKeys(t *testing.T) {
	k := key(t, "rsa2048a")
	other := key(t, "rsa2048b")
	big1 := big.NewInt(1)
	cases := []struct {
		name   string
		edit   func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey
		substr string
		public bool // the public half is bad too
	}{
		{"nil key", func(*stdrsa.PrivateKey) *stdrsa.PrivateKey { return nil }, "nil private key", false},
		{"nil N", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.N = nil; return c }, "missing modulus", true},
		{"negative N", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.N.Neg(c.N); return c }, "not positive", true},
		{"even N", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.N.Add(c.N, big1); return c }, "modulus is even", true},
		{"512-bit N", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.N.Rsh(c.N, 1536); c.N.SetBit(c.N, 0, 1); return c }, "512-bit modulus", true},
		{"8192-bit N", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.N.Lsh(c.N, 6144); c.N.SetBit(c.N, 0, 1); return c }, "8192-bit modulus", true},
		{"e = 1", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.E = 1; return c }, "below 3", true},
		{"e = -3", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.E = -3; return c }, "below 3", true},
		{"even e", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.E = 65536; return c }, "is even", true},
		{"e over 31 bits", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.E = 1<<31 + 1; return c }, "31 bits", true},
		{"wrong e", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.E = 3; return c }, "invalid key", false},
		{"nil D", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.D = nil; return c }, "missing private exponent", false},
		{"wrong D", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.D.Add(c.D, big1); return c }, "invalid key", false},
		{"no primes", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.Primes = nil; return c }, "missing primes", false},
		{"one prime", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.Primes = c.Primes[:1]; return c }, "missing primes", false},
		{"three primes", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey {
			c.Primes = append(c.Primes, big.NewInt(3))
			return c
		}, "multi-prime keys (3 primes)", false},
		{"nil prime", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.Primes[1] = nil; return c }, "nil prime", false},
		{"even prime", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.Primes[0] = big.NewInt(2); return c }, "odd and greater than 1", false},
		{"P·Q != N", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey { c.Primes[0] = other.Primes[0]; return c }, "P·Q != N", false},
		{"wrong Dp", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey {
			c.Precompute()
			c.Precomputed.Dp = new(big.Int).Add(c.Precomputed.Dp, big.NewInt(2))
			return c
		}, "invalid key", false},
		{"wrong Qinv", func(c *stdrsa.PrivateKey) *stdrsa.PrivateKey {
			c.Precomputed = stdrsa.PrecomputedValues{ // as a key built by hand
				Dp:   new(big.Int).Mod(c.D, new(big.Int).Sub(c.Primes[0], big1)),
				Dq:   new(big.Int).Mod(c.D, new(big.Int).Sub(c.Primes[1], big1)),
				Qinv: big.NewInt(12345),
			}
			return c
		}, "CRT coefficient", false},
	}
	d := randBytes(t, 32)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := c.edit(clone(k))
			keys := []*stdrsa.PrivateKey{k, bad, k}
			sigs, err := cpuEngine.SignPKCS1v15(keys, crypto.SHA256, [][]byte{d, d, d})
			errs := elementErrs(t, err, 3)
			require.NoError(t, errs[0])
			require.NoError(t, errs[2])
			require.Equal(t, sigs[0], sigs[2])
			require.ErrorIs(t, errs[1], rsa.ErrInvalidKey)
			require.ErrorContains(t, errs[1], c.substr)
			require.Nil(t, sigs[1])
			if c.public {
				err := asErrors(cpuEngine.VerifyPKCS1v15([]*stdrsa.PublicKey{&bad.PublicKey}, crypto.SHA256, [][]byte{d}, [][]byte{sigs[0]}))
				x := elementErrs(t, err, 1)[0]
				require.ErrorIs(t, x, rsa.ErrInvalidKey)
				require.ErrorContains(t, x, c.substr)
			}
		})
	}
	// Validation works on a copy: the caller's key is left as it was.
	c := clone(k)
	_, err := cpuEngine.SignPKCS1v15([]*stdrsa.PrivateKey{c}, crypto.SHA256, [][]byte{d})
	require.NoError(t, err)
	require.Nil(t, c.Precomputed.Dp)
}

// The prepared form of a key is cached per pointer, replaced when the
// key's fields are replaced, and dropped when the key is collected.
func TestKeyCache(t *testing.T) {
	d := randBytes(t, 32)
	sign := func(k *stdrsa.PrivateKey) error {
		_, err := cpuEngine.SignPKCS1v15([]*stdrsa.PrivateKey{k}, crypto.SHA256, [][]byte{d})
		return err
	}
	verify := func(pub *stdrsa.PublicKey, sig []byte) error {
		return asErrors(cpuEngine.VerifyPKCS1v15([]*stdrsa.PublicKey{pub}, crypto.SHA256, [][]byte{d}, [][]byte{sig}))
	}
	var wk weak.Pointer[stdrsa.PrivateKey]
	var wp weak.Pointer[stdrsa.PublicKey]
	func() {
		k := clone(key(t, "rsa1024a"))
		wk = weak.Make(k)
		require.Nil(t, rsa.CachedPrivate(wk))
		require.NoError(t, sign(k))
		first := rsa.CachedPrivate(wk)
		require.NotNil(t, first)
		require.NoError(t, sign(k))
		require.Same(t, first, rsa.CachedPrivate(wk), "prepared twice")
		// Replacing a field invalidates the entry: the key is checked again.
		k.Primes[0] = big.NewInt(3)
		require.ErrorContains(t, sign(k), "P·Q != N")
		k.Primes[0] = new(big.Int).Set(key(t, "rsa1024a").Primes[0])
		require.NoError(t, sign(k))
		require.NotSame(t, first, rsa.CachedPrivate(wk))

		pub := &stdrsa.PublicKey{N: key(t, "rsa1024b").N, E: 65537}
		wp = weak.Make(pub)
		sig, err := stdrsa.SignPKCS1v15(nil, key(t, "rsa1024b"), crypto.SHA256, d)
		require.NoError(t, err)
		require.NoError(t, verify(pub, sig))
		require.NotNil(t, rsa.CachedPublic(wp))
		pub.N = key(t, "rsa1024a").N
		require.Error(t, verify(pub, sig))
		runtime.KeepAlive(k)
	}()

	// Both keys are garbage now; their entries go with them.
	deadline := time.Now().Add(5 * time.Second)
	for rsa.CachedPrivate(wk) != nil || rsa.CachedPublic(wp) != nil {
		require.True(t, time.Now().Before(deadline), "the cache still holds collected keys")
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	require.Nil(t, wk.Value())
}
