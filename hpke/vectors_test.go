//go:build go1.26

package hpke_test

import (
	stdhpke "crypto/hpke"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/hpke"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// The vectors of RFC 9180 (DHKEM(X25519), HKDF-SHA256, AES-128-GCM) and
// draft-ietf-hpke-pq (ML-KEM-768 with AES-128-GCM; MLKEM768-X25519 with
// ChaCha20Poly1305, of which the Engine computes the KEM and the key
// schedule), on every engine: the recipient's public key of its private
// key; the derandomized Seal of the first message (its enc for
// MLKEM768-X25519); the shared secret of enc; key and base_nonce; Open of
// the first message with its additional data, which crypto/hpke's
// Recipient opens too.
func TestVectors(t *testing.T) {
	vectors, err := testvectors.HPKE()
	require.NoError(t, err)
	require.Len(t, vectors, 3)
	for name, e := range engines(t) {
		for _, v := range vectors {
			s := hpke.Suite{KEM: hpke.KEM(v.KEM), KDF: hpke.KDF(v.KDF), AEAD: hpke.AEAD(v.AEAD)}
			t.Run(fmt.Sprintf("%s/%v", name, s), func(t *testing.T) {
				require.Zero(t, v.Mode)
				k, err := hpke.NewPrivateKey(s.KEM, unhex(t, v.SkRm))
				require.NoError(t, err)
				require.Equal(t, v.PkRm, hex.EncodeToString(k.PublicKey().Bytes()))
				info, enc, first := unhex(t, v.Info), unhex(t, v.Enc), v.Encryptions[0]
				aad, pt, ct := unhex(t, first.AAD), unhex(t, first.Pt), unhex(t, first.Ct)
				require.Equal(t, v.BaseNonce, first.Nonce, "sequence number 0")

				shared, err := hpke.SharedSecrets(e, s, k, [][]byte{enc})
				require.NoError(t, err)
				require.Equal(t, v.SharedSecret, hex.EncodeToString(shared[0]))
				key, nonce := hpke.KeySchedule(s, shared[0], info, len(v.Key)/2)
				require.Equal(t, v.Key, hex.EncodeToString(key))
				require.Equal(t, v.BaseNonce, hex.EncodeToString(nonce))

				random := unhex(t, v.IkmE)
				if v.SkEm != "" {
					random = unhex(t, v.SkEm) // RFC 9180's ephemeral key, of DeriveKeyPair(ikmE)
				}
				sealSuite := s
				if s.AEAD != hpke.AES128GCM {
					sealSuite.AEAD = hpke.AES128GCM // enc is the AEAD's alone
				}
				sealed, err := e.SealDerandomized(sealSuite, []hpke.SealInput{{Key: k.PublicKey(), Info: info, AAD: aad, Plaintext: pt}}, [][]byte{random})
				require.NoError(t, err)
				require.Equal(t, v.Enc, hex.EncodeToString(sealed[0][:len(enc)]))
				if sealSuite != s {
					return
				}
				require.Equal(t, v.Enc+first.Ct, hex.EncodeToString(sealed[0]))
				got, err := e.OpenMessages(s, []hpke.OpenInput{{Key: k, Info: info, AAD: aad, Ciphertext: append(enc, ct...)}})
				require.NoError(t, err)
				require.Equal(t, pt, got[0])

				// crypto/hpke's Recipient agrees (its single-shot Open has no aad)
				kem, err := stdhpke.NewKEM(v.KEM)
				require.NoError(t, err)
				stdKey, err := kem.NewPrivateKey(unhex(t, v.SkRm))
				require.NoError(t, err)
				aead, err := stdhpke.NewAEAD(v.AEAD)
				require.NoError(t, err)
				r, err := stdhpke.NewRecipient(enc, stdKey, stdhpke.HKDFSHA256(), aead, info)
				require.NoError(t, err)
				stdPt, err := r.Open(aad, ct)
				require.NoError(t, err)
				require.Equal(t, pt, stdPt)
			})
		}
	}
}
