package ed25519_test

import (
	stded25519 "crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log"
	"math/big"
	"net"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ed25519"
)

// Signing and verifying a batch: on a GPU when there is one, else on the
// CPU with crypto/ed25519; the results are the same either way.
func Example() {
	e, _ := ed25519.Auto() // the Choice says which engine and why
	defer e.Close()
	seeds := [][]byte{make([]byte, 32), make([]byte, 32)}
	seeds[1][0] = 1
	keys, err := e.NewKeysFromSeeds(seeds)
	if err != nil {
		panic(err)
	}
	msgs := [][]byte{[]byte("first"), []byte("second")}
	sigs, err := e.Sign(keys, msgs, nil)
	if err != nil {
		panic(err)
	}
	pubs := []stded25519.PublicKey{keys[0].Public().(stded25519.PublicKey), keys[1].Public().(stded25519.PublicKey)}
	sigs[1][0] ^= 1 // corrupt the second
	ok, err := e.Verify(pubs, msgs, sigs, nil)
	fmt.Println(ok, err, stded25519.Verify(pubs[0], msgs[0], sigs[0]))
	// Output: [true false] <nil> true
}

// A Server's Signer as a TLS server's Ed25519 key: handshakes sign on the
// GPU when there is one (batched with other connections' handshakes), or
// at once on the CPU.
func ExampleServer_tls() {
	e, _ := ed25519.Auto()
	defer e.Close()
	s, err := ed25519.NewServer(batch.Options{}, e)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	_, key, _ := stded25519.GenerateKey(rand.Reader)
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
