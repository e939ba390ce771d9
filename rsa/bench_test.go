package rsa_test

import (
	"crypto"
	stdrsa "crypto/rsa"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/gpucrypto/gpucrypto/rsa"
)

func BenchmarkSign2048(b *testing.B) { benchSign(b, "rsa2048a") }
func BenchmarkSign3072(b *testing.B) { benchSign(b, "rsa3072") }
func BenchmarkSign4096(b *testing.B) { benchSign(b, "rsa4096") }

// benchSign measures PKCS #1 v1.5 SHA-256 signatures with one key: on each
// engine per batch size (ns/op is per batch; see the ops/s metric), and
// crypto/rsa's SignPKCS1v15 on all cores for comparison.
func benchSign(b *testing.B, name string) {
	k := key(b, name)
	d := make([]byte, 32)
	sizes := map[string][]int{"cpu": {1, 16, 256}, "device": {1024, 16384, 65536}}
	if s := os.Getenv("GPUCRYPTO_BENCH_RSA_BATCH"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		sizes["device"] = []int{n}
	}
	for _, c := range testEngines(b) {
		for _, n := range sizes[c.name] {
			b.Run(fmt.Sprintf("%s/batch=%d", c.name, n), func(b *testing.B) {
				rsa.SignLoop(b, c.get(b), repeat(k, n), repeat(d, n))
			})
		}
	}
	b.Run("crypto-rsa/all-cores", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	})
}
