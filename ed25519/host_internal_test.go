package ed25519

import (
	"crypto/ed25519"
	"encoding/binary"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/internal/hostbench"
)

// BenchmarkHost measures the host side of the device calls of
// 1,048,576 elements (hostbench.Run: the device's commands replaced by
// nothing, so the results the host unpacks are whatever the staging
// memory held), 64-byte messages and 4,096 distinct keys as the GPU
// bench's: where the host's time per element goes, step by step. Run it
// with -cpu 1 for each step's cost in core time.
func BenchmarkHost(b *testing.B) {
	e := devicetest.Engine(b, NewEngine)
	n := hostbench.Size
	seeds, keys, pubs, msgs := hostInputs(n)
	sigs := make([][]byte, n)
	for i := range sigs { // their values do not matter: the device's stand-in judges nothing
		sigs[i] = make([]byte, SignatureSize)
	}
	b.Run("sign", func(b *testing.B) {
		hostbench.Run(b, e.core, n, signedResults, func() error { _, err := e.Sign(keys, msgs, nil); return err })
	})
	b.Run("sign-into", func(b *testing.B) {
		out := signatureOutputs(n)
		hostbench.Run(b, e.core, n, signedResults, func() error { return e.SignInto(keys, msgs, out, nil) })
	})
	b.Run("keygen", func(b *testing.B) {
		hostbench.Run(b, e.core, n, nil, func() error { _, err := e.NewKeysFromSeeds(seeds); return err })
	})
	b.Run("verify", func(b *testing.B) {
		hostbench.Run(b, e.core, n, nil, func() error { _, err := e.Verify(pubs, msgs, sigs, nil); return err })
	})
}

// BenchmarkPipeline is signing calls of 1,048,576 (into the caller's
// outputs) over hostbench.Pipeline's simulated device, 100 ns per
// signature: a GPU's kernel time per signature times its host's cores
// over two, so that on a two-core machine the host's share of a call is
// about what it is on the GPU's host. For changes to the pipeline, old
// against new alternating (a model's figures, not a GPU's).
func BenchmarkPipeline(b *testing.B) {
	e := devicetest.Engine(b, NewEngine)
	n := hostbench.Size
	_, keys, _, msgs := hostInputs(n)
	out := signatureOutputs(n)
	hostbench.Pipeline(b, e.core, n, 100*time.Nanosecond, signedResults, func() error { return e.SignInto(keys, msgs, out, nil) })
}

// signedResults is the device's stand-in for signing batches: it writes
// signatures that the fault check passed (any nonzero R; the staging
// memory may hold zeros, the check's verdict, which would send every
// element to crypto/ed25519) into the batch's staging memory, laid out as
// signJob.Device has it (keys, lengths, then the signatures).
func signedResults(lo, hi int, staging [][]byte) error {
	n := hi - lo
	sigs := staging[0][4*17*n : 4*33*n]
	for i := range sigs {
		sigs[i] = 1
	}
	return nil
}

// signatureOutputs are n signatures' outputs for SignInto, in one slab.
func signatureOutputs(n int) [][]byte {
	out := make([][]byte, n)
	slab := make([]byte, n*SignatureSize)
	for i := range out {
		out[i] = slab[i*SignatureSize : (i+1)*SignatureSize]
	}
	return out
}

// hostInputs are n seeds and their keys (4,096 distinct ones, cycled),
// and n distinct messages of 64 bytes.
func hostInputs(n int) (seeds [][]byte, keys []ed25519.PrivateKey, pubs []ed25519.PublicKey, msgs [][]byte) {
	const distinct = 4096
	seeds, keys, pubs, msgs = make([][]byte, n), make([]ed25519.PrivateKey, n), make([]ed25519.PublicKey, n), make([][]byte, n)
	for i := range n {
		if i < distinct {
			seed := make([]byte, SeedSize)
			binary.LittleEndian.PutUint64(seed, uint64(i)+1)
			keys[i] = ed25519.NewKeyFromSeed(seed)
			pubs[i] = keys[i].Public().(ed25519.PublicKey)
		} else {
			keys[i], pubs[i] = keys[i%distinct], pubs[i%distinct]
		}
		seeds[i] = keys[i].Seed()
		msgs[i] = make([]byte, 64)
		binary.LittleEndian.PutUint64(msgs[i], uint64(i))
	}
	return seeds, keys, pubs, msgs
}
