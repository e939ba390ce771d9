package rsa

import (
	"crypto/rand"
	stdrsa "crypto/rsa"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/arith"
)

// isZero reports whether every word of x is zero.
func isZero(x *big.Int) bool {
	for _, w := range x.Bits() {
		if w != 0 {
			return false
		}
	}
	return true
}

// Preparing a key zeroes the CRT values crypto/rsa computed for the copy it
// validates, not the caller's: a key given with its CRT values keeps them,
// and a key without them gets its own, right, in the prepared form.
func TestNewPrivateKeyKeepsCallersCRT(t *testing.T) {
	key := loadKey(t, "rsa2048a")
	given := key.Precomputed
	wantDp, wantDq, wantQinv := new(big.Int).Set(given.Dp), new(big.Int).Set(given.Dq), new(big.Int).Set(given.Qinv)
	pk, err := newPrivateKey(key)
	require.NoError(t, err)
	require.Equal(t, wantDp, key.Precomputed.Dp, "the caller's Dp")
	require.Equal(t, wantDq, key.Precomputed.Dq, "the caller's Dq")
	require.Equal(t, wantQinv, key.Precomputed.Qinv, "the caller's Qinv")
	require.Equal(t, wantDp, pk.dp)

	bare := *key
	bare.Precomputed = stdrsa.PrecomputedValues{}
	pk, err = newPrivateKey(&bare)
	require.NoError(t, err)
	require.Equal(t, wantDp, pk.dp)
	require.Equal(t, wantDq, pk.dq)
	require.Equal(t, wantQinv, pk.qinv)
	require.Nil(t, bare.Precomputed.Dp, "the caller's key is left as it was")
}

// clearComputed zeroes the values Precompute made and leaves the
// caller's.
func TestClearComputed(t *testing.T) {
	shared := big.NewInt(12345)
	computed := stdrsa.PrecomputedValues{Dp: big.NewInt(7), Dq: shared, Qinv: big.NewInt(99)}
	given := stdrsa.PrecomputedValues{Dq: shared}
	clearComputed(&computed, &given)
	require.True(t, isZero(computed.Dp))
	require.True(t, isZero(computed.Qinv))
	require.Equal(t, big.NewInt(12345), shared)
}

// blindingPairOf zeroes r, whatever its outcome, and gives a pair with
// r^e · (r^-1)^e ≡ 1 (mod n).
func TestBlindingPairClearsR(t *testing.T) {
	pk, err := newPrivateKey(loadKey(t, "rsa2048a"))
	require.NoError(t, err)
	pub := pk.pub
	c, err := pub.constantTime()
	require.NoError(t, err)
	r, err := rand.Int(rand.Reader, pub.n)
	require.NoError(t, err)
	re, rinv, ok, err := blindingPairOf(pub, c.n, r)
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, isZero(r), "r is zeroed")
	reInt := new(big.Int).SetBytes(re.Bytes(c.n))
	rinvE := new(big.Int).Exp(new(big.Int).SetBytes(rinv.Bytes(c.n)), big.NewInt(int64(pub.e)), pub.n)
	require.Equal(t, big.NewInt(1), reInt.Mul(reInt, rinvE).Mod(reInt, pub.n))

	one := big.NewInt(1)
	_, _, ok, err = blindingPairOf(pub, c.n, one)
	require.NoError(t, err)
	require.False(t, ok)
	require.True(t, isZero(one), "a refused r is zeroed too")
}

// clearPrivate zeroes a device form's private fields and leaves the
// modulus's constants (public).
func TestDeviceFormClearPrivate(t *testing.T) {
	key := loadKey(t, "rsa2048a")
	pk, err := newPrivateKey(key)
	require.NoError(t, err)
	d := &deviceForm{}
	d.p, err = arith.NewConstants(pk.p, 32)
	require.NoError(t, err)
	d.q, err = arith.NewConstants(pk.q, 32)
	require.NoError(t, err)
	d.n, err = arith.NewConstants(pk.pub.n, 64)
	require.NoError(t, err)
	d.dp, err = arith.ToLimbs(pk.dp, 32)
	require.NoError(t, err)
	d.dq, err = arith.ToLimbs(pk.dq, 32)
	require.NoError(t, err)
	d.qinv, err = arith.ToLimbs(pk.qinv, 32)
	require.NoError(t, err)
	n := append([]uint32(nil), d.n.M...)
	d.clearPrivate()
	for _, words := range [][]uint32{d.p.M, d.p.One, d.p.R2, d.q.M, d.q.One, d.q.R2, d.dp, d.dq, d.qinv} {
		require.Equal(t, make([]uint32, len(words)), words)
	}
	require.Zero(t, d.p.N0)
	require.Zero(t, d.q.N0)
	require.Equal(t, n, d.n.M)
	(&deviceForm{}).clearPrivate() // a form that failed before its first field
}
