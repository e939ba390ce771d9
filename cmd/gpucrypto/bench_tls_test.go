package main

import (
	"crypto"
	stdrsa "crypto/rsa"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// The handshake loop of `bench tls` with the CPU key only (no device):
// both versions complete handshakes, the probe sees one RSA-PSS signature.
func TestTLSHandshakeLoopCPU(t *testing.T) {
	key, cert := testCertificate(t)
	curves, err := parseCurves("x25519mlkem768,x25519")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"1.3", "1.2"} {
		sig, suite, err := tlsProbe(v, cert, key, curves)
		if err != nil {
			t.Fatalf("TLS %s probe: %v", v, err)
		}
		if sig != "rsa_pss_rsae_sha256" {
			t.Errorf("TLS %s: signature %s, want rsa_pss_rsae_sha256", v, sig)
		}
		if v == "1.2" && suite != "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" {
			t.Errorf("TLS 1.2: cipher suite %s", suite)
		}
		srv, cli := tlsConfigs(v, cert, key, curves)
		load, err := runHandshakes(srv, cli, 4, 0, 300*time.Millisecond, nil)
		if err != nil {
			t.Fatalf("TLS %s: %v", v, err)
		}
		if load.completed == 0 {
			t.Fatalf("TLS %s: no handshake completed", v)
		}
		t.Logf("TLS %s: %d handshakes in %v, p50 %.2f ms, CPU %v", v, load.completed, load.window, load.percentileMs(0.5), load.cpu)
	}
}

type failingSigner struct{ crypto.Signer }

func (failingSigner) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("no signature today")
}

// A handshake that fails stops the loop with its error, at once.
func TestTLSHandshakeLoopError(t *testing.T) {
	key, cert := testCertificate(t)
	curves, _ := parseCurves("x25519")
	srv, cli := tlsConfigs("1.3", cert, failingSigner{key}, curves)
	t0 := time.Now()
	_, err := runHandshakes(srv, cli, 4, 0, 10*time.Second, nil)
	if err == nil || !strings.Contains(err.Error(), "no signature today") {
		t.Fatalf("err = %v, want the signer's error", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the loop took %v to stop", d)
	}
}

// testCertificate is a 1024-bit key and its self-signed certificate.
func testCertificate(t *testing.T) (*stdrsa.PrivateKey, *benchCert) {
	t.Helper()
	key, err := benchKey(1024)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := benchCertificate(key)
	if err != nil {
		t.Fatal(err)
	}
	return key, cert
}
