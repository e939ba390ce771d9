//go:build go1.26

package ecdh_test

import (
	"context"
	stdecdh "crypto/ecdh"
	"crypto/hpke"
	"crypto/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
)

var _ stdecdh.KeyExchanger = (*ecdh.KeyExchanger)(nil)

// crypto/hpke opens with a Server's KeyExchanger what crypto/hpke sealed
// to its public key (DHKEM(X25519)), on a device Server and a CPU one; a
// closed key or Server refuses.
func TestKeyExchangerHPKE(t *testing.T) {
	for name, e := range map[string]*ecdh.Engine{"device": deviceEngine(t), "cpu": ecdh.CPUEngine()} {
		t.Run(name, func(t *testing.T) {
			s, err := ecdh.NewServer(batch.Options{MaxDelay: time.Millisecond}, e)
			require.NoError(t, err)
			priv, err := stdecdh.X25519().GenerateKey(rand.Reader)
			require.NoError(t, err)
			kex, err := s.KeyExchanger(priv)
			require.NoError(t, err)
			require.True(t, kex.PublicKey().Equal(priv.PublicKey()))
			recipientKey, err := hpke.NewDHKEMPrivateKey(kex)
			require.NoError(t, err)
			pub, err := hpke.NewDHKEMPublicKey(priv.PublicKey())
			require.NoError(t, err)
			for i := range 4 {
				msg := []byte{byte(i), 'h', 'p', 'k', 'e'}
				ct, err := hpke.Seal(pub, hpke.HKDFSHA256(), hpke.AES128GCM(), []byte("info"), msg)
				require.NoError(t, err)
				got, err := hpke.Open(recipientKey, hpke.HKDFSHA256(), hpke.AES128GCM(), []byte("info"), ct)
				require.NoError(t, err)
				require.Equal(t, msg, got)
			}
			// the same secret as crypto/ecdh's own key, and its errors
			peer, _ := stdecdh.X25519().GenerateKey(rand.Reader)
			want, _ := priv.ECDH(peer.PublicKey())
			got, err := kex.ECDHContext(context.Background(), peer.PublicKey())
			require.NoError(t, err)
			require.Equal(t, want, got)
			_, err = kex.ECDH(nil)
			require.Error(t, err)
			p256, _ := stdecdh.P256().GenerateKey(rand.Reader)
			_, err = kex.ECDH(p256.PublicKey())
			require.Error(t, err)
			_, err = s.KeyExchanger(p256)
			require.Error(t, err)
			_, err = s.KeyExchanger(nil)
			require.Error(t, err)
			require.NoError(t, kex.Close())
			_, err = kex.ECDH(peer.PublicKey())
			require.ErrorIs(t, err, batch.ErrClosed)
			require.NoError(t, s.Close())
			_, err = s.KeyExchanger(priv)
			require.ErrorIs(t, err, batch.ErrClosed)
		})
	}
}
