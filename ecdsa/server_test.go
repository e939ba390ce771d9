package ecdsa_test

import (
	"bytes"
	"context"
	"crypto"
	stdecdh "crypto/ecdh"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdsa"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// Many goroutines sign and verify through one Server: every signature
// verifies under crypto/ecdsa, corrupted ones do not; the deterministic
// Signer gives crypto/ecdsa's PrivateKey.Sign(nil, ...) byte for byte.
func TestServerConcurrentCallers(t *testing.T) {
	s, err := ecdsa.NewServer(batch.Options{MaxBatch: 64, MaxDelay: time.Millisecond, CPUOffload: -1}, deviceEngine(t))
	require.NoError(t, err)
	defer s.Close()
	key, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	signer, err := s.Signer(key)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				h := sha256.Sum256([]byte{byte(g), byte(i)})
				sig, err := s.SignASN1(context.Background(), nil, key, h[:])
				if err != nil {
					t.Error(err)
					return
				}
				ok, err := s.VerifyASN1(context.Background(), &key.PublicKey, h[:], sig)
				if err != nil || !ok || !stdecdsa.VerifyASN1(&key.PublicKey, h[:], sig) {
					t.Errorf("a signature of the server: %v, %v", ok, err)
				}
				h[0] ^= 1
				if ok, err := s.VerifyASN1(context.Background(), &key.PublicKey, h[:], sig); err != nil || ok {
					t.Errorf("a signature of another hash: %v, %v", ok, err)
				}
				h[0] ^= 1
				det, err := signer.Sign(nil, h[:], crypto.SHA256)
				want, _ := key.Sign(nil, h[:], crypto.SHA256)
				if err != nil || string(det) != string(want) {
					t.Errorf("deterministic signature %x, crypto/ecdsa %x (%v)", det, want, err)
				}
			}
		}()
	}
	wg.Wait()
	require.Positive(t, s.Stats().DeviceOps)
}

func TestServerErrors(t *testing.T) {
	s, err := ecdsa.NewServer(batch.Options{MaxDelay: time.Millisecond}, ecdsa.CPUEngine())
	require.NoError(t, err)
	h := sha256.Sum256(nil)
	_, err = s.SignASN1(context.Background(), nil, nil, h[:])
	require.ErrorIs(t, err, ecdsa.ErrNilKey)
	_, err = s.VerifyASN1(context.Background(), nil, h[:], nil)
	require.ErrorIs(t, err, ecdsa.ErrNilKey)
	_, err = s.Signer(nil)
	require.ErrorIs(t, err, ecdsa.ErrNilKey)
	_, err = s.SignASN1(context.Background(), eofReader{}, &stdecdsa.PrivateKey{}, h[:])
	require.Error(t, err, "a source that fails")
	_, err = ecdsa.NewServer(batch.Options{})
	require.Error(t, err)
	_, err = ecdsa.NewServer(batch.Options{}, nil)
	require.Error(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	_, err = s.VerifyASN1(context.Background(), nil, h[:], nil)
	require.True(t, errors.Is(err, batch.ErrClosed), "%v", err)
	_, err = s.Signer(&stdecdsa.PrivateKey{})
	require.True(t, errors.Is(err, batch.ErrClosed), "%v", err)
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// A Signer serves a crypto/tls server with an ECDSA P-256 certificate,
// TLS 1.2 and 1.3, and crypto/x509 accepts it.
func TestSignerTLS(t *testing.T) {
	s, err := ecdsa.NewServer(batch.Options{MaxDelay: time.Millisecond}, deviceEngine(t))
	require.NoError(t, err)
	defer s.Close()
	key, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	signer, err := s.Signer(key)
	require.NoError(t, err)
	devicetest.ServeTLS(t, signer)
}

// ECDH requests from many goroutines: each gets crypto/ecdh's secret, or
// its error for a key it refuses, whatever it was batched with.
func TestServerECDH(t *testing.T) {
	s, err := ecdsa.NewServer(batch.Options{MaxBatch: 64, MaxDelay: time.Millisecond, CPUOffload: -1}, deviceEngine(t))
	require.NoError(t, err)
	defer s.Close()
	keys := make([]*stdecdh.PrivateKey, 8)
	for i := range keys {
		keys[i], err = stdecdh.P256().GenerateKey(rand.Reader)
		require.NoError(t, err)
	}
	offCurve := bytes.Clone(keys[0].PublicKey().Bytes())
	offCurve[64] ^= 1
	var wg sync.WaitGroup
	for g := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				a, b := keys[(g+i)%len(keys)], keys[(g*3+i+1)%len(keys)]
				got, err := s.ECDH(context.Background(), a.Bytes(), b.PublicKey().Bytes())
				want, _ := a.ECDH(b.PublicKey())
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("shared secret %x, crypto/ecdh %x (%v)", got, want, err)
				}
				if got, err := s.ECDH(context.Background(), a.Bytes(), offCurve); err == nil || got != nil {
					t.Errorf("a point off the curve: %x, %v", got, err)
				}
			}
		}()
	}
	wg.Wait()
	require.Positive(t, s.Stats().DeviceOps)
	require.NoError(t, s.Close())
	_, err = s.ECDH(context.Background(), keys[0].Bytes(), keys[1].PublicKey().Bytes())
	require.ErrorIs(t, err, batch.ErrClosed)
}

// Verifications of both signature forms from many goroutines, batched
// together: each gets crypto/ecdsa's verdict for its own form.
func TestServerVerifyForms(t *testing.T) {
	s, err := ecdsa.NewServer(batch.Options{MaxBatch: 64, MaxDelay: time.Millisecond, CPUOffload: -1}, deviceEngine(t))
	require.NoError(t, err)
	defer s.Close()
	key, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := sha256.Sum256([]byte{byte(g)})
			r, sv, err := stdecdsa.Sign(rand.Reader, key, h[:])
			if err != nil {
				t.Error(err)
				return
			}
			der, _ := stdecdsa.SignASN1(rand.Reader, key, h[:])
			rs := append(r.FillBytes(make([]byte, 32)), sv.FillBytes(make([]byte, 32))...)
			for _, c := range []struct {
				name string
				do   func(sig []byte) (bool, error)
				sig  []byte
			}{
				{"DER", func(sig []byte) (bool, error) { return s.VerifyASN1(context.Background(), &key.PublicKey, h[:], sig) }, der},
				{"r ‖ s", func(sig []byte) (bool, error) { return s.VerifyP1363(context.Background(), &key.PublicKey, h[:], sig) }, rs},
			} {
				if ok, err := c.do(c.sig); err != nil || !ok {
					t.Errorf("%s: a valid signature: %v, %v", c.name, ok, err)
				}
				bad := bytes.Clone(c.sig)
				bad[len(bad)-1] ^= 1
				if ok, err := c.do(bad); err != nil || ok {
					t.Errorf("%s: a corrupted signature: %v, %v", c.name, ok, err)
				}
			}
			// each form refuses the other's encoding
			if ok, _ := s.VerifyP1363(context.Background(), &key.PublicKey, h[:], der); ok {
				t.Error("a DER signature accepted as r ‖ s")
			}
			if ok, _ := s.VerifyASN1(context.Background(), &key.PublicKey, h[:], rs); ok {
				t.Error("an r ‖ s signature accepted as DER")
			}
		}()
	}
	wg.Wait()
}

// The asynchronous forms and the new blocking ones: Server.Go signs (both
// forms, hedged and deterministic), verifies, agrees keys and computes
// public keys; Signer.Go and SignContext sign; SignP1363 and PublicKey
// block; on a device Server and a CPU one, every outcome is crypto/*'s.
func TestServerGo(t *testing.T) {
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			s, err := ecdsa.NewServer(batch.Options{MaxBatch: 32, MaxDelay: time.Millisecond, CPUOffload: -1}, e)
			require.NoError(t, err)
			key, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			require.NoError(t, err)
			pub := &key.PublicKey
			signer, err := s.Signer(key)
			require.NoError(t, err)
			ecdhKey, err := key.ECDH()
			require.NoError(t, err)
			peer, err := stdecdh.P256().GenerateKey(rand.Reader)
			require.NoError(t, err)
			wantSecret, err := ecdhKey.ECDH(peer.PublicKey())
			require.NoError(t, err)

			const n = 24
			done := make(chan *ecdsa.Call, 4*n)
			calls := make([]ecdsa.Call, 4*n)
			for i := range n {
				h := sha256.Sum256([]byte{byte(i)})
				form := ecdsa.Form(i % 2)
				calls[4*i] = ecdsa.Call{Key: key, Hash: h[:], Form: form, Deterministic: i%3 == 0, Done: done}
				calls[4*i+1] = ecdsa.Call{Hash: h[:], Form: form, Done: done} // Signer.Go: deterministic
				calls[4*i+2] = ecdsa.Call{Priv: ecdhKey.Bytes(), Peer: peer.PublicKey().Bytes(), Done: done}
				calls[4*i+3] = ecdsa.Call{Priv: ecdhKey.Bytes(), Done: done}
				require.NoError(t, s.Go(context.Background(), &calls[4*i]))
				require.NoError(t, signer.Go(context.Background(), &calls[4*i+1]))
				require.NoError(t, s.Go(context.Background(), &calls[4*i+2]))
				require.NoError(t, s.Go(context.Background(), &calls[4*i+3]))
			}
			for range 4 * n {
				c := <-done
				require.NoError(t, c.Err)
				switch {
				case c.Hash != nil:
					require.True(t, verify(pub, c.Hash, c.Result, c.Form), "a signature of Go that crypto/ecdsa refuses")
				case c.Peer != nil:
					require.Equal(t, wantSecret, c.Result)
				default:
					require.Equal(t, ecdhKey.PublicKey().Bytes(), c.Result)
				}
			}
			// deterministic ones are RFC 6979's: Signer.Sign with a nil reader agrees
			h := sha256.Sum256([]byte("fixed"))
			c := ecdsa.Call{Hash: h[:], Done: done}
			require.NoError(t, signer.Go(context.Background(), &c))
			<-done
			want, err := signer.SignContext(context.Background(), nil, h[:], crypto.SHA256)
			require.NoError(t, err)
			require.Equal(t, want, c.Result)

			// verifications of Go, one corrupted in two
			for i := range 2 * n {
				c := &calls[2*(i/2)+i%2]
				sig := append([]byte(nil), c.Result...)
				if i%2 == 1 {
					sig[len(sig)-1] ^= 1
				}
				*c = ecdsa.Call{Pub: pub, Hash: c.Hash, Signature: sig, Form: c.Form, Done: done}
				require.NoError(t, s.Go(context.Background(), c))
			}
			for range 2 * n {
				c := <-done
				require.NoError(t, c.Err)
				require.Equal(t, verify(pub, c.Hash, c.Signature, c.Form), c.Valid)
			}

			p1363, err := s.SignP1363(context.Background(), nil, key, h[:])
			require.NoError(t, err)
			require.Len(t, p1363, ecdsa.P1363Size)
			require.True(t, verify(pub, h[:], p1363, ecdsa.P1363))
			got, err := s.PublicKey(context.Background(), ecdhKey.Bytes())
			require.NoError(t, err)
			require.Equal(t, ecdhKey.PublicKey().Bytes(), got)

			require.ErrorContains(t, s.Go(context.Background(), &ecdsa.Call{Done: done}), "exactly one")
			require.ErrorContains(t, s.Go(context.Background(), &ecdsa.Call{Key: key, Pub: pub, Done: done}), "exactly one")
			require.ErrorContains(t, s.Go(context.Background(), &ecdsa.Call{Key: key}), "buffered Done")
			require.NoError(t, s.Close())
			require.ErrorIs(t, s.Go(context.Background(), &ecdsa.Call{Key: key, Hash: h[:], Done: done}), batch.ErrClosed)
		})
	}
}

// verify is crypto/ecdsa's verdict on sig in form.
func verify(pub *stdecdsa.PublicKey, hash, sig []byte, form ecdsa.Form) bool {
	if form == ecdsa.ASN1 {
		return stdecdsa.VerifyASN1(pub, hash, sig)
	}
	if len(sig) != ecdsa.P1363Size {
		return false
	}
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	return stdecdsa.Verify(pub, hash, r, s)
}
