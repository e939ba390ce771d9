package rsa_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// testServer starts a Server over e and closes it with the test.
func testServer(t *testing.T, e ...*rsa.Engine) *rsa.Server {
	s, err := rsa.NewServer(batch.Options{MaxBatch: 16, MaxDelay: time.Millisecond, CPUOffload: -1}, e...) // every request to the engines: TestServerOffload tests the CPU path
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// A Signer signs and decrypts exactly as the *rsa.PrivateKey does.
func TestSignerMatchesPrivateKey(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		s := testServer(t, e)
		for _, name := range []string{"rsa1024a", "rsa2049", "rsa4096"} {
			k := key(t, name)
			pub := &k.PublicKey
			sg, err := s.Signer(k)
			require.NoError(t, err)
			require.Same(t, pub, sg.Public())
			var _ crypto.Signer = sg
			var _ crypto.Decrypter = sg

			d := randBytes(t, 32)
			sig, err := sg.Sign(nil, d, crypto.SHA256)
			require.NoError(t, err)
			want, err := k.Sign(nil, d, crypto.SHA256)
			require.NoError(t, err)
			require.Equal(t, want, sig)
			for _, opts := range []*stdrsa.PSSOptions{
				{Hash: crypto.SHA256, SaltLength: stdrsa.PSSSaltLengthEqualsHash},
				{Hash: crypto.SHA256, SaltLength: stdrsa.PSSSaltLengthAuto},
				{Hash: crypto.SHA256, SaltLength: 17},
			} {
				sig, err := sg.Sign(rand.Reader, d, opts)
				require.NoError(t, err)
				require.NoError(t, stdrsa.VerifyPSS(pub, crypto.SHA256, d, sig, opts))
			}
			_, err = sg.Sign(nil, d[:20], crypto.SHA256)
			require.ErrorContains(t, err, "input must be hashed")
			_, err = sg.Sign(nil, d, nil)
			require.ErrorContains(t, err, "needs options")
			_, err = sg.Sign(nil, d, (*stdrsa.PSSOptions)(nil))
			require.Error(t, err)

			msg := []byte("a secret")
			ct, err := stdrsa.EncryptPKCS1v15(rand.Reader, pub, msg)
			require.NoError(t, err)
			for _, opts := range []crypto.DecrypterOpts{nil, &stdrsa.PKCS1v15DecryptOptions{}, (*stdrsa.PKCS1v15DecryptOptions)(nil)} {
				pt, err := sg.Decrypt(nil, ct, opts)
				require.NoError(t, err)
				require.Equal(t, msg, pt)
			}
			_, err = sg.Decrypt(nil, ct[1:], nil)
			require.ErrorIs(t, err, rsa.ErrDecryption)

			// Session keys: the message when it fits, else random bytes of
			// the requested length, and no error either way.
			pt, err := sg.Decrypt(rand.Reader, ct, &stdrsa.PKCS1v15DecryptOptions{SessionKeyLen: len(msg)})
			require.NoError(t, err)
			require.Equal(t, msg, pt)
			pt, err = sg.Decrypt(rand.Reader, ct, &stdrsa.PKCS1v15DecryptOptions{SessionKeyLen: 16})
			require.NoError(t, err)
			require.Len(t, pt, 16)
			require.NotEqual(t, msg, pt[:len(msg)])

			label := []byte("oaep label")
			ct = oaepEncryptMGF(t, pub, crypto.SHA256, crypto.SHA1, msg, label)
			mgfOpts := &stdrsa.OAEPOptions{Hash: crypto.SHA256, MGFHash: crypto.SHA1, Label: label}
			pt, err = k.Decrypt(nil, ct, mgfOpts) // the test's encoder agrees with crypto/rsa
			require.NoError(t, err)
			require.Equal(t, msg, pt)
			pt, err = sg.Decrypt(nil, ct, mgfOpts)
			require.NoError(t, err)
			require.Equal(t, msg, pt)
			_, err = sg.Decrypt(nil, ct, &stdrsa.OAEPOptions{Hash: crypto.SHA256, Label: label})
			require.Equal(t, rsa.ErrDecryption, err)
			ct, err = stdrsa.EncryptOAEP(sha1.New(), rand.Reader, pub, msg, nil)
			require.NoError(t, err)
			pt, err = sg.Decrypt(nil, ct, &stdrsa.OAEPOptions{Hash: crypto.SHA1})
			require.NoError(t, err)
			require.Equal(t, msg, pt)
			_, err = sg.Decrypt(nil, ct, struct{}{})
			require.ErrorContains(t, err, "invalid options for Decrypt")
		}
		_, err := s.Signer(nil)
		require.ErrorIs(t, err, rsa.ErrInvalidKey)
	})
}

// selfSigned makes a certificate for 127.0.0.1 signed by signer itself.
func selfSigned(t *testing.T, signer crypto.Signer) []byte {
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "gpucrypto rsa test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, signer.Public(), signer)
	require.NoError(t, err)
	return der
}

// Real TLS handshakes over loopback with the Signer as the server's key:
// TLS 1.3 (RSA-PSS), TLS 1.2 ECDHE-RSA with PKCS #1 v1.5 and with PSS
// signatures, and TLS 1.2 RSA key exchange (the Signer decrypts the
// premaster secret). A few clients at once share the server's batches.
func TestSignerTLS(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		s := testServer(t, e)
		sg, err := s.Signer(key(t, "rsa2048a"))
		require.NoError(t, err)
		der := selfSigned(t, sg)
		leaf, err := x509.ParseCertificate(der)
		require.NoError(t, err)
		require.NoError(t, leaf.CheckSignatureFrom(leaf))
		roots := x509.NewCertPool()
		roots.AddCert(leaf)

		for _, c := range []struct {
			name    string
			version uint16
			suite   uint16
			algs    []tls.SignatureScheme
		}{
			{"TLS1.3-PSS", tls.VersionTLS13, 0, nil},
			{"TLS1.2-ECDHE-PKCS1v15", tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, []tls.SignatureScheme{tls.PKCS1WithSHA256}},
			{"TLS1.2-ECDHE-PSS", tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, []tls.SignatureScheme{tls.PSSWithSHA384}},
			{"TLS1.2-RSA-kex", tls.VersionTLS12, tls.TLS_RSA_WITH_AES_128_GCM_SHA256, nil},
		} {
			t.Run(c.name, func(t *testing.T) {
				cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: sg, SupportedSignatureAlgorithms: c.algs}
				srvCfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: c.version, MaxVersion: c.version}
				cliCfg := &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", MinVersion: c.version, MaxVersion: c.version}
				if c.suite != 0 {
					srvCfg.CipherSuites = []uint16{c.suite}
					cliCfg.CipherSuites = []uint16{c.suite}
				}
				ln, err := tls.Listen("tcp", "127.0.0.1:0", srvCfg)
				require.NoError(t, err)
				defer ln.Close()
				const clients = 4
				go func() {
					for range clients {
						conn, err := ln.Accept()
						if err != nil {
							return
						}
						go func() { // echo one line
							defer conn.Close()
							buf := make([]byte, 64)
							n, err := conn.Read(buf)
							if err == nil {
								conn.Write(bytes.ToUpper(buf[:n]))
							}
						}()
					}
				}()
				errs := make(chan error, clients)
				for range clients {
					go func() {
						errs <- func() error {
							conn, err := tls.Dial("tcp", ln.Addr().String(), cliCfg)
							if err != nil {
								return err
							}
							defer conn.Close()
							st := conn.ConnectionState()
							if st.Version != c.version || (c.suite != 0 && st.CipherSuite != c.suite) {
								return io.ErrUnexpectedEOF
							}
							if _, err := conn.Write([]byte("hello")); err != nil {
								return err
							}
							buf := make([]byte, 5)
							if _, err := io.ReadFull(conn, buf); err != nil {
								return err
							}
							if string(buf) != "HELLO" {
								return io.ErrUnexpectedEOF
							}
							return nil
						}()
					}()
				}
				for range clients {
					require.NoError(t, <-errs)
				}
			})
		}
	})
}

// A Signer's context bounds its wait for a stuck engine.
func TestSignerContext(t *testing.T) {
	gate := make(chan struct{})
	var calls atomic.Int64
	s := testServer(t, rsa.NewGatedEngine(gate, &calls))
	sg, err := s.Signer(key(t, "rsa1024a"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	d := sha256.Sum256([]byte("m"))
	_, err = sg.SignContext(ctx, nil, d[:], crypto.SHA256)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	ct, _ := stdrsa.EncryptPKCS1v15(rand.Reader, &key(t, "rsa1024a").PublicKey, []byte("x"))
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	_, err = sg.DecryptContext(ctx2, nil, ct, nil)
	require.ErrorIs(t, err, context.Canceled)
	close(gate)
	pt, err := sg.DecryptContext(context.Background(), nil, ct, nil)
	require.NoError(t, err)
	require.Equal(t, []byte("x"), pt)
}

// oaepEncryptMGF encrypts msg with RSAES-OAEP using hash for the label and
// a different mgf for MGF1 (crypto/rsa's encryption with options needs Go
// 1.26; this module supports Go 1.24).
func oaepEncryptMGF(t *testing.T, pub *stdrsa.PublicKey, hash, mgf crypto.Hash, msg, label []byte) []byte {
	t.Helper()
	k, hLen := pub.Size(), hash.Size()
	mask := func(dst, seed []byte) {
		var out []byte
		for c := uint32(0); len(out) < len(dst); c++ {
			h := mgf.New()
			h.Write(seed)
			h.Write([]byte{byte(c >> 24), byte(c >> 16), byte(c >> 8), byte(c)})
			out = h.Sum(out)
		}
		for i := range dst {
			dst[i] ^= out[i]
		}
	}
	h := hash.New()
	h.Write(label)
	db := append(h.Sum(nil), make([]byte, k-len(msg)-2*hLen-2)...)
	db = append(append(db, 1), msg...)
	seed := randBytes(t, hLen)
	mask(db, seed)
	mask(seed, db)
	return rawEncrypt(pub, append(append([]byte{0}, seed...), db...))
}

// Signer.Go signs as Sign does, each outcome on the Call's Done; what it
// refuses never arrives there.
func TestSignerGo(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		s := testServer(t, e)
		k := key(t, "rsa2048a")
		sg, err := s.Signer(k)
		require.NoError(t, err)
		done := make(chan *rsa.Call, 40)
		want := map[*rsa.Call][]byte{}
		for range 40 {
			d := randBytes(t, 32)
			w, err := k.Sign(nil, d, crypto.SHA256)
			require.NoError(t, err)
			call := &rsa.Call{Digest: d, Opts: crypto.SHA256, Done: done}
			want[call] = w
			require.NoError(t, sg.Go(context.Background(), call))
		}
		for range 40 {
			call := <-done
			require.NoError(t, call.Err)
			require.Equal(t, want[call], call.Result)
			delete(want, call)
		}
		pss := &stdrsa.PSSOptions{Hash: crypto.SHA256, SaltLength: stdrsa.PSSSaltLengthEqualsHash}
		d := randBytes(t, 32)
		require.NoError(t, sg.Go(context.Background(), &rsa.Call{Digest: d, Opts: pss, Done: done}))
		call := <-done
		require.NoError(t, call.Err)
		require.NoError(t, stdrsa.VerifyPSS(&k.PublicKey, crypto.SHA256, d, call.Result, pss))

		require.Error(t, sg.Go(context.Background(), &rsa.Call{Digest: d, Opts: crypto.SHA256}), "no Done")
		require.Error(t, sg.Go(context.Background(), &rsa.Call{Digest: d, Opts: crypto.SHA256, Done: make(chan *rsa.Call)}), "unbuffered Done")
		require.ErrorContains(t, sg.Go(context.Background(), &rsa.Call{Digest: d[:20], Opts: crypto.SHA256, Done: done}), "input must be hashed")
		require.Error(t, sg.Go(nil, &rsa.Call{Digest: d, Opts: crypto.SHA256, Done: done})) //nolint:staticcheck // a nil context is an error
		require.NoError(t, s.Close())
		require.ErrorIs(t, sg.Go(context.Background(), &rsa.Call{Digest: d, Opts: crypto.SHA256, Done: done}), batch.ErrClosed)
		require.Empty(t, done)
	})
}

// GoDecrypt decrypts as Decrypt does, in every padding: PKCS #1 v1.5,
// its session-key variant (a wrong ciphertext gives the random key, no
// error), OAEP; many in flight; its own errors mean nothing arrives.
func TestSignerGoDecrypt(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		s := testServer(t, e)
		k := key(t, "rsa2048a")
		sg, err := s.Signer(k)
		require.NoError(t, err)
		msg := []byte("a session key!!!")
		v15, err := stdrsa.EncryptPKCS1v15(rand.Reader, &k.PublicKey, msg)
		require.NoError(t, err)
		oaep, err := stdrsa.EncryptOAEP(sha256.New(), rand.Reader, &k.PublicKey, msg, []byte("label"))
		require.NoError(t, err)
		garbage := bytes.Clone(v15)
		garbage[len(garbage)-1] ^= 1
		cases := []struct {
			ct   []byte
			opts crypto.DecrypterOpts
			want []byte // nil: any 16 bytes (the session key's random one)
			err  bool
		}{
			{v15, nil, msg, false},
			{v15, &stdrsa.PKCS1v15DecryptOptions{SessionKeyLen: 16}, msg, false},
			{garbage, &stdrsa.PKCS1v15DecryptOptions{SessionKeyLen: 16}, nil, false},
			{oaep, &stdrsa.OAEPOptions{Hash: crypto.SHA256, Label: []byte("label")}, msg, false},
			{oaep, &stdrsa.OAEPOptions{Hash: crypto.SHA256, Label: []byte("other")}, nil, true},
		}
		done := make(chan *rsa.DecryptCall, 4*len(cases))
		calls := make([]rsa.DecryptCall, 4*len(cases))
		for i := range calls {
			c := cases[i%len(cases)]
			calls[i] = rsa.DecryptCall{Ciphertext: c.ct, Opts: c.opts, Done: done}
			require.NoError(t, sg.GoDecrypt(context.Background(), &calls[i]))
		}
		for range calls {
			got := <-done
			c := cases[indexOfCall(calls, got)%len(cases)]
			if c.err {
				require.ErrorIs(t, got.Err, rsa.ErrDecryption)
				continue
			}
			require.NoError(t, got.Err)
			if c.want != nil {
				require.Equal(t, c.want, got.Result)
			} else {
				require.Len(t, got.Result, 16)
				require.NotEqual(t, msg, got.Result)
			}
		}
		require.Error(t, sg.GoDecrypt(context.Background(), &rsa.DecryptCall{Ciphertext: v15}), "no Done")
		require.Error(t, sg.GoDecrypt(context.Background(), &rsa.DecryptCall{Ciphertext: v15[1:], Done: done}), "short ciphertext")
		require.Error(t, sg.GoDecrypt(context.Background(), &rsa.DecryptCall{Ciphertext: v15, Opts: struct{}{}, Done: done}), "bad options")
		require.Empty(t, done)
	})
}

func indexOfCall(calls []rsa.DecryptCall, c *rsa.DecryptCall) int {
	for i := range calls {
		if &calls[i] == c {
			return i
		}
	}
	return -1
}
