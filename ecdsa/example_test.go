package ecdsa_test

import (
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log"
	"math/big"
	"net"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdsa"
)

// Signing and verifying a batch of P-256 signatures: on a GPU when there
// is one, else on the CPU with crypto/ecdsa; crypto/ecdsa verifies them.
func ExampleEngine() {
	e, _ := ecdsa.Auto() // the Choice says which engine and why
	defer e.Close()
	key, _ := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	h1, h2 := sha256.Sum256([]byte("first")), sha256.Sum256([]byte("second"))
	hashes := [][]byte{h1[:], h2[:]}
	sigs, err := e.SignASN1(nil, []*stdecdsa.PrivateKey{key, key}, hashes) // nil: nonces hedged from crypto/rand
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(stdecdsa.VerifyASN1(&key.PublicKey, h1[:], sigs[0]), stdecdsa.VerifyASN1(&key.PublicKey, h2[:], sigs[1]))
	sigs[1][10] ^= 1 // corrupt the second
	ok, err := e.VerifyASN1([]*stdecdsa.PublicKey{&key.PublicKey, &key.PublicKey}, hashes, sigs)
	fmt.Println(ok, err)
	// Output:
	// true true
	// [true false] <nil>
}

// A Server's Signer as a TLS server's ECDSA P-256 key: handshakes sign on
// the GPU when there is one (batched with other connections'), or at once
// on the CPU.
func ExampleServer_tls() {
	e, _ := ecdsa.Auto()
	defer e.Close()
	s, err := ecdsa.NewServer(batch.Options{}, e)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	key, _ := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	signer, err := s.Signer(key)
	if err != nil {
		log.Fatal(err)
	}

	// A self-signed certificate, signed through the Signer too.
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		DNSNames:     []string{"example.test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, signer.Public(), signer)
	if err != nil {
		log.Fatal(err)
	}
	server := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: signer}}}

	// A client that trusts it, over an in-memory connection.
	leaf, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	c1, c2 := net.Pipe()
	go func() {
		srv := tls.Server(c1, server)
		srv.Handshake()
		srv.Close()
	}()
	conn := tls.Client(c2, &tls.Config{RootCAs: roots, ServerName: "example.test"})
	if err := conn.Handshake(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("handshake done:", tls.VersionName(conn.ConnectionState().Version))
	// Output: handshake done: TLS 1.3
}
