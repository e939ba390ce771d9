package ed25519

import (
	"bytes"
	"crypto/sha512"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// sha512TestKernels are the test kernels of kernels/sha512.h, one message
// per work-item.
//
//go:embed testdata/kernels/sha512_test.cl
var sha512TestKernels embed.FS

// sha512TestKernelNames are the kernels of sha512_test.cl.
var sha512TestKernelNames = []string{"sha512_test", "sha512_test_words16"}

// sha512TestProgram is sha512_test.cl, built on the tree's headers.
func sha512TestProgram() device.Source {
	sub, err := fs.Sub(sha512TestKernels, "testdata/kernels")
	if err != nil {
		panic(err)
	}
	return kernels.ProgramFrom(sub, "sha512_test.cl", nil)
}

// sha512MaxWords is SHA512_TEST_MAX_WORDS of sha512_test.cl.
const sha512MaxWords = 40

// sha512Case is one message of kernel sha512_test: private words and a
// global byte range, each hashed in two updates split at wordSplit and
// byteSplit, the words first or (wordsBetween) between the two byte
// updates.
type sha512Case struct {
	words        []uint32 // at most sha512MaxWords
	wordSplit    int
	data         []byte
	byteSplit    int
	wordsBetween bool
	misalign     int // the data's address modulo 8 in the device buffer
}

// message is the case's message as the kernel hashes it.
func (c sha512Case) message() []byte {
	var words []byte
	for _, w := range c.words {
		words = binary.LittleEndian.AppendUint32(words, w)
	}
	if c.wordsBetween {
		return bytes.Join([][]byte{c.data[:c.byteSplit], words, c.data[c.byteSplit:]}, nil)
	}
	return append(words, c.data...)
}

func (c sha512Case) String() string {
	order := "words, bytes"
	if c.wordsBetween {
		order = "bytes, words, bytes"
	}
	return fmt.Sprintf("%d words (split at %d), %d bytes at address ≡ %d mod 8 (split at %d), %s: %d bytes in all",
		len(c.words), c.wordSplit, len(c.data), c.misalign, c.byteSplit, order, len(c.message()))
}

// randomSHA512Case is a case of nwords words and nbytes bytes, their
// content, splits, order and alignment drawn from rng.
func randomSHA512Case(rng *rand.Rand, nwords, nbytes int) sha512Case {
	c := sha512Case{
		words:        make([]uint32, nwords),
		wordSplit:    rng.IntN(nwords + 1),
		data:         make([]byte, nbytes),
		byteSplit:    rng.IntN(nbytes + 1),
		wordsBetween: rng.IntN(2) == 1,
		misalign:     rng.IntN(8),
	}
	for i := range c.words {
		c.words[i] = rng.Uint32()
	}
	for i := range c.data {
		c.data[i] = byte(rng.Uint32())
	}
	return c
}

// runSHA512Cases hashes every case with kernel sha512_test and returns the
// digests.
func runSHA512Cases(t *testing.T, cases []sha512Case) [][]byte {
	t.Helper()
	jobs := make([]uint32, 0, 8*len(cases))
	words := []uint32{0} // never empty: a buffer has at least one byte
	var data []byte
	for _, c := range cases {
		require.LessOrEqual(t, len(c.words), sha512MaxWords)
		for len(data)%8 != c.misalign {
			data = append(data, 0xa5)
		}
		between := uint32(0)
		if c.wordsBetween {
			between = 1
		}
		jobs = append(jobs, uint32(len(words)), uint32(len(c.words)), uint32(c.wordSplit),
			uint32(len(data)), uint32(len(c.data)), uint32(c.byteSplit), between, 0)
		words = append(words, c.words...)
		data = append(data, c.data...)
	}
	data = append(data, 0xa5) // never empty either

	out := devicetest.RunKernel(t, devicetest.Device(t), sha512TestProgram(), "sha512_test", len(cases), sha512.Size*len(cases),
		device.Uint32Bytes(jobs), device.Uint32Bytes(words), data, uint32(len(cases)))
	digests := make([][]byte, len(cases))
	for i := range digests {
		digests[i] = out[sha512.Size*i : sha512.Size*(i+1)]
	}
	return digests
}

// requireSHA512Cases checks the device's digest of every case against
// crypto/sha512, listing the first few that differ.
func requireSHA512Cases(t *testing.T, cases []sha512Case) {
	t.Helper()
	digests := runSHA512Cases(t, cases)
	var wrong []string
	for i, c := range cases {
		want := sha512.Sum512(c.message())
		if !bytes.Equal(digests[i], want[:]) {
			wrong = append(wrong, c.String())
		}
	}
	if len(wrong) > 0 {
		t.Fatalf("%d of %d digests differ from crypto/sha512, the first of them:\n%s",
			len(wrong), len(cases), strings.Join(wrong[:min(len(wrong), 10)], "\n"))
	}
}

// Every message length from 0 to 300 bytes (the padding's boundaries at
// 112 and 128 bytes, and again a block later), made of 0 to 40 private
// words and a global range at every alignment, in either order (words
// first, or between two byte ranges: words at any fill), each update
// split in two at a random place.
func TestSHA512KernelShortMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 512))
	var cases []sha512Case
	for total := 0; total <= 300; total++ {
		for _, nwords := range []int{0, 1, 2, 3, 5, 8, 16, 27, 32, 40} {
			if 4*nwords > total {
				continue
			}
			for range 2 {
				cases = append(cases, randomSHA512Case(rng, nwords, total-4*nwords))
			}
		}
	}
	requireSHA512Cases(t, cases)
}

// Random lengths up to 5000 bytes: many blocks, through every path of
// sha512_update_global (whole words loaded aligned or byte by byte,
// partial words at either end).
func TestSHA512KernelLongMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 512))
	var cases []sha512Case
	for range 300 {
		nwords := rng.IntN(sha512MaxWords + 1)
		cases = append(cases, randomSHA512Case(rng, nwords, rng.IntN(5000-4*nwords+1)))
	}
	requireSHA512Cases(t, cases)
}

// The examples of FIPS 180-4 (NIST's SHA-512 example values): "abc" as
// bytes, and the two-block message as bytes and as words.
func TestSHA512KernelKnownAnswers(t *testing.T) {
	abc := []byte("abc")
	twoBlocks := []byte("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
	require.Len(t, twoBlocks, 112)
	words := make([]uint32, len(twoBlocks)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(twoBlocks[4*i:])
	}
	cases := []sha512Case{
		{data: abc, byteSplit: 1},
		{data: twoBlocks, byteSplit: 57, misalign: 3},
		{words: words[:sha512MaxWords/2], wordSplit: 7, data: twoBlocks[2*sha512MaxWords:], byteSplit: 13, misalign: 5},
	}
	digests := runSHA512Cases(t, cases)
	const abcDigest = "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
	const twoBlockDigest = "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"
	for i, want := range []string{abcDigest, twoBlockDigest, twoBlockDigest} {
		require.Equal(t, want, hex.EncodeToString(digests[i]), "%s", cases[i])
		sum := sha512.Sum512(cases[i].message())
		require.Equal(t, want, hex.EncodeToString(sum[:]), "crypto/sha512 on %s", cases[i])
	}
}

// Kernel sha512_test_words16, the shape of Ed25519's challenge hash (16
// words, then the message), for messages of 0 to 300 bytes.
func TestSHA512KernelWords16(t *testing.T) {
	dev := devicetest.Device(t)
	rng := rand.New(rand.NewPCG(3, 512))
	const count = 301
	words := make([]uint32, 16*count)
	for i := range words {
		words[i] = rng.Uint32()
	}
	var offsets []uint32
	var data []byte
	for n := range count {
		data = append(data, make([]byte, rng.IntN(8))...) // any alignment
		offsets = append(offsets, uint32(len(data)), uint32(n))
		for range n {
			data = append(data, byte(rng.Uint32()))
		}
	}
	out := devicetest.RunKernel(t, dev, sha512TestProgram(), "sha512_test_words16", count, sha512.Size*count,
		device.Uint32Bytes(words), device.Uint32Bytes(offsets), data, uint32(count))
	for n := range count {
		message := device.Uint32Bytes(words[16*n : 16*(n+1)]) // little-endian, as the device stores them
		message = append(bytes.Clone(message), data[offsets[2*n]:offsets[2*n]+offsets[2*n+1]]...)
		want := sha512.Sum512(message)
		require.Equal(t, hex.EncodeToString(want[:]), hex.EncodeToString(out[sha512.Size*n:sha512.Size*(n+1)]), "16 words and %d bytes", n)
	}
}

// sha512_test.cl compiles as CUDA C for an H100 (sm_90) through NVRTC, no
// GPU needed (it skips where NVRTC or the build tag cuda is missing); the
// test logs ptxas's report of each kernel (registers, stack frame, spills).
func TestSHA512KernelCUDABuild(t *testing.T) {
	t.Setenv(device.EnvNoCache, "1") // a cached program has no build log
	d := devicetest.CUDACompiler(t)
	src := sha512TestProgram()
	src.Flags = append(src.Flags, "--ptxas-options=-v")
	p, err := d.Build(src)
	require.NoError(t, err)
	for _, name := range sha512TestKernelNames {
		_, err := p.Kernel(name)
		require.NoError(t, err, name)
	}
	report := regexp.MustCompile(`(?m)^ptxas\s+(info|\.)\s+:?\s*(Compiling entry function '\w+'|Used \d+ registers|\d+ bytes stack frame, \d+ bytes spill stores, \d+ bytes spill loads)`)
	for _, line := range report.FindAllStringSubmatch(p.BuildLog(), -1) {
		t.Log(line[2])
	}
}

// BenchmarkSHA512KernelWords16 hashes batches of messages of the shape of
// Ed25519's challenge hash (kernel sha512_test_words16: 16 words, then n
// global bytes) and reports hashes per second. Batches are of 2^20
// messages (2^12 on CPU devices, see devicetest.Short).
func BenchmarkSHA512KernelWords16(b *testing.B) {
	dev := devicetest.Device(b)
	prog, err := dev.Program(sha512TestProgram())
	require.NoError(b, err)
	kern, err := prog.Kernel("sha512_test_words16")
	require.NoError(b, err)
	count := 1 << 20
	if devicetest.Short(dev) {
		count = 1 << 12
	}
	rng := rand.New(rand.NewPCG(4, 512))
	words := make([]uint32, 16*count)
	for i := range words {
		words[i] = rng.Uint32()
	}
	wordBuffer, err := dev.Upload(device.Uint32Bytes(words))
	require.NoError(b, err)
	defer wordBuffer.Release()
	output, err := dev.NewBuffer(sha512.Size * count)
	require.NoError(b, err)
	defer output.Release()
	// n = 32 and 100: one block in all; 200: two. Messages lie n bytes
	// apart, so those of 100 bytes are only 4-byte aligned.
	for _, n := range []int{32, 100, 200} {
		b.Run(fmt.Sprintf("%dbytes", n), func(b *testing.B) {
			offsets := make([]uint32, 2*count)
			data := make([]byte, n*count)
			for i := range count {
				offsets[2*i], offsets[2*i+1] = uint32(n*i), uint32(n)
			}
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			offsetBuffer, err := dev.Upload(device.Uint32Bytes(offsets))
			require.NoError(b, err)
			defer offsetBuffer.Release()
			dataBuffer, err := dev.Upload(data)
			require.NoError(b, err)
			defer dataBuffer.Release()
			// once before timing: drivers may finish building at the first launch
			ev, err := kern.Launch(count, 0, output, wordBuffer, offsetBuffer, dataBuffer, uint32(count))
			require.NoError(b, err)
			require.NoError(b, ev.Release())
			launches := 0
			for b.Loop() {
				ev, err := kern.Launch(count, 0, output, wordBuffer, offsetBuffer, dataBuffer, uint32(count))
				require.NoError(b, err)
				require.NoError(b, ev.Release()) // waits
				launches++
			}
			b.ReportMetric(float64(launches*count)/b.Elapsed().Seconds(), "hashes/s")
		})
	}
}
