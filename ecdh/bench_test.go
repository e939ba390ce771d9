package ecdh_test

import (
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

func benchKeys(c ecdh.Curve, n int) (privs, peers [][]byte) {
	privs, peers = make([][]byte, n), make([][]byte, n)
	for i := range n {
		privs[i], peers[i] = make([]byte, c.Size()), make([]byte, c.Size())
		rand.Read(privs[i])
		rand.Read(peers[i])
	}
	return
}

// benchBinvK is the batch-inversion group size of the *-binv benchmarks.
const benchBinvK = 16

// BenchmarkEngine reports device ops/s per curve, operation and batch size
// (ns/op is per batch; see the ops/s metric). The -binv operations share
// the final inversion across groups of benchBinvK elements
// (Engine.SetBatchInversion).
func BenchmarkEngine(b *testing.B) {
	e, eb := engine(b), binvEngine(b, benchBinvK)
	for _, c := range ecdh.Curves() {
		for _, n := range []int{1024, 16384, 131072} {
			privs, peers := benchKeys(c, n)
			for _, op := range []string{"shared", "shared-binv", "keygen", "keygen-binv"} {
				b.Run(fmt.Sprintf("%s/%s/%d", c, op, n), func(b *testing.B) {
					for b.Loop() {
						var err error
						switch op {
						case "shared":
							_, err = e.SharedSecrets(c, privs, peers)
						case "shared-binv":
							_, err = eb.SharedSecrets(c, privs, peers)
						case "keygen":
							_, err = e.PublicKeys(c, privs)
						case "keygen-binv":
							_, err = eb.PublicKeys(c, privs)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "ops/s")
				})
			}
		}
	}
}

// BenchmarkCPU is the same on all CPU cores (crypto/ecdh, circl).
func BenchmarkCPU(b *testing.B) {
	for _, c := range ecdh.Curves() {
		privs, peers := benchKeys(c, 4096)
		b.Run(c.String(), func(b *testing.B) {
			for b.Loop() {
				ecdh.CPUEngine().SharedSecrets(c, privs, peers)
			}
			b.ReportMetric(float64(4096*b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkHost measures the host side of Engine batches (checks,
// decoding, encoding, allocation, clearing) with the device step replaced
// by a copy of the scalars into the results: ns/elem is host time per
// element, to compare with the kernel's time per element.
func BenchmarkHost(b *testing.B) {
	e, err := ecdh.NewEngine(devicetest.Device(b))
	if err != nil {
		b.Fatal(err)
	}
	defer e.ReleaseBuffers()
	e.SetDeviceStub(func(c ecdh.Curve, binv int, scal, us, res []uint32) { copy(res, scal) })
	for _, c := range ecdh.Curves() {
		for _, n := range []int{131072, 524288} {
			privs, peers := benchKeys(c, n)
			for _, op := range []string{"shared", "keygen"} {
				b.Run(fmt.Sprintf("%s/%s/%d", c, op, n), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						var err error
						if op == "shared" {
							_, err = e.SharedSecrets(c, privs, peers)
						} else {
							_, err = e.PublicKeys(c, privs)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/elem")
				})
			}
		}
	}
}
