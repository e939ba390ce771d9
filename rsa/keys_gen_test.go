package rsa_test

import (
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// testKeyFiles are the keys in testdata/, by name: generated once by
// TestGenerateTestKeys (key generation is too slow to repeat in tests).
// 2049 bits is a size where PSS's encoded message is one byte shorter than
// the modulus.
var testKeyFiles = []struct {
	name string
	bits int
}{
	{"rsa1024a", 1024}, {"rsa1024b", 1024},
	{"rsa2048a", 2048}, {"rsa2048b", 2048},
	{"rsa2049", 2049},
	{"rsa3072", 3072},
	{"rsa4096", 4096},
}

// TestGenerateTestKeys writes testdata/<name>.pem (PKCS #1) for every entry
// of testKeyFiles. It runs only with GPUCRYPTO_RSA_GENKEYS=1:
//
//	GPUCRYPTO_RSA_GENKEYS=1 go test -run TestGenerateTestKeys ./rsa
func TestGenerateTestKeys(t *testing.T) {
	if os.Getenv("GPUCRYPTO_RSA_GENKEYS") != "1" {
		t.Skip("set GPUCRYPTO_RSA_GENKEYS=1 to regenerate testdata/*.pem")
	}
	for _, f := range testKeyFiles {
		k, err := stdrsa.GenerateKey(rand.Reader, f.bits)
		require.NoError(t, err)
		require.Equal(t, f.bits, k.N.BitLen())
		block := &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}
		path := filepath.Join("testdata", f.name+".pem")
		require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(block), 0o644))
		t.Logf("wrote %s", path)
	}
}
