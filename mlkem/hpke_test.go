//go:build go1.26

package mlkem_test

import (
	"context"
	"crypto"
	stdecdh "crypto/ecdh"
	"crypto/hpke"
	stdmlkem "crypto/mlkem"
	"crypto/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/ecdsa"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

var _ crypto.Decapsulator = (*mlkem.DecapsulationKey)(nil)

// crypto/hpke opens with keys held by Servers what crypto/hpke sealed:
// ML-KEM-768 and ML-KEM-1024 alone (NewMLKEMPrivateKey), and the hybrids
// MLKEM768-X25519 and MLKEM768-P256 (NewHybridPrivateKey over an
// mlkem.Server's DecapsulationKey and an ecdh or ecdsa Server's
// KeyExchanger), on the CPU engines (the device's are the same Servers).
func TestHPKEWithServerKeys(t *testing.T) {
	opts := batch.Options{MaxDelay: time.Millisecond}
	kem, err := mlkem.NewServer(opts, mlkem.CPUEngine())
	require.NoError(t, err)
	defer kem.Close()
	x, err := ecdh.NewServer(opts, ecdh.CPUEngine())
	require.NoError(t, err)
	defer x.Close()
	p256, err := ecdsa.NewServer(opts, ecdsa.CPUEngine())
	require.NoError(t, err)
	defer p256.Close()

	roundTrip := func(t *testing.T, pub hpke.PublicKey, priv hpke.PrivateKey) {
		t.Helper()
		for i := range 3 {
			msg := []byte{byte(i), 'm', 's', 'g'}
			ct, err := hpke.Seal(pub, hpke.HKDFSHA256(), hpke.AES128GCM(), []byte("info"), msg)
			require.NoError(t, err)
			got, err := hpke.Open(priv, hpke.HKDFSHA256(), hpke.AES128GCM(), []byte("info"), ct)
			require.NoError(t, err)
			require.Equal(t, msg, got)
		}
	}
	newKey := func(t *testing.T, p mlkem.Parameters) *mlkem.DecapsulationKey {
		seed := make([]byte, mlkem.SeedSize)
		rand.Read(seed)
		k, err := kem.DecapsulationKey(p, seed)
		require.NoError(t, err)
		return k
	}
	t.Run("ML-KEM", func(t *testing.T) {
		for _, p := range []mlkem.Parameters{mlkem.MLKEM768, mlkem.MLKEM1024} {
			k := newKey(t, p)
			priv, err := hpke.NewMLKEMPrivateKey(k)
			require.NoError(t, err)
			pub, err := hpke.NewMLKEMPublicKey(k.Encapsulator())
			require.NoError(t, err)
			roundTrip(t, pub, priv)
		}
	})
	t.Run("MLKEM768-X25519", func(t *testing.T) {
		k := newKey(t, mlkem.MLKEM768)
		ecKey, _ := stdecdh.X25519().GenerateKey(rand.Reader)
		kex, err := x.KeyExchanger(ecKey)
		require.NoError(t, err)
		priv, err := hpke.NewHybridPrivateKey(k, kex)
		require.NoError(t, err)
		pub, err := hpke.NewHybridPublicKey(k.Encapsulator(), ecKey.PublicKey())
		require.NoError(t, err)
		roundTrip(t, pub, priv)
	})
	t.Run("MLKEM768-P256", func(t *testing.T) {
		k := newKey(t, mlkem.MLKEM768)
		ecKey, _ := stdecdh.P256().GenerateKey(rand.Reader)
		kex, err := p256.KeyExchanger(ecKey)
		require.NoError(t, err)
		priv, err := hpke.NewHybridPrivateKey(k, kex)
		require.NoError(t, err)
		pub, err := hpke.NewHybridPublicKey(k.Encapsulator(), ecKey.PublicKey())
		require.NoError(t, err)
		roundTrip(t, pub, priv)
	})
}

// A DecapsulationKey decapsulates on the Server as crypto/mlkem's key
// does, its Encapsulator is crypto/mlkem's; Close refuses later calls.
func TestDecapsulationKey(t *testing.T) {
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			s, err := mlkem.NewServer(batch.Options{MaxDelay: time.Millisecond}, e)
			require.NoError(t, err)
			defer s.Close()
			for _, p := range []mlkem.Parameters{mlkem.MLKEM768, mlkem.MLKEM1024} {
				seed := make([]byte, mlkem.SeedSize)
				rand.Read(seed)
				k, err := s.DecapsulationKey(p, seed)
				require.NoError(t, err)
				shared, ct := k.Encapsulator().Encapsulate()
				got, err := k.Decapsulate(ct)
				require.NoError(t, err)
				require.Equal(t, shared, got, "%v", p)
				require.NoError(t, k.Close())
				_, err = k.Decapsulate(ct)
				require.ErrorIs(t, err, batch.ErrClosed)
			}
			_, err = s.DecapsulationKey(mlkem.MLKEM768, make([]byte, 10))
			require.ErrorIs(t, err, mlkem.ErrSeedLength)
		})
	}
}

// A DecapsulationKey's Go decapsulates on the Server as crypto/mlkem's
// key does, every Call back on Done once with its own outcome (the
// implicit-rejection key of a corrupted ciphertext, an error for one of
// the wrong length); Go refuses a Call it cannot send back, one without a
// ciphertext, and every Call after Close.
func TestDecapsulationKeyGo(t *testing.T) {
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			s, err := mlkem.NewServer(batch.Options{MaxDelay: time.Millisecond}, e)
			require.NoError(t, err)
			defer s.Close()
			for _, p := range []mlkem.Parameters{mlkem.MLKEM768, mlkem.MLKEM1024} {
				seed := make([]byte, mlkem.SeedSize)
				rand.Read(seed)
				k, err := s.DecapsulationKey(p, seed)
				require.NoError(t, err)
				std, err := stdDecapsulator(p, seed)
				require.NoError(t, err)
				const n = 24
				done := make(chan *mlkem.Call, n)
				calls := make([]mlkem.Call, n)
				for i := range calls {
					_, ct := k.Encapsulator().Encapsulate()
					switch i % 6 {
					case 1:
						ct[i%len(ct)] ^= 1 // implicitly rejected
					case 5:
						ct = ct[:len(ct)-1] // the wrong length
					}
					calls[i] = mlkem.Call{Ciphertext: ct, Done: done}
					require.NoError(t, k.Go(context.Background(), &calls[i]))
				}
				seen := map[*mlkem.Call]bool{}
				for range n {
					c := <-done
					require.False(t, seen[c], "a Call back twice")
					seen[c] = true
					want, wantErr := std.Decapsulate(c.Ciphertext)
					if wantErr != nil {
						require.Error(t, c.Err, "%v: %d-byte ciphertext", p, len(c.Ciphertext))
						continue
					}
					require.NoError(t, c.Err)
					require.Equal(t, want, c.SharedKey, "%v", p)
				}
				require.Error(t, k.Go(context.Background(), &mlkem.Call{Ciphertext: calls[0].Ciphertext}), "no Done")
				require.Error(t, k.Go(context.Background(), &mlkem.Call{Done: done}), "no ciphertext")
				require.NoError(t, k.Close())
				require.ErrorIs(t, k.Go(context.Background(), &mlkem.Call{Ciphertext: calls[0].Ciphertext, Done: done}), batch.ErrClosed)
			}
		})
	}
}

// stdDecapsulator is crypto/mlkem's decapsulation key of seed.
func stdDecapsulator(p mlkem.Parameters, seed []byte) (interface {
	Decapsulate([]byte) ([]byte, error)
}, error) {
	if p == mlkem.MLKEM768 {
		return stdmlkem.NewDecapsulationKey768(seed)
	}
	return stdmlkem.NewDecapsulationKey1024(seed)
}
