package lonecaller

// The lone caller of each Server but mlkem's (mlkem/lonecaller_test.go),
// and benchmarks of ed25519's Server, Engine and crypto/ed25519 for one
// caller.

import (
	"context"
	"crypto"
	stdaes "crypto/aes"
	"crypto/cipher"
	stdecdh "crypto/ecdh"
	stdecdsa "crypto/ecdsa"
	stded25519 "crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/ecdsa"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/rsa"
)

func TestLoneCallerOnCPUEngines(t *testing.T) {
	ctx := context.Background()
	opts := batch.Options{}
	d := sha256.Sum256([]byte("lone"))

	edServer, err := ed25519.NewServer(opts, ed25519.CPUEngine())
	require.NoError(t, err)
	defer edServer.Close()
	_, edKey, _ := stded25519.GenerateKey(rand.Reader)
	Compare(t, "Ed25519 sign", 50, func() { _, _ = edServer.Sign(ctx, edKey, d[:], nil) }, func() { stded25519.Sign(edKey, d[:]) })

	ecServer, err := ecdsa.NewServer(opts, ecdsa.CPUEngine())
	require.NoError(t, err)
	defer ecServer.Close()
	ecKey, _ := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Compare(t, "ECDSA P-256 sign", 50, func() { _, _ = ecServer.SignASN1(ctx, nil, ecKey, d[:]) }, func() { _, _ = stdecdsa.SignASN1(rand.Reader, ecKey, d[:]) })
	sig, _ := stdecdsa.SignASN1(rand.Reader, ecKey, d[:])
	Compare(t, "ECDSA P-256 verify", 50, func() { _, _ = ecServer.VerifyASN1(ctx, &ecKey.PublicKey, d[:], sig) }, func() { stdecdsa.VerifyASN1(&ecKey.PublicKey, d[:], sig) })

	xServer, err := ecdh.NewServer(opts, ecdh.CPUEngine())
	require.NoError(t, err)
	defer xServer.Close()
	a, _ := stdecdh.X25519().GenerateKey(rand.Reader)
	b, _ := stdecdh.X25519().GenerateKey(rand.Reader)
	Compare(t, "X25519", 50, func() { _, _ = xServer.SharedSecret(ctx, ecdh.X25519(), a.Bytes(), b.PublicKey().Bytes()) }, func() { _, _ = a.ECDH(b.PublicKey()) })

	aesServer, err := aes.NewServer(opts, aes.CPUEngine())
	require.NoError(t, err)
	defer aesServer.Close()
	aesKey, err := aes.NewKey(d[:16])
	require.NoError(t, err)
	defer aesKey.Close()
	block, _ := stdaes.NewCipher(d[:16])
	gcm, _ := cipher.NewGCM(block)
	nonce, record := make([]byte, 12), make([]byte, 1500)
	out := make([]byte, 0, len(record)+16)
	Compare(t, "AES-128-GCM seal, 1,500 bytes", 200, func() { _, _ = aesServer.Seal(ctx, aesKey, out, nonce, record, nil) }, func() { gcm.Seal(out[:0], nonce, record, nil) })

	rsaServer, err := rsa.NewServer(opts, rsa.CPUEngine())
	require.NoError(t, err)
	defer rsaServer.Close()
	rsaKey, err := stdrsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	signer, err := rsaServer.Signer(rsaKey)
	require.NoError(t, err)
	Compare(t, "RSA-2048 sign", 10, func() { _, _ = signer.Sign(nil, d[:], crypto.SHA256) }, func() { _, _ = stdrsa.SignPKCS1v15(nil, rsaKey, crypto.SHA256, d[:]) })
}

func BenchmarkEd25519Server(b *testing.B) {
	s, _ := ed25519.NewServer(batch.Options{}, ed25519.CPUEngine())
	defer s.Close()
	_, key, _ := stded25519.GenerateKey(rand.Reader)
	for b.Loop() {
		_, _ = s.Sign(context.Background(), key, []byte("m"), nil)
	}
}

func BenchmarkEd25519Engine(b *testing.B) {
	e := ed25519.CPUEngine()
	_, key, _ := stded25519.GenerateKey(rand.Reader)
	for b.Loop() {
		_, _ = e.Sign([]stded25519.PrivateKey{key}, [][]byte{[]byte("m")}, nil)
	}
}

func BenchmarkEd25519Go(b *testing.B) {
	_, key, _ := stded25519.GenerateKey(rand.Reader)
	for b.Loop() {
		stded25519.Sign(key, []byte("m"))
	}
}
