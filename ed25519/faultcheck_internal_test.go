package ed25519

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// ED25519_CHECK_SCALAR (kernels/ed25519_check.h) is c^−1·2^256 mod L for
// c = kernels.FaultCheckMultiple, as math/big computes it.
func TestFaultCheckConstant(t *testing.T) {
	src, err := kernels.Source("ed25519_check.h", nil)
	require.NoError(t, err)
	got := devicetest.DefineArrays(t, src, "ED25519_CHECK_SCALAR")["ED25519_CHECK_SCALAR"]
	require.NotNil(t, got)
	want := new(big.Int).ModInverse(big.NewInt(kernels.FaultCheckMultiple), scalarOrder)
	want.Lsh(want, 256).Mod(want, scalarOrder)
	require.Zero(t, want.Cmp(got), "header %#x, want %#x", got, want)
}

// signKernelCase is a batch for ed25519_sign run directly: keys and
// messages, the fault word of each element, and one element the kernel
// skips (the host's: ED25519_SKIP), which has a fault word too.
type signKernelCase struct {
	keys   []ed25519.PrivateKey
	msgs   [][]byte
	faults []uint32
	skip   int
}

func newSignKernelCase(r *rand.Rand, n int) *signKernelCase {
	words := []uint32{1, 0x8000, 0x0100, 0x80000000, 0x00010000, 0x40000000, 0x00040002}
	c := &signKernelCase{keys: make([]ed25519.PrivateKey, n), msgs: make([][]byte, n), faults: make([]uint32, n), skip: 8}
	for i := range n {
		seed := make([]byte, SeedSize)
		for j := range seed {
			seed[j] = byte(r.Uint32())
		}
		c.keys[i] = ed25519.NewKeyFromSeed(seed)
		c.msgs[i] = make([]byte, r.IntN(100))
		for j := range c.msgs[i] {
			c.msgs[i][j] = byte(r.Uint32())
		}
		if i%4 == 0 {
			c.faults[i] = words[(i/4)%len(words)]
		}
	}
	return c
}

// run runs ed25519_sign of the program built with defines over the case
// and returns each element's 64 bytes of sigs (all ones where the kernel
// writes nothing).
func (c *signKernelCase) run(t *testing.T, d *device.Device, defines map[string]string) [][]byte {
	n := len(c.keys)
	var keys, messages []byte
	offsets, lengths := make([]uint32, n), make([]uint32, n)
	for i := range n {
		keys = append(keys, c.keys[i]...)
		offsets[i], lengths[i] = uint32(len(messages)), uint32(len(c.msgs[i]))
		messages = append(messages, c.msgs[i]...)
	}
	lengths[c.skip] = lengthSkip
	table, err := kernels.CombTable("x25519")
	require.NoError(t, err)
	check, err := kernels.CombCheckTable("x25519")
	require.NoError(t, err)
	out := devicetest.RunKernel(t, d, kernels.Program("ed25519.cl", defines), "ed25519_sign", n, n*SignatureSize,
		keys, append(messages, 0), device.Uint32Bytes(offsets), device.Uint32Bytes(lengths), make([]byte, 4), uint32(0),
		device.Uint32Bytes(table), device.Uint32Bytes(check), uint32(n), device.Uint32Bytes(c.faults))
	sigs := make([][]byte, n)
	for i := range sigs {
		sigs[i] = out[i*SignatureSize : (i+1)*SignatureSize]
	}
	return sigs
}

// The kernel's fault check, run directly: ed25519_sign built with fault
// injection (both forms) writes zeros, the check's verdict, for exactly
// the elements given a fault word, crypto/ed25519's signature for every
// other, and nothing for the one it skips. Built without the check
// (ED25519_NO_FAULT_CHECK), the same faults give other signatures than
// crypto/ed25519's, and each, beside the right one, gives the secret
// scalar: a = (S' − S)/(k' − k) mod L for the challenges k' and k of
// their two R (what the check is there to prevent, and what shows that
// the injection corrupts R).
func TestFaultCheckKernel(t *testing.T) {
	d := devicetest.Device(t)
	c := newSignKernelCase(rand.New(rand.NewPCG(41, 42)), 40)
	for name, defines := range map[string]map[string]string{
		"limbs": {"ED25519_FAULT_INJECTION": ""},
		"fp64":  {"ED25519_FAULT_INJECTION": "", "ED25519_FP64": "1"},
	} {
		t.Run(name, func(t *testing.T) {
			sigs := c.run(t, d, defines)
			for i, sig := range sigs {
				switch {
				case i == c.skip:
					require.Equal(t, bytes.Repeat([]byte{0xff}, SignatureSize), sig, "element %d: skipped", i)
				case c.faults[i] != 0:
					require.Equal(t, make([]byte, SignatureSize), sig, "element %d (fault %#x): refused", i, c.faults[i])
					require.True(t, refused(sig))
				default:
					require.Equal(t, ed25519.Sign(c.keys[i], c.msgs[i]), sig, "element %d", i)
					require.False(t, refused(sig))
				}
			}
		})
	}
	t.Run("unchecked", func(t *testing.T) {
		sigs := c.run(t, d, map[string]string{"ED25519_FAULT_INJECTION": "", "ED25519_NO_FAULT_CHECK": ""})
		challenge := func(i int, R []byte) *big.Int {
			h := sha512.New()
			h.Write(R)
			h.Write(c.keys[i][32:])
			h.Write(c.msgs[i])
			return new(big.Int).Mod(scalarFromLittleEndian(h.Sum(nil)), scalarOrder)
		}
		for i, sig := range sigs {
			if i == c.skip {
				continue
			}
			right := ed25519.Sign(c.keys[i], c.msgs[i])
			if c.faults[i] == 0 {
				require.Equal(t, right, sig, "element %d", i)
				continue
			}
			require.NotEqual(t, right[:32], sig[:32], "element %d (fault %#x): R", i, c.faults[i])
			num := new(big.Int).Sub(scalarFromLittleEndian(sig[32:]), scalarFromLittleEndian(right[32:]))
			den := new(big.Int).Sub(challenge(i, sig[:32]), challenge(i, right[:32]))
			a := num.Mul(num, den.ModInverse(den.Mod(den, scalarOrder), scalarOrder)).Mod(num, scalarOrder)
			want := new(big.Int).Mod(scalarFromLittleEndian(clampedScalar(c.keys[i].Seed())), scalarOrder)
			require.Zero(t, want.Cmp(a), "element %d (fault %#x): the secret scalar from the two signatures", i, c.faults[i])
		}
	})
}
