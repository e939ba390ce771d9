package rsa

import (
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
)

// keyWithExponent is a fresh bits-bit RSA key with public exponent e
// (crypto/rsa only makes keys with 65,537).
func keyWithExponent(t testing.TB, bits, e int) *stdrsa.PrivateKey {
	t.Helper()
	E := big.NewInt(int64(e))
	one := big.NewInt(1)
	for {
		p, err := rand.Prime(rand.Reader, bits/2)
		require.NoError(t, err)
		q, err := rand.Prime(rand.Reader, bits-bits/2)
		require.NoError(t, err)
		n := new(big.Int).Mul(p, q)
		if p.Cmp(q) == 0 || n.BitLen() != bits {
			continue
		}
		phi := new(big.Int).Mul(new(big.Int).Sub(p, one), new(big.Int).Sub(q, one))
		d := new(big.Int).ModInverse(E, phi)
		if d == nil {
			continue
		}
		k := &stdrsa.PrivateKey{PublicKey: stdrsa.PublicKey{N: n, E: e}, D: d, Primes: []*big.Int{p, q}}
		k.Precompute()
		require.NoError(t, k.Validate())
		return k
	}
}

// The fault check apart from rsa_combine (rsa_check: several work-items
// per element, as GPUs run it) on the test device: signatures equal
// crypto/rsa's with one public exponent for the whole call and with
// several (3, 65,537 and 2^31 − 1 mixed: every bit picks its product by
// mask), at the widths of 1024- and 2048-bit keys, and an injected fault
// is caught (ErrFault, no value) whichever way the exponents go.
func TestCheckApart(t *testing.T) {
	e := testDeviceEngine(t)
	b := e.d
	setCheckPath(t, "apart")
	e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
	k1024, k2048 := loadKey(t, "rsa1024a"), loadKey(t, "rsa2048a")
	for _, c := range []struct {
		name string
		keys []*stdrsa.PrivateKey
	}{
		{"1024/one-exponent", []*stdrsa.PrivateKey{k1024, loadKey(t, "rsa1024b")}},
		{"2048/one-exponent", []*stdrsa.PrivateKey{k2048}},
		{"1024/several-exponents", []*stdrsa.PrivateKey{k1024, keyWithExponent(t, 1024, 3), keyWithExponent(t, 1024, 1<<31-1)}},
		{"2048/several-exponents", []*stdrsa.PrivateKey{keyWithExponent(t, 2048, 3), k2048}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pk, err := preparePrivate(c.keys[0])
			require.NoError(t, err)
			_, mf, err := b.widths(pk.half, pk.pub.limbs, 0)
			require.NoError(t, err)
			cm, apart := b.checkForm(mf)
			require.True(t, apart, "%s: the check runs apart", mf)
			require.Equal(t, checkLanes(mf.W), cm.Lanes)
			const n = 9
			for _, bad := range []int{-1, 5} {
				digests := make([][]byte, n)
				keys := make([]*stdrsa.PrivateKey, n)
				for i := range digests {
					d := sha256.Sum256(fmt.Appendf(nil, "%s %d %d", c.name, bad, i))
					digests[i], keys[i] = d[:], c.keys[i%len(c.keys)]
				}
				requireSignatures(t, e, keys, digests, bad)
			}
		})
	}
}

// requireSignatures signs digests with keys (PKCS #1 v1.5, SHA-256, one
// size class) on e, whose device corrupts element bad first when bad ≥ 0
// (InjectDeviceFault), and requires ErrFault and no value there and
// crypto/rsa's signature for every other element.
func requireSignatures(t *testing.T, e *Engine, keys []*stdrsa.PrivateKey, digests [][]byte, bad int) {
	t.Helper()
	if bad >= 0 {
		require.True(t, e.InjectDeviceFault(t, bad))
	}
	sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
	errs := make([]error, len(keys))
	if bad >= 0 {
		var be *batch.Error
		require.ErrorAs(t, err, &be)
		errs = be.Errs
	} else {
		require.NoError(t, err)
	}
	for i := range keys {
		if i == bad {
			require.ErrorIs(t, errs[i], ErrFault)
			require.Nil(t, sigs[i])
			continue
		}
		require.NoError(t, errs[i], "element %d", i)
		want, err := stdrsa.SignPKCS1v15(nil, keys[i], crypto.SHA256, digests[i])
		require.NoError(t, err)
		require.Equal(t, want, sigs[i], "element %d", i)
	}
}

// checkLanes leaves each lane at least eight words and divides the width.
func TestCheckLanes(t *testing.T) {
	for F, want := range map[int]int{16: 2, 32: 4, 48: 4, 64: 8, 96: 8, 128: 16, 8: 1, 65: 1} {
		require.Equal(t, want, checkLanes(F), "F = %d", F)
	}
}

// The schedule of rsa_check's products: with one exponent, a squaring per
// bit below the top and a product where the bit is set; with several,
// per bit of the longest a squaring and a product.
func TestCheckSchedule(t *testing.T) {
	forms := func(es ...uint32) []*deviceForm {
		var fs []*deviceForm
		for _, e := range es {
			fs = append(fs, &deviceForm{e: e})
		}
		return fs
	}
	require.Equal(t, checkSchedule{eAll: 65537, eBits: 17, steps: 17, sched: 1 << 16}, newCheckSchedule(forms(65537, 65537)))
	require.Equal(t, checkSchedule{eAll: 3, eBits: 2, steps: 2, sched: 0b10}, newCheckSchedule(forms(3)))
	require.Equal(t, checkSchedule{eAll: 0b1011, eBits: 4, steps: 5, sched: 0b10100}, newCheckSchedule(forms(0b1011)))
	require.Equal(t, checkSchedule{eAll: 0, eBits: 17, steps: 34, sched: 0x2_aaaa_aaaa}, newCheckSchedule(forms(3, 65537)))
	c := newCheckSchedule(forms(3, 1<<31-1))
	require.Equal(t, checkSchedule{eAll: 0, eBits: 31, steps: 62, sched: 0x2aaa_aaaa_aaaa_aaaa}, c)
	require.Equal(t, []any{uint32(0), uint32(31), uint32(0xaaaa_aaaa), uint32(0x2aaa_aaaa), uint32(62)}, c.args())
}

// BenchmarkCheck compares where the fault check runs (rsa_combine, one
// work-item per element, or apart in rsa_check, several): RSA PKCS #1 v1.5
// SHA-256 signatures with one key per size, at batch 1 (ns/op: a lone
// operation's latency) and GPUCRYPTO_BENCH_RSA_BATCH (default 65536;
// kernel-ops/s), and crypto/rsa on all cores for comparison.
func BenchmarkCheck(b *testing.B) {
	n := benchBatch(b, 65536)
	for _, name := range []string{"rsa2048a", "rsa3072", "rsa4096"} {
		k := loadKey(b, name)
		for _, path := range []string{"combine", "apart"} {
			setCheckPath(b, path)
			e := testDeviceEngine(b)
			e.OnFallback(func(err error) { b.Fatal(err) })
			for _, size := range []int{1, n} {
				b.Run(fmt.Sprintf("%s/%s/batch=%d", name, path, size), func(b *testing.B) {
					keys, digests := make([]*stdrsa.PrivateKey, size), make([][]byte, size)
					for i := range size {
						d := sha256.Sum256([]byte(strconv.Itoa(i)))
						keys[i], digests[i] = k, d[:]
					}
					SignLoop(b, e, keys, digests)
				})
			}
		}
		b.Run(name+"/crypto-rsa/all-cores", func(b *testing.B) {
			// cpuBatch signatures per iteration, on every core: a
			// -benchtime of a few iterations still measures a rate
			const cpuBatch = 1024
			d := sha256.Sum256([]byte(name))
			for b.Loop() {
				batch.Parallel(cpuBatch, 1, func(lo, hi int) {
					for range hi - lo {
						if _, err := stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, d[:]); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			b.ReportMetric(float64(cpuBatch*b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// benchBatch is the batch size GPUCRYPTO_BENCH_RSA_BATCH sets, else def.
func benchBatch(b *testing.B, def int) int {
	s := os.Getenv("GPUCRYPTO_BENCH_RSA_BATCH")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// setCheckPath sets checkPath until the test ends.
func setCheckPath(t testing.TB, path string) {
	old := checkPath
	checkPath = path
	t.Cleanup(func() { checkPath = old })
}
