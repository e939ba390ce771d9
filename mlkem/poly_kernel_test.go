package mlkem_test

import (
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/mlkem"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// The kernels' table holds ζ^bitrev7(i) and γ_i = ζ^(2·bitrev7(i)+1) in
// Montgomery form (times 2^16 mod q).
func TestDeviceTable(t *testing.T) {
	table := mlkem.DeviceTable()
	require.Len(t, table, 256)
	for i := range 128 {
		require.Equal(t, refZetas[i]*65536%q, table[i], "ζ %d", i)
		require.Equal(t, refZetas[i]*refZetas[i]%q*17%q*65536%q, table[128+i], "γ %d", i)
	}
	// the first twiddle factors of FIPS 203's Appendix A
	require.Equal(t, []uint32{1, 1729, 2580, 3289, 2642, 630, 1897, 848}, refZetas[:8])
}

// polyWords are polynomials as the test kernels take them, a word a
// coefficient.
func polyWords(ps ...poly) []byte {
	words := make([]uint32, 0, 256*len(ps))
	for _, p := range ps {
		words = append(words, p[:]...)
	}
	return device.Uint32Bytes(words)
}

// wordPolys are the polynomials of a test kernel's output.
func wordPolys(b []byte) []poly {
	words := device.Uint32s(b, len(b)/4)
	ps := make([]poly, len(words)/256)
	for i := range ps {
		copy(ps[i][:], words[256*i:])
	}
	return ps
}

func randomPoly(rng *rand.Rand) (f poly) {
	for i := range f {
		f[i] = rng.Uint32N(q)
	}
	return f
}

// edgePolys are polynomials of extreme coefficients: all 0, all q − 1,
// alternating, and a single 1.
func edgePolys() []poly {
	var zero, top, alternate, one poly
	for i := range top {
		top[i] = q - 1
		alternate[i] = uint32(i%2) * (q - 1)
	}
	one[0] = 1
	return []poly{zero, top, alternate, one}
}

// runPolyKernel runs kernel name of mlkem_test.cl over count work-items
// with the table as its argument after inputs, returning outBytes bytes.
func runPolyKernel(t *testing.T, name string, count, outBytes int, args ...any) []byte {
	t.Helper()
	d := devicetest.Device(t)
	return devicetest.RunKernel(t, d, testProgram("mlkem_test.cl"), name, count, outBytes, args...)
}

func tableBytes() []byte { return device.Uint32Bytes(mlkem.DeviceTable()) }

// The NTT and the inverse NTT of the kernels are the reference's, for
// random and extreme polynomials, and the inverse undoes the NTT.
func TestNTTKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	in := edgePolys()
	for range 60 {
		in = append(in, randomPoly(rng))
	}
	for _, inverse := range []uint32{0, 1} {
		out := wordPolys(runPolyKernel(t, "ntt_test", len(in), 1024*len(in), polyWords(in...), tableBytes(), inverse, uint32(len(in))))
		for i, f := range in {
			want := nttRef(f)
			if inverse == 1 {
				want = inverseNTTRef(f)
				require.Equal(t, f, nttRef(inverseNTTRef(f)), "the reference's inverse, polynomial %d", i)
			}
			require.Equal(t, want, out[i], "inverse %d, polynomial %d", inverse, i)
		}
	}
}

// The NTT-domain products of the kernels are the reference's.
func TestMulKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var a, b []poly
	for _, e := range edgePolys() {
		for _, f := range edgePolys() {
			a, b = append(a, e), append(b, f)
		}
	}
	for range 40 {
		a, b = append(a, randomPoly(rng)), append(b, randomPoly(rng))
	}
	out := wordPolys(runPolyKernel(t, "mul_test", len(a), 1024*len(a), polyWords(a...), polyWords(b...), tableBytes(), uint32(len(a))))
	for i := range a {
		require.Equal(t, mulNTTRef(a[i], b[i]), out[i], "pair %d", i)
	}
}

// Compress_d and Decompress_d of the kernels are the exact roundings, for
// every input and every d of ML-KEM-768 and ML-KEM-1024.
func TestCompressKernel(t *testing.T) {
	ds := []uint{1, 4, 5, 10, 11}
	n := 4096 * len(ds)
	out := device.Uint32s(runPolyKernel(t, "compress_test", n, 4*n, uint32(n)), n)
	for i, w := range out {
		d, x := ds[i/4096], uint32(i%4096)
		require.Equal(t, compressRef(x%q, d), w&0xffff, "Compress_%d(%d)", d, x%q)
		require.Equal(t, decompressRef(x&(1<<d-1), d), w>>16, "Decompress_%d(%d)", d, x&(1<<d-1))
	}
}

// ByteEncode_d(Compress_d) and Decompress_d(ByteDecode_d) of the kernels
// are the reference's.
func TestCodecKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var in []poly
	var ds []uint32
	for _, d := range []uint32{1, 4, 5, 10, 11} {
		for _, f := range append(edgePolys(), randomPoly(rng), randomPoly(rng)) {
			in, ds = append(in, f), append(ds, d)
		}
	}
	d := devicetest.Device(t)
	prog, err := d.Program(testProgram("mlkem_test.cl"))
	require.NoError(t, err)
	kern, err := prog.Kernel("codec_test")
	require.NoError(t, err)
	encoded, err := d.NewBuffer(4 * 88 * len(in))
	require.NoError(t, err)
	defer encoded.Release()
	decoded, err := d.NewBuffer(1024 * len(in))
	require.NoError(t, err)
	defer decoded.Release()
	input, err := d.Upload(polyWords(in...))
	require.NoError(t, err)
	defer input.Release()
	dsBuf, err := d.Upload(device.Uint32Bytes(ds))
	require.NoError(t, err)
	defer dsBuf.Release()
	ev, err := kern.Launch(len(in), 0, encoded, decoded, input, dsBuf, uint32(len(in)))
	require.NoError(t, err)
	require.NoError(t, ev.Release())
	enc := make([]byte, 4*88*len(in))
	require.NoError(t, encoded.Read(0, enc))
	dec := make([]byte, 1024*len(in))
	require.NoError(t, decoded.Read(0, dec))
	out := wordPolys(dec)
	for i, f := range in {
		d := uint(ds[i])
		var compressed, want poly
		for x := range f {
			compressed[x] = compressRef(f[x], d)
			want[x] = decompressRef(compressed[x], d)
		}
		require.Equal(t, encodeRef(compressed, d), enc[4*88*i:4*88*i+32*int(d)], "ByteEncode_%d, polynomial %d", d, i)
		require.Equal(t, want, out[i], "Decompress_%d(ByteDecode_%d), polynomial %d", d, d, i)
	}
}

// cbdCase is a seed and nonce of cbd_test.
func cbdWords(seed []byte, nonce byte) []uint32 {
	words := device.Uint32s(append([]byte(nil), seed...), 8)
	return append(append([]uint32(nil), words...), uint32(nonce))
}

// The centred binomial noise of the kernels is the reference's.
func TestCBDKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var words []uint32
	var seeds [][]byte
	var nonces []byte
	for i := range 40 {
		seed := make([]byte, 32)
		for x := range seed {
			seed[x] = byte(rng.Uint32())
		}
		nonce := byte(i * 7)
		seeds, nonces = append(seeds, seed), append(nonces, nonce)
		words = append(words, cbdWords(seed, nonce)...)
	}
	out := wordPolys(runPolyKernel(t, "cbd_test", len(seeds), 1024*len(seeds), device.Uint32Bytes(words), uint32(len(seeds))))
	for i := range seeds {
		require.Equal(t, cbdRef(seeds[i], nonces[i]), out[i], "seed %d", i)
	}
}

// sampleWords are the ρ, x and y of sample_test.
func sampleWords(rho []byte, x, y byte) []uint32 {
	words := device.Uint32s(append([]byte(nil), rho...), 8)
	return append(append([]uint32(nil), words...), uint32(x), uint32(y))
}

// runSamples samples SampleNTT(ρ ‖ x ‖ y) on the device for each case.
func runSamples(t *testing.T, rhos [][]byte, xs, ys []byte) []poly {
	var words []uint32
	for i := range rhos {
		words = append(words, sampleWords(rhos[i], xs[i], ys[i])...)
	}
	return wordPolys(runPolyKernel(t, "sample_test", len(rhos), 1024*len(rhos), device.Uint32Bytes(words), tableBytes(), uint32(len(rhos))))
}

// The matrix sampling of the kernels (SampleNTT, through the products it
// feeds) is the reference's, for random seeds and for the seeds of C2SP's
// unlucky keys, whose entries need XOF streams longer than 575 bytes.
func TestSampleKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var rhos [][]byte
	var xs, ys []byte
	for range 32 {
		rho := make([]byte, 32)
		for x := range rho {
			rho[x] = byte(rng.Uint32())
		}
		rhos, xs, ys = append(rhos, rho), append(xs, byte(rng.IntN(4))), append(ys, byte(rng.IntN(4)))
	}
	unlucky := 0
	for _, set := range []struct {
		name string
		k    int
	}{{"ML-KEM-768", 3}, {"ML-KEM-1024", 4}} {
		values, err := testvectors.CCTVMLKEMValues("unluckysample/" + set.name + ".txt")
		require.NoError(t, err)
		ek := unhex(t, valueOf(t, values, "ek"))
		rho := ek[384*set.k:]
		for x := range set.k {
			for y := range set.k {
				rhos, xs, ys = append(rhos, rho), append(xs, byte(x)), append(ys, byte(y))
			}
		}
	}
	out := runSamples(t, rhos, xs, ys)
	for i := range rhos {
		want, read := sampleNTTRef(rhos[i], xs[i], ys[i])
		require.Equal(t, want, out[i], "ρ %x, x %d, y %d", rhos[i], xs[i], ys[i])
		if read > 575 {
			unlucky++
		}
	}
	require.Positive(t, unlucky, "no entry of the unlucky keys needs more than 575 bytes of XOF")
}

// The kernels' steps give C2SP's intermediate values (those FIPS 203 ipd
// and final share): A[0, 0] from ρ, NTT(s[0]) from s[0], s[0] from σ,
// Compress_du(u[0]) and Compress_dv(v).
func TestIntermediateValuesKernels(t *testing.T) {
	for _, set := range []struct {
		name   string
		du, dv uint
	}{{"ML-KEM-768", 10, 4}, {"ML-KEM-1024", 11, 5}} {
		t.Run(set.name, func(t *testing.T) {
			values, err := testvectors.CCTVMLKEMValues("intermediate/" + set.name + ".txt")
			require.NoError(t, err)
			rho, sigma := unhex(t, valueOf(t, values, "ρ")), unhex(t, valueOf(t, values, "σ"))
			a := runSamples(t, [][]byte{rho}, []byte{0}, []byte{0})
			require.Equal(t, decimalPoly(t, valueOf(t, values, "A[0, 0]")), a[0], "A[0, 0]")
			s0 := decimalPoly(t, valueOf(t, values, "s[0]"))
			noise := wordPolys(runPolyKernel(t, "cbd_test", 1, 1024, device.Uint32Bytes(cbdWords(sigma, 0)), uint32(1)))
			require.Equal(t, s0, noise[0], "s[0]")
			ntt := wordPolys(runPolyKernel(t, "ntt_test", 1, 1024, polyWords(s0), tableBytes(), uint32(0), uint32(1)))
			require.Equal(t, decimalPoly(t, valueOf(t, values, "NTT(s[0])")), ntt[0], "NTT(s[0])")
			for _, c := range []struct {
				in, out string
				d       uint
			}{{"u[0]", "compress(u[0])", set.du}, {"v", "compress(v)", set.dv}} {
				var in poly
				if strings.HasPrefix(valueOf(t, values, c.in), "{") {
					in = decimalPoly(t, valueOf(t, values, c.in))
				}
				want := decimalPoly(t, valueOf(t, values, c.out))
				for x := range in {
					require.Equal(t, want[x], compressRef(in[x], c.d), "the reference's %s[%d]", c.out, x)
				}
			}
		})
	}
}

// valueOf is the first value of the vectors named name.
func valueOf(t testing.TB, values []testvectors.NamedValue, name string) string {
	t.Helper()
	for _, v := range values {
		if v.Name == name {
			return v.Value
		}
	}
	t.Fatalf("no value %q", name)
	return ""
}

// decimalPoly parses a polynomial written "{c0, c1, ...}" (and what
// follows it on the line, its encoding, left out).
func decimalPoly(t testing.TB, s string) (f poly) {
	t.Helper()
	s, _, _ = strings.Cut(strings.TrimPrefix(s, "{"), "}")
	parts := strings.Split(s, ",")
	require.Len(t, parts, 256)
	for i, p := range parts {
		c, err := strconv.ParseUint(strings.TrimSpace(p), 10, 32)
		require.NoError(t, err)
		f[i] = uint32(c)
	}
	return f
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}
