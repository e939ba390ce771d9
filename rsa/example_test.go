package rsa_test

import (
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"log"
	"math/big"
	"net"
	"os"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// loadKey reads a PKCS #1 PEM private key.
func loadKey(path string) *stdrsa.PrivateKey {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	block, _ := pem.Decode(data)
	k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		log.Fatal(err)
	}
	return k
}

// An Engine signs a whole batch at once; elements may use different keys.
// Auto falls back to the CPU when there is no device, so this example runs
// anywhere.
func ExampleEngine_SignPKCS1v15() {
	e, choice := rsa.Auto() // on the default device, or on the CPU (choice says why)
	defer e.Close()
	log.Print(choice)
	k2048, k4096 := loadKey("testdata/rsa2048a.pem"), loadKey("testdata/rsa4096.pem")
	keys := []*stdrsa.PrivateKey{k2048, k4096, k2048}
	digests := make([][]byte, len(keys))
	for i := range digests {
		d := sha256.Sum256(fmt.Appendf(nil, "message %d", i))
		digests[i] = d[:]
	}
	sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
	if err != nil {
		log.Fatal(err) // a *batch.Error says which elements failed
	}
	for i, sig := range sigs {
		err := stdrsa.VerifyPKCS1v15(&keys[i].PublicKey, crypto.SHA256, digests[i], sig)
		fmt.Printf("%d bytes, verified: %v\n", len(sig), err == nil)
	}
	// Output:
	// 256 bytes, verified: true
	// 512 bytes, verified: true
	// 256 bytes, verified: true
}

// A Server batches the private-key operations of many goroutines; its
// Signers stand in for the *rsa.PrivateKey, here as a TLS server's key.
func ExampleSigner() {
	e, _ := rsa.Auto()
	defer e.Close()
	// Build the kernels of the key sizes served before the first handshake
	// (a CPU engine has none). Batches that the CPU cores compute faster
	// than the device go to them (Engine.SetRoute).
	if err := e.Warm(2048); err != nil {
		log.Fatal(err)
	}
	s, err := rsa.NewServer(batch.Options{MaxBatch: 4096, MaxDelay: time.Millisecond}, e)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	signer, err := s.Signer(loadKey("testdata/rsa2048a.pem"))
	if err != nil {
		log.Fatal(err)
	}

	// A self-signed certificate, signed through the Signer too.
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "example"},
		DNSNames:     []string{"example.test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, signer.Public(), signer)
	if err != nil {
		log.Fatal(err)
	}
	server := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: signer}}}

	// A client that trusts the certificate, over an in-memory connection.
	leaf, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	client := &tls.Config{RootCAs: roots, ServerName: "example.test"}
	c1, c2 := net.Pipe()
	go func() {
		srv := tls.Server(c1, server)
		srv.Handshake()
		srv.Close()
	}()
	conn := tls.Client(c2, client)
	if err := conn.Handshake(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("handshake done:", tls.VersionName(conn.ConnectionState().Version))
	// Output: handshake done: TLS 1.3
}

// When the device fails during a batch, the Engine recomputes the batch on
// the CPU and says so through OnFallback (and SetLogger's logger; nothing
// is logged by default): results are never wrong or missing. Blinding
// hides the inputs from timing wherever the CPU computes.
func ExampleEngine_OnFallback() {
	e, _ := rsa.Auto()
	defer e.Close()
	e.OnFallback(func(err error) {
		log.Printf("device fault, batch recomputed on the CPU: %v", err) // or a metric
	})
	e.SetBlinding(true)

	k := loadKey("testdata/rsa2048a.pem")
	ct, _ := stdrsa.EncryptOAEP(sha256.New(), rand.Reader, &k.PublicKey, []byte("hello"), nil)
	pts, err := e.DecryptOAEP(crypto.SHA256, []*stdrsa.PrivateKey{k, k}, [][]byte{ct, ct[1:]}, nil)
	fmt.Printf("%s\n%v\n", pts[0], err)
	// Output:
	// hello
	// 1 of 2 batch elements failed; element 1: crypto/rsa: decryption error: rsa: input length is not the modulus size (255 bytes, want 256)
}
