package ecdsa

import (
	stdecdh "crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/internal/engine"
	"github.com/gpucrypto/gpucrypto/internal/hostbench"
)

// BenchmarkHostSign measures the host side of a device call of SignASN1
// on 1,048,576 SHA-256 hashes by 256 keys, as the GPU bench's
// (hostbench.Run), with a nil reader (randomRows): the device's commands are
// replaced by the writing of an (r, s) that is not zero, which the host
// encodes as it would the kernel's. Run it with -cpu 1 for each step's
// cost in core time.
func BenchmarkHostSign(b *testing.B) {
	e := devicetest.Engine(b, NewEngine)
	n := hostbench.Size
	keys, hashes := signInputs(b, n)
	hostbench.Run(b, e.core, n, resultRows, func() error { _, err := e.SignASN1(nil, keys, hashes); return err })
}

// BenchmarkHostSignInto is BenchmarkHostSign with SignASN1Into, into
// outputs reused from call to call (of MaxASN1Size capacity, in one
// slab): its unpack against SignASN1's is the cost of new signatures.
func BenchmarkHostSignInto(b *testing.B) {
	e := devicetest.Engine(b, NewEngine)
	n := hostbench.Size
	keys, hashes := signInputs(b, n)
	out := signatureOutputs(n, MaxASN1Size)
	hostbench.Run(b, e.core, n, resultRows, func() error { return e.SignASN1Into(nil, keys, hashes, out) })
}

// BenchmarkUnpackSign measures signing's unpack alone, on one core, for
// a batch of 131,072 (r, s) of the kernel's: new signatures (SignASN1's
// slab per range) against the caller's outputs reused (SignASN1Into),
// per element (ns/elem) and per batch (-benchmem's allocations).
func BenchmarkUnpackSign(b *testing.B) {
	const n = 1 << 17
	sigs := make([]uint32, 16*n)
	for k := range sigs {
		sigs[k] = uint32(k)*2654435761 | 1
	}
	onDevice := make([]bool, n)
	for k := range onDevice {
		onDevice[k] = true
	}
	ch := &engine.Chunk{Lo: 0, Hi: n}
	for _, into := range []bool{false, true} {
		name := "alloc"
		out := make([][]byte, n)
		if into {
			name, out = "into", signatureOutputs(n, MaxASN1Size)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			j := &signJob{form: ASN1, out: engine.Ready(out), into: into, errs: engine.NewErrors(n)}
			for b.Loop() {
				j.unpack(ch, sigs, onDevice, 0, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/elem")
		})
	}
}

// BenchmarkPipelineSign is signing calls as BenchmarkHostSign's over
// hostbench.Pipeline's simulated device, 260 ns per signature: a GPU's
// kernel time per signature times its host's cores over two, so that on
// a two-core machine the host's share of a call is about what it is on
// the GPU's host. For changes to the pipeline, old against new
// alternating (a model's figures, not a GPU's).
func BenchmarkPipelineSign(b *testing.B) {
	e := devicetest.Engine(b, NewEngine)
	n := hostbench.Size
	keys, hashes := signInputs(b, n)
	hostbench.Pipeline(b, e.core, n, 260*time.Nanosecond, resultRows, func() error { _, err := e.SignASN1(nil, keys, hashes); return err })
}

// BenchmarkPipelineSignInto is BenchmarkPipelineSign with SignASN1Into,
// into outputs reused from call to call (as the GPU bench's
// ecdsa-p256-sign).
func BenchmarkPipelineSignInto(b *testing.B) {
	e := devicetest.Engine(b, NewEngine)
	n := hostbench.Size
	keys, hashes := signInputs(b, n)
	out := signatureOutputs(n, MaxASN1Size)
	hostbench.Pipeline(b, e.core, n, 260*time.Nanosecond, resultRows, func() error { return e.SignASN1Into(nil, keys, hashes, out) })
}

// signatureOutputs are n outputs of capacity size for SignASN1Into or
// SignP1363Into, in one slab.
func signatureOutputs(n, size int) [][]byte {
	out := make([][]byte, n)
	slab := make([]byte, n*size)
	for i := range out {
		out[i] = slab[i*size : i*size : (i+1)*size]
	}
	return out
}

// signInputs are the signing benchmarks' n keys (256 distinct ones,
// cycled) and n distinct SHA-256 hashes.
func signInputs(b *testing.B, n int) (keys []*ecdsa.PrivateKey, hashes [][]byte) {
	keys = cycled(b, n, 256, func() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) })
	hashes = make([][]byte, n)
	for i := range n {
		var m [8]byte
		binary.LittleEndian.PutUint64(m[:], uint64(i))
		h := sha256.Sum256(m[:])
		hashes[i] = h[:]
	}
	return keys, hashes
}

// BenchmarkHostPublicKeys measures the host side of a device call of
// PublicKeys on 1,048,576 scalars, 256 distinct ones cycled, as the GPU
// bench's ecdh-p256-keygen: the device's commands are replaced by the
// writing of a point that is not zero, which the host encodes as it
// would the kernel's. Run it with -cpu 1 for each step's cost in core
// time.
func BenchmarkHostPublicKeys(b *testing.B) {
	e := devicetest.Engine(b, NewEngine)
	n := hostbench.Size
	const distinct = 256
	privs := cycled(b, n, distinct, scalarBytes)
	hostbench.Run(b, e.core, n, resultRows, func() error { _, err := e.PublicKeys(privs); return err })
}

// BenchmarkHostECDH measures the host side of a device call of ECDH
// (ecdh-p256) on 1,048,576 pairs of a scalar and a peer's point, 256
// distinct ones cycled: the device's commands are replaced by the writing
// of secrets that are not zero and a status of 1 (answered), which the
// host reads as it would the kernel's.
func BenchmarkHostECDH(b *testing.B) {
	e := devicetest.Engine(b, NewEngine)
	n := hostbench.Size
	const distinct = 256
	privs := cycled(b, n, distinct, scalarBytes)
	peers := cycled(b, n, distinct, func() ([]byte, error) {
		key, err := stdecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		return key.PublicKey().Bytes(), nil
	})
	hostbench.Run(b, e.core, n, sharedRows, func() error { _, err := e.ECDH(privs, peers); return err })
}

// cycled is n values for a host benchmark: the first distinct made by
// fresh, the others repeating them in turn (value i is value i mod
// distinct), as a server's many requests by few keys.
func cycled[T any](b *testing.B, n, distinct int, fresh func() (T, error)) []T {
	values := make([]T, n)
	for i := range values {
		if i >= distinct {
			values[i] = values[i%distinct]
			continue
		}
		v, err := fresh()
		if err != nil {
			b.Fatal(err)
		}
		values[i] = v
	}
	return values
}

// scalarBytes is a random P-256 private scalar, as crypto/ecdh encodes it.
func scalarBytes() ([]byte, error) {
	key, err := stdecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return key.Bytes(), nil
}

// sharedRows stands in for the ECDH kernels of the batch [lo, hi): x
// coordinates of bytes that vary, not zero, and status words of 1 in the
// rows the results are read into (the last 36 bytes per element of the
// batch's first staging memory: 8 rows of x, then the status row).
func sharedRows(lo, hi int, staging [][]byte) error {
	n := hi - lo
	rows := staging[0][len(staging[0])-36*n:]
	for k := range rows[:32*n] {
		rows[k] = byte(k*131+7) | 1
	}
	for k := range n {
		binary.LittleEndian.PutUint32(rows[32*n+4*k:], 1)
	}
	return nil
}

// BenchmarkHostVerify measures the host side of a device call of
// VerifyASN1 on 1,048,576 SHA-256 hashes and DER signatures, each
// distinct, by 256 keys, as the GPU bench's ecdsa-p256-verify: the
// device's commands are replaced by the writing of verdicts of 1 (valid),
// which the host reads as it would the kernel's. The signatures are not
// the keys' (no kernel checks them) but parse, with r and s in [1, n), so
// that every element goes to the device. Run it with -cpu 1 for each
// step's cost in core time.
func BenchmarkHostVerify(b *testing.B) {
	e := devicetest.Engine(b, NewEngine)
	n := hostbench.Size
	const distinct = 256
	pubs := cycled(b, n, distinct, func() (*ecdsa.PublicKey, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		return &key.PublicKey, nil
	})
	hashes, sigs := make([][]byte, n), make([][]byte, n)
	for i := range n {
		var m [9]byte
		binary.LittleEndian.PutUint64(m[:], uint64(i))
		h := sha256.Sum256(m[:])
		hashes[i] = h[:]
		m[8] = 'r'
		r := sha256.Sum256(m[:])
		m[8] = 's'
		s := sha256.Sum256(m[:])
		sigs[i] = appendASN1(nil, &r, &s)
	}
	hostbench.Run(b, e.core, n, verdictRows, func() error { _, err := e.VerifyASN1(pubs, hashes, sigs); return err })
}

// verdictRows stands in for the verification kernels of the batch
// [lo, hi): a verdict of 1 (valid) per element in the row the verdicts
// are read into (the last 4 bytes per element of the batch's first
// staging memory).
func verdictRows(lo, hi int, staging [][]byte) error {
	n := hi - lo
	rows := staging[0][len(staging[0])-4*n:]
	for k := range n {
		binary.LittleEndian.PutUint32(rows[4*k:], 1)
	}
	return nil
}

// resultRows stands in for the kernels of the batch [lo, hi) that answer
// 64 bytes per element, signing's (r, s) and key generation's (x, y):
// bytes that vary, not zero, in the rows the kernels' results are read
// into (the last 64 bytes per element of the batch's first staging
// memory).
func resultRows(lo, hi int, staging [][]byte) error {
	rows := staging[0][len(staging[0])-64*(hi-lo):]
	for k := range rows {
		rows[k] = byte(k*131+7) | 1
	}
	return nil
}
