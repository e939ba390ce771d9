package ecdsa

import (
	"crypto"
	stdecdh "crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// The host's RFC 6979 nonces (deterministicNonce, whose range check is
// validScalar's) are crypto/ecdsa's: for random keys, keys with leading
// zero bytes among them, and random hashes, r = x(k·G) mod n of
// deterministicNonce's k is the r of crypto/ecdsa's deterministic
// signature (PrivateKey.Sign with a nil source).
func TestDeterministicNonceMatchesCryptoECDSA(t *testing.T) {
	for i := range 64 {
		var d [32]byte
		for {
			rand.Read(d[:])
			if i%4 == 0 {
				d[0] = 0 // a scalar with a leading zero byte
			}
			if i%8 == 0 {
				d[1] = 0
			}
			if validScalar(&d) {
				break
			}
		}
		priv, err := stdecdh.P256().NewPrivateKey(d[:])
		require.NoError(t, err)
		pub := priv.PublicKey().Bytes()
		key := &ecdsa.PrivateKey{
			PublicKey: ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(pub[1:33]), Y: new(big.Int).SetBytes(pub[33:])},
			D:         new(big.Int).SetBytes(d[:]),
		}
		var msg [16]byte
		rand.Read(msg[:])
		hash := sha256.Sum256(msg[:])
		sig, err := key.Sign(nil, hash[:], crypto.SHA256)
		require.NoError(t, err)
		wantR, _, ok := parseASN1(sig)
		require.True(t, ok)

		k := deterministicNonce(d[:], hash[:])
		require.True(t, validScalar(&k))
		kPriv, err := stdecdh.P256().NewPrivateKey(k[:])
		require.NoError(t, err)
		x := new(big.Int).SetBytes(kPriv.PublicKey().Bytes()[1:33])
		require.Equal(t, new(big.Int).SetBytes(wantR), x.Mod(x, orderInt), "key %x, hash %x", d, hash)
	}
}
