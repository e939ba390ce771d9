package ecdh_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// fieldForms are forms of the field product the kernels can be built with
// ("default": ecdh.ProgramDefines' choice for the device; FIELD_MUL_ROWS:
// the integer field's schoolbook product with its rows a loop of that many per
// iteration, X25519 4 and X448 2 by default, so "integer" is X25519's
// integer default; LADDER_FP64: X25519's ladder on doubles,
// kernels/fe25519_fp64.h, the default on GPUs with fast fp64;
// LADDER_GROUPS: its kernels (and X448's, kernels/x448.cl) bounded to
// that many groups of 128 per multiprocessor; FIELD_MUL_FORM: X448's
// product and squaring, by default the golden-ratio Karatsuba (three
// 7-limb half products, each a loop of one row per iteration or, with
// FIELD_MUL_ROWS=7, unrolled, or its ladder kernels bounded to 3 or 5
// groups instead of 4), "schoolbook" the form before it).
var fieldForms = map[string]map[ecdh.Curve]map[string]string{
	"default":            nil,
	"integer":            {ecdh.X25519(): {"FIELD_MUL_ROWS": "4"}},
	"unrolled":           {ecdh.X25519(): {"FIELD_MUL_ROWS": "8"}, ecdh.X448(): {"FIELD_MUL_ROWS": "14"}},
	"rows-half":          {ecdh.X25519(): {"FIELD_MUL_ROWS": "4"}, ecdh.X448(): {"FIELD_MUL_ROWS": "7"}},
	"rows-2":             {ecdh.X25519(): {"FIELD_MUL_ROWS": "2"}, ecdh.X448(): {"FIELD_MUL_ROWS": "2"}},
	"rows-1":             {ecdh.X25519(): {"FIELD_MUL_ROWS": "1"}, ecdh.X448(): {"FIELD_MUL_ROWS": "1"}},
	"fp64":               {ecdh.X25519(): {"LADDER_FP64": "1"}},
	"fp64-g4":            {ecdh.X25519(): {"LADDER_FP64": "1", "LADDER_GROUPS": "4"}},
	"fp64-g5":            {ecdh.X25519(): {"LADDER_FP64": "1", "LADDER_GROUPS": "5"}},
	"schoolbook":         {ecdh.X448(): {"FIELD_MUL_FORM": "schoolbook"}},
	"karatsuba-unrolled": {ecdh.X448(): {"FIELD_MUL_FORM": "karatsuba", "FIELD_MUL_ROWS": "7"}},
	"karatsuba-g3":       {ecdh.X448(): {"FIELD_MUL_FORM": "karatsuba", "LADDER_GROUPS": "3"}},
	"karatsuba-g5":       {ecdh.X448(): {"FIELD_MUL_FORM": "karatsuba", "LADDER_GROUPS": "5"}},
}

// testedForms are the forms the tests run besides the default (which runs
// in every other test; "integer" is rows-half's X25519).
var testedForms = []string{"unrolled", "rows-half", "rows-1", "fp64", "schoolbook", "karatsuba-unrolled"}

// Every form of the field product gives crypto/ecdh's and circl's results:
// shared secrets (the edge u-coordinates and low-order points included),
// with the inversion per element and by batch, and public keys.
func TestFieldForms(t *testing.T) {
	d := devicetest.Device(t)
	for _, name := range testedForms {
		require.Contains(t, fieldForms, name)
		t.Run(name, func(t *testing.T) {
			restore := ecdh.WithProgramDefines(fieldForms[name])
			e, err := ecdh.NewEngine(d)
			restore()
			require.NoError(t, err)
			defer e.ReleaseBuffers()
			for _, c := range ecdh.Curves() {
				privs, peers := benchKeys(c, 257)
				for j, u := range ecdh.EdgeU(c) { // reduction edges, low-order points
					peers[3*j+1] = u
				}
				for j := range privs[0] {
					privs[0][j] = 0xff // the largest clamped scalar
				}
				want, werr := ecdh.CPUEngine().SharedSecrets(c, privs, peers)
				for _, k := range []int{0, benchBinvK} {
					e.SetBatchInversion(k)
					got, gerr := e.SharedSecrets(c, privs, peers)
					requireSameErrors(t, werr, gerr, len(privs))
					require.Equal(t, want, got, "%s, batch inversion k=%d", c, k)
				}
				gp, err := e.PublicKeys(c, privs)
				require.NoError(t, err)
				wp, err := ecdh.CPUEngine().PublicKeys(c, privs)
				require.NoError(t, err)
				require.Equal(t, wp, gp, "%s public keys", c)
			}
		})
	}
}

// Every form of the field product runs RFC 7748 §5.2's iterated vectors
// to 1,000 iterations on the device.
func TestFieldFormsIterated(t *testing.T) {
	d := devicetest.Device(t)
	for _, name := range testedForms {
		t.Run(name, func(t *testing.T) {
			for _, c := range ecdh.Curves() {
				if fieldForms[name][c] == nil {
					continue // the default form, run by TestRFC7748IteratedOnDevice
				}
				restore := ecdh.WithProgramDefines(fieldForms[name])
				ch := newChain(t, d, c)
				restore()
				ch.runTo(1)
				ch.runTo(1000)
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
	for _, name := range []string{"default", "integer", "unrolled", "rows-half", "rows-2", "rows-1", "fp64", "fp64-g4", "fp64-g5", "schoolbook", "karatsuba-unrolled", "karatsuba-g3", "karatsuba-g5"} {
		if _, ok := fieldForms[name]; !ok {
			b.Fatalf("no field form %q", name)
		}
		b.Run(name, func(b *testing.B) { // -test.bench 'FieldForms/^fp64' builds only those forms
			restore := ecdh.WithProgramDefines(fieldForms[name])
			e, err := ecdh.NewEngine(d)
			defines := map[ecdh.Curve]map[string]string{}
			for _, c := range ecdh.Curves() {
				defines[c] = ecdh.ProgramDefines(d, c)
			}
			restore()
			if err != nil {
				b.Fatal(err)
			}
			defer e.ReleaseBuffers()
			for _, c := range ecdh.Curves() {
				if name != "default" && fieldForms[name][c] == nil {
					continue // the default form, measured as "default"
				}
				b.Logf("%s %s: defines %v", name, c, defines[c])
				privs, peers := benchKeys(c, n)
				for _, k := range []int{0, benchBinvK} {
					b.Run(fmt.Sprintf("%s/k=%d/%d", c, k, n), func(b *testing.B) {
						e.SetBatchInversion(k)
						before := e.Stats().DeviceTime
						for b.Loop() {
							if _, err := e.SharedSecrets(c, privs, peers); err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(n*b.N)/(e.Stats().DeviceTime-before).Seconds(), "kernel-ops/s")
					})
				}
			}
		})
	}
}

// The X25519 ladder runs on doubles exactly where double precision is
// fast; X448 and the other devices keep the integer field, X448's product
// the golden-ratio Karatsuba; forms under test override the choice.
func TestProgramDefines(t *testing.T) {
	fast := &device.Device{Info: device.Info{FP64: true, FastFP64: true}}
	slow := &device.Device{Info: device.Info{FP64: true}}
	require.Equal(t, map[string]string{"LADDER_FP64": "1"}, ecdh.ProgramDefines(fast, ecdh.X25519()))
	karatsuba := map[string]string{"FIELD_MUL_FORM": "karatsuba"}
	require.Equal(t, karatsuba, ecdh.ProgramDefines(fast, ecdh.X448()))
	require.Nil(t, ecdh.ProgramDefines(slow, ecdh.X25519()))
	require.Equal(t, karatsuba, ecdh.ProgramDefines(slow, ecdh.X448()))
	restore := ecdh.WithProgramDefines(fieldForms["integer"])
	defer restore()
	require.Equal(t, map[string]string{"FIELD_MUL_ROWS": "4"}, ecdh.ProgramDefines(fast, ecdh.X25519()))
	require.Equal(t, karatsuba, ecdh.ProgramDefines(fast, ecdh.X448()), "a form without X448: its default")
}
