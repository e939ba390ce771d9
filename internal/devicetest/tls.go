package devicetest

import (
	"crypto"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"testing"
	"time"
)

// ServeTLS checks that signer serves as a TLS server's key: crypto/x509
// makes a self-signed certificate with it for the name "test" and accepts
// its signature, then a crypto/tls server with that certificate completes
// a TLS 1.2 and a TLS 1.3 handshake over loopback with a client that
// trusts it, and sends two bytes the client reads.
func ServeTLS(t *testing.T, signer crypto.Signer) {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"}, DNSNames: []string{"test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, signer.Public(), signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature); err != nil {
		t.Fatalf("the certificate's signature: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)

	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: signer}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if err := c.(*tls.Conn).Handshake(); err == nil { // else the client fails
					_, _ = c.Write([]byte("ok"))
				}
			}()
		}
	}()
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "test", MinVersion: v, MaxVersion: v})
		if err != nil {
			t.Fatalf("TLS version %x: %v", v, err)
		}
		buf := make([]byte, 2)
		_, err = io.ReadFull(c, buf)
		c.Close()
		if err != nil {
			t.Fatalf("TLS version %x: %v", v, err)
		}
		if string(buf) != "ok" {
			t.Fatalf("TLS version %x: read %q, want \"ok\"", v, buf)
		}
	}
}
