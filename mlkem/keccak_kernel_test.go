package mlkem_test

import (
	"bytes"
	"crypto/sha3"
	"embed"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"testing"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// testKernels are the test kernels of the package's headers under
// kernels/ (testdata/kernels: keccak_test.cl for keccak.h, mlkem_test.cl
// for the ring arithmetic and sampling of mlkem_poly.h and mlkem_pke.h).
//
//go:embed testdata/kernels
var testKernels embed.FS

// testProgram is a test kernel file, built on the tree's headers.
func testProgram(name string) device.Source {
	sub, err := fs.Sub(testKernels, "testdata/kernels")
	if err != nil {
		panic(err)
	}
	return kernels.ProgramFrom(sub, name, nil)
}

// keccakMaxOut and keccakMaxWords are KECCAK_TEST_MAX_OUT and
// KECCAK_TEST_MAX_WORDS of keccak_test.cl.
const (
	keccakMaxOut   = 640
	keccakMaxWords = 64
)

// The four functions of keccak.h, as keccak_test.cl numbers them, with
// their rates and crypto/sha3's result.
var keccakFunctions = []struct {
	name   string
	rate   int
	digest int // the output of a fixed-length function; 0 for an XOF
	want   func(msg []byte, n int) []byte
}{
	{"SHA3-256", 136, 32, func(msg []byte, _ int) []byte { h := sha3.Sum256(msg); return h[:] }},
	{"SHA3-512", 72, 64, func(msg []byte, _ int) []byte { h := sha3.Sum512(msg); return h[:] }},
	{"SHAKE128", 168, 0, func(msg []byte, n int) []byte { return sha3.SumSHAKE128(msg, n) }},
	{"SHAKE256", 136, 0, func(msg []byte, n int) []byte { return sha3.SumSHAKE256(msg, n) }},
}

// keccakCase is one work-item of keccak_test: a message of data (at an
// offset of its own), hashed by function through the absorbing and
// squeezing modes of keccak_test.cl.
type keccakCase struct {
	function, offset, length, split, absorb, out, squeeze int
}

func (c keccakCase) String() string {
	return fmt.Sprintf("%s of %d bytes at offset %d, absorbing mode %d split at %d, %d bytes out by squeezing mode %d",
		keccakFunctions[c.function].name, c.length, c.offset, c.absorb, c.split, c.out, c.squeeze)
}

// keccakLengths are the message lengths tried for a rate: the small ones,
// and those around one, two and three blocks.
func keccakLengths(rate int) []int {
	lengths := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 63, 64, 65}
	for blocks := 1; blocks <= 3; blocks++ {
		for d := -3; d <= 3; d++ {
			lengths = append(lengths, blocks*rate+d)
		}
	}
	return append(lengths, 1184, 1120, 1600)
}

// Every function of keccak.h gives crypto/sha3's output for messages of
// every length around the rate boundaries, absorbed through each of the
// header's absorbing functions (bytes, global words, private words,
// words at unaligned positions) and squeezed through each squeezing
// function; the XOFs for outputs across several blocks.
func TestKeccakKernel(t *testing.T) {
	d := devicetest.Device(t)
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 1<<16)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	var cases []keccakCase
	for f, fn := range keccakFunctions {
		for _, length := range keccakLengths(fn.rate) {
			for absorb := range 4 {
				c := keccakCase{function: f, offset: rng.IntN(len(data) - 2000), length: length, absorb: absorb}
				switch absorb {
				case 1: // the split where the data is aligned
					c.split = min((4-c.offset%4)%4, length)
				case 2:
					c.split = min(length, 4*keccakMaxWords) / 4 * 4
					c.split = rng.IntN(c.split/4+1) * 4
				case 3:
					c.split = rng.IntN(min(length, 7) + 1)
				}
				c.squeeze = rng.IntN(4)
				c.out = fn.digest
				if c.out == 0 {
					c.out = []int{1, 16, 32, 64, fn.rate - 1, fn.rate, fn.rate + 1, 3 * fn.rate, keccakMaxOut}[rng.IntN(9)]
				}
				if c.squeeze == 2 {
					c.out -= c.out % 3
				}
				if c.squeeze == 0 {
					c.out -= c.out % 4
				}
				cases = append(cases, c)
			}
		}
	}
	words := make([]uint32, 0, 8*len(cases))
	for _, c := range cases {
		words = append(words, uint32(c.function), uint32(c.offset), uint32(c.length), uint32(c.split), uint32(c.absorb), uint32(c.out), uint32(c.squeeze), 0)
	}
	out := devicetest.RunKernel(t, d, testProgram("keccak_test.cl"), "keccak_test", len(cases), keccakMaxOut*len(cases),
		device.Uint32Bytes(words), data, uint32(len(cases)))
	for i, c := range cases {
		msg := data[c.offset : c.offset+c.length]
		want := keccakFunctions[c.function].want(msg, c.out)[:c.out]
		got := out[i*keccakMaxOut : i*keccakMaxOut+c.out]
		if !bytes.Equal(got, want) {
			t.Errorf("%v: %x, want %x", c, got, want)
		}
	}
}
