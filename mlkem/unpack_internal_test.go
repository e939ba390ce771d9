package mlkem

import (
	"fmt"
	mrand "math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// unpackCase is a batch of encapsulations for the unpacking's tests: runs
// of elements under good keys, a key of the wrong length and a key that
// fails the modulus check (which the device refuses), and, where the
// randomness is given, randomness of the wrong length.
func unpackCase(t *testing.T, p *params, n int, given bool) (h *hostBatch, want []error) {
	good := distinctKeys(t, p, 5)
	bad := append([]byte(nil), good[0]...)
	bad[0], bad[1] = 0xff, 0xff // a first coefficient of 4095, above q
	short := good[1][:p.ekSize-1]
	eks, random := make([][]byte, n), [][]byte(nil)
	if given {
		random = make([][]byte, n)
	}
	want = make([]error, n)
	rng := mrand.New(mrand.NewPCG(1, 2))
	for i := 0; i < n; {
		ek, err := good[rng.IntN(len(good))], error(nil)
		switch rng.IntN(8) {
		case 0:
			ek, err = short, ErrEncapsulationKeyLength
		case 1:
			ek, err = bad, ErrEncapsulationKey
		}
		for run := min(1+rng.IntN(4), n-i); run > 0; run-- {
			eks[i], want[i] = ek, err
			if given {
				random[i] = randomBytes(t, RandomnessSize)
				if rng.IntN(8) == 0 {
					random[i] = random[i][:RandomnessSize-1]
					if err == nil {
						want[i] = ErrRandomnessLength
					}
				}
			}
			i++
		}
	}
	h = newHostBatch(t, p, eks, random)
	for e, first := range h.table.first {
		if sameKey(eks[first], bad, p.ekSize) {
			h.verdicts[e] = 0 // the device's verdict on a key that fails the modulus check
		}
	}
	return h, want
}

// The unpacking of a device batch of encapsulations gives each element
// that succeeds the device's shared key and ciphertext, each a slice of
// its own capacity (an append cannot write over a neighbour's), and each
// that fails its error and no results, its shared key not left beside its
// neighbours'.
func TestEncapsulateUnpack(t *testing.T) {
	for _, p := range []*params{mlkem768, mlkem1024} {
		for _, given := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/given=%v", p.name, given), func(t *testing.T) {
				n := 3*hostChunk + 17 // pieces of the host's passes of different sizes
				h, want := unpackCase(t, p, n, given)
				h.j.putMessages(0, h.messages)
				require.Equal(t, -1, h.j.unpack(0, h.index, h.verdicts, h.shared, h.cts))
				shared, cts := h.j.shared.Get(), h.j.cts.Get()
				ctWords, zeroed := p.ctSize/4, 0
				for i := range n {
					if want[i] != nil {
						require.ErrorIs(t, h.j.errs.Get(i), want[i], "element %d", i)
						require.Nil(t, shared[i], "element %d", i)
						require.Nil(t, cts[i], "element %d", i)
						if i > 0 && i+1 < n && shared[i-1] != nil && shared[i+1] != nil &&
							unsafe.Pointer(unsafe.SliceData(shared[i+1])) == unsafe.Add(unsafe.Pointer(unsafe.SliceData(shared[i-1])), 2*SharedKeySize) {
							between := unsafe.Slice(unsafe.SliceData(shared[i-1]), 3*SharedKeySize)[SharedKeySize : 2*SharedKeySize]
							require.Equal(t, make([]byte, SharedKeySize), between, "element %d's shared key in its neighbours' allocation", i)
							zeroed++
						}
						continue
					}
					require.NoError(t, h.j.errs.Get(i), "element %d", i)
					require.Equal(t, wordBytes(h.shared[8*i:8*i+8]), shared[i], "element %d", i)
					require.Equal(t, wordBytes(h.cts[ctWords*i:ctWords*(i+1)]), cts[i], "element %d", i)
					require.Equal(t, len(shared[i]), cap(shared[i]), "element %d", i)
					require.Equal(t, len(cts[i]), cap(cts[i]), "element %d", i)
				}
				require.NotZero(t, zeroed, "no failed element between two that succeeded")
			})
		}
	}
}

// A key that the device refuses but crypto/mlkem takes is a device fault:
// unpack names its element, which has neither results nor an error.
func TestEncapsulateUnpackRefused(t *testing.T) {
	eks := distinctKeys(t, mlkem768, 3)
	h := newHostBatch(t, mlkem768, eks, nil)
	h.j.putMessages(0, h.messages)
	h.verdicts[1] = 0
	require.Equal(t, 1, h.j.unpack(0, h.index, h.verdicts, h.shared, h.cts))
	require.Nil(t, h.j.shared.Get()[1])
	require.Nil(t, h.j.cts.Get()[1])
	require.NoError(t, h.j.errs.Get(1))
	require.NotNil(t, h.j.shared.Get()[0])
	require.NotNil(t, h.j.shared.Get()[2])
}

// The unpacking of a device batch of decapsulations or key generations
// gives each element without an error the device's output, a slice of its
// own capacity, and each with an error no result; a failed element's
// shared key is not left beside its neighbours'.
func TestUnpack(t *testing.T) {
	p, n := mlkem768, 3*hostChunk+17
	failed := func(i int) bool { return i%7 == 3 }
	setErrors := func(errs interface{ Set(int, error) }) {
		for i := range n {
			if failed(i) {
				errs.Set(i, ErrSeedLength)
			}
		}
	}
	check := func(t *testing.T, out [][]byte, device []byte, size int, zeroed bool) {
		for i := range n {
			if failed(i) {
				require.Nil(t, out[i], "element %d", i)
				if zeroed && i > 0 && i+1 < n && !failed(i-1) && !failed(i+1) &&
					unsafe.Pointer(unsafe.SliceData(out[i+1])) == unsafe.Add(unsafe.Pointer(unsafe.SliceData(out[i-1])), 2*size) {
					between := unsafe.Slice(unsafe.SliceData(out[i-1]), 3*size)[size : 2*size]
					require.Equal(t, make([]byte, size), between, "element %d's result in its neighbours' allocation", i)
				}
				continue
			}
			require.Equal(t, device[i*size:(i+1)*size], out[i], "element %d", i)
			require.Equal(t, size, cap(out[i]), "element %d", i)
		}
	}
	t.Run("decapsulate", func(t *testing.T) {
		j := &decapsulateJob{p: p, out: engine.Ready(make([][]byte, n)), errs: engine.NewErrors(n)}
		setErrors(j.errs)
		shared := randomWords(t, 8*n)
		j.unpack(0, shared)
		check(t, j.out.Get(), wordBytes(shared), SharedKeySize, true)
	})
	t.Run("keygen", func(t *testing.T) {
		j := &keyGenJob{p: p, out: engine.Ready(make([][]byte, n)), errs: engine.NewErrors(n)}
		setErrors(j.errs)
		eks := randomWords(t, p.ekSize/4*n)
		j.unpack(0, eks)
		check(t, j.out.Get(), wordBytes(eks), p.ekSize, false)
	})
}
