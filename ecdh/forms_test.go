package ecdh_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// fieldForms are forms of the field product the kernels can be built with
// (FIELD_MUL_ROWS: its rows a loop of that many per iteration; "default":
// X25519 4, X448 2).
var fieldForms = map[string]map[ecdh.Curve]map[string]string{
	"default":   nil,
	"unrolled":  {ecdh.X25519: {"FIELD_MUL_ROWS": "8"}, ecdh.X448: {"FIELD_MUL_ROWS": "14"}},
	"rows-half": {ecdh.X25519: {"FIELD_MUL_ROWS": "4"}, ecdh.X448: {"FIELD_MUL_ROWS": "7"}},
	"rows-2":    {ecdh.X25519: {"FIELD_MUL_ROWS": "2"}, ecdh.X448: {"FIELD_MUL_ROWS": "2"}},
	"rows-1":    {ecdh.X25519: {"FIELD_MUL_ROWS": "1"}, ecdh.X448: {"FIELD_MUL_ROWS": "1"}},
}

// Every form of the field product gives crypto/ecdh's and circl's results:
// shared secrets (the edge u-coordinates and low-order points included)
// and public keys.
func TestFieldForms(t *testing.T) {
	d := devicetest.Device(t)
	for _, name := range []string{"unrolled", "rows-half", "rows-1"} { // the default runs in every other test
		require.Contains(t, fieldForms, name)
		t.Run(name, func(t *testing.T) {
			restore := ecdh.WithProgramDefines(fieldForms[name])
			e, err := ecdh.NewEngine(d)
			restore()
			require.NoError(t, err)
			defer e.ReleaseBuffers()
			for _, c := range ecdh.Curves {
				privs, peers := benchKeys(c, 33)
				for j, u := range ecdh.EdgeU(c) { // reduction edges, low-order points
					peers[3*j+1] = u
				}
				for j := range privs[0] {
					privs[0][j] = 0xff // the largest clamped scalar
				}
				got, gerr := e.SharedSecrets(c, privs, peers)
				want, werr := ecdh.CPU{}.SharedSecrets(c, privs, peers)
				requireSameErrors(t, werr, gerr, len(privs))
				require.Equal(t, want, got, "%s", c)
				gp, err := e.PublicKeys(c, privs)
				require.NoError(t, err)
				wp, err := ecdh.CPU{}.PublicKeys(c, privs)
				require.NoError(t, err)
				require.Equal(t, wp, gp, "%s public keys", c)
			}
		})
	}
}

// BenchmarkFieldForms compares the forms of the field product: kernel
// ops/s of shared secrets (per-element inversion and batch inversion k=16)
// at GPUCRYPTO_BENCH_ECDH_BATCH elements (default 131072).
func BenchmarkFieldForms(b *testing.B) {
	d := devicetest.Device(b)
	n := 131072
	if s := os.Getenv("GPUCRYPTO_BENCH_ECDH_BATCH"); s != "" {
		fmt.Sscan(s, &n)
	}
	for _, name := range []string{"default", "unrolled", "rows-half", "rows-2", "rows-1"} {
		if _, ok := fieldForms[name]; !ok {
			b.Fatalf("no field form %q", name)
		}
		restore := ecdh.WithProgramDefines(fieldForms[name])
		e, err := ecdh.NewEngine(d)
		restore()
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range ecdh.Curves {
			privs, peers := benchKeys(c, n)
			for _, k := range []int{0, benchBinvK} {
				b.Run(fmt.Sprintf("%s/%s/k=%d/%d", name, c, k, n), func(b *testing.B) {
					e.SetBatchInversion(k)
					before := e.DeviceTime()
					for b.Loop() {
						if _, err := e.SharedSecrets(c, privs, peers); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(n*b.N)/(e.DeviceTime()-before).Seconds(), "kernel-ops/s")
				})
			}
		}
		e.ReleaseBuffers()
	}
}
